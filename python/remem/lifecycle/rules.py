"""The stage-movement rules, evaluated over every record in one columnar pass.

At time ``now`` (UNIX seconds), for each record with ``d`` its decay score
``clamp(base_score · exp(-decay_rate · hours since score_reference_time), 0, 1)`` and ``p`` its
promotion score (:mod:`remem.lifecycle.promotion`; age from creation), both from the native fused
scorer, and with the thresholds of :class:`~remem.lifecycle.DecayConfig`:

* Left alone: superseded records, and records in ``episodic`` or ``deleted``.
* ``short_term``: **decay** (→ ``decayed``) if ``d < decay_threshold`` and the record is not
  protected; otherwise **promote** (→ ``long_term``) if ``hours since created_at ≥
  short_term_min_age_hours`` and ``p ≥ promotion_threshold``. Decay wins over promotion: a memory
  that has faded is not promoted, however often it was used long ago.
* ``long_term``: **decay** (→ ``decayed``) if ``d < decay_threshold`` and not protected.
* ``decayed``: **reactivate** (→ ``short_term``) if ``d ≥ decay_threshold`` (an access has
  reinforced it); otherwise **delete** (→ ``deleted``) if not protected, ``decayed_at`` is set, and
  ``now - decayed_at ≥ decayed_retention_days``. A decayed record without ``decayed_at`` is kept.
* Protected records are never decayed or deleted; they may be promoted and reactivated.

Each record gets at most one action per pass. ``promotion_threshold`` is
``DecayConfig.promotion_threshold`` (the stage-movement setting); :class:`PromotionConfig` supplies
the weights and normalisers of ``p``. Nothing here depends on how often it runs: ``d`` is computed
from the stored base and reference time (never from a previously decayed value), ``p`` grows with
age, so hourly passes reach the same stages and scores as one pass at the end.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
from numpy.typing import NDArray

from remem.kernels import fused_scores
from remem.lifecycle.decay import DecayConfig
from remem.lifecycle.plan import LifecyclePlan, PlanAction, PlannedChange
from remem.lifecycle.promotion import PromotionConfig
from remem.models import MemoryStage
from remem.stores.records import LifecycleColumns

__all__ = ["evaluate_rules"]

_STAGES = {stage.value: stage for stage in MemoryStage}

_TARGET = {
    PlanAction.PROMOTE: MemoryStage.LONG_TERM,
    PlanAction.DECAY: MemoryStage.DECAYED,
    PlanAction.DELETE: MemoryStage.DELETED,
    PlanAction.REACTIVATE: MemoryStage.SHORT_TERM,
}


def evaluate_rules(
    cols: LifecycleColumns,
    now: datetime,
    decay: DecayConfig,
    promotion: PromotionConfig,
) -> LifecyclePlan:
    """The plan the rules in the module docstring give for ``cols`` at ``now`` (aware datetime)."""
    t_now = now.timestamp()
    n = len(cols.ids)
    if n == 0:
        return LifecyclePlan(now.astimezone(UTC), decay, promotion, scanned=0)
    scores = fused_scores(
        cols.base_score,
        cols.score_reference_time,
        cols.created_at,
        cols.access_count,
        cols.confidence,
        cols.relationship_count,
        np.zeros(n, dtype=np.float64),
        now=t_now,
        decay_rate=decay.decay_rate,
        w_age=promotion.w_age,
        w_access=promotion.w_access,
        w_confidence=promotion.w_confidence,
        w_relationships=promotion.w_relationships,
        age_norm_hours=promotion.age_norm_hours,
        access_norm=promotion.access_norm,
        relationship_norm=promotion.relationship_norm,
    )
    d, p = scores.decay, scores.promotion
    stage = np.asarray(cols.stage, dtype=object)
    live = ~cols.superseded
    short = live & (stage == MemoryStage.SHORT_TERM.value)
    long_ = live & (stage == MemoryStage.LONG_TERM.value)
    decayed = live & (stage == MemoryStage.DECAYED.value)
    unprotected = ~cols.protected
    faded = d < decay.decay_threshold
    age_h = (t_now - cols.created_at) / 3600.0
    # NaN (no decayed_at) compares False: such records are never deleted.
    retained_s = t_now - cols.decayed_at
    with np.errstate(invalid="ignore"):
        expired = retained_s >= decay.decayed_retention_days * 86400.0

    decay_mask = (short | long_) & faded & unprotected
    promote_mask = (
        short
        & ~decay_mask
        & (age_h >= decay.short_term_min_age_hours)
        & (p >= decay.promotion_threshold)
    )
    reactivate_mask = decayed & ~faded
    delete_mask = decayed & faded & unprotected & expired

    idle_h = np.maximum(0.0, (t_now - cols.score_reference_time) / 3600.0)
    retained_days = retained_s / 86400.0

    def build(
        action: PlanAction,
        mask: NDArray[np.bool_],
        detail: NDArray[np.float64],
        template: str,
    ) -> tuple[PlannedChange, ...]:
        # A tuple per changed record only; every score above came from one native pass, and the
        # reason is formatted when read.
        idx = np.flatnonzero(mask)
        target = _TARGET[action]
        return tuple(
            PlannedChange(
                cols.ids[i], action, _STAGES[cols.stage[i]], target, dv, pv, b, r, pr, x, template
            )
            for i, dv, pv, b, r, pr, x in zip(
                idx.tolist(),
                d[idx].tolist(),
                p[idx].tolist(),
                cols.base_score[idx].tolist(),
                cols.score_reference_time[idx].tolist(),
                cols.protected[idx].tolist(),
                detail[idx].tolist(),
                strict=True,
            )
        )

    th_d, th_p = decay.decay_threshold, decay.promotion_threshold
    return LifecyclePlan(
        created_at=now.astimezone(UTC),
        decay_config=decay,
        promotion_config=promotion,
        scanned=n,
        promote=build(
            PlanAction.PROMOTE,
            promote_mask,
            age_h,
            f"promotion score {{p:.3f}} >= {th_p} at age {{x:.1f}} h "
            f"(>= {decay.short_term_min_age_hours} h)",
        ),
        decay=build(
            PlanAction.DECAY,
            decay_mask,
            idle_h,
            f"decay score {{d:.3f}} < {th_d} after {{x:.1f}} h since last access",
        ),
        delete=build(
            PlanAction.DELETE,
            delete_mask,
            retained_days,
            f"decayed {{x:.1f}} days ago (retention {decay.decayed_retention_days} days), "
            "decay score {d:.3f}",
        ),
        reactivate=build(
            PlanAction.REACTIVATE,
            reactivate_mask,
            d,
            f"decay score {{d:.3f}} >= {th_d} again (reinforced by access)",
        ),
    )
