"""How a planned change rewrites a record's lifecycle metadata, and when a plan is stale.

The metadata after each action, at the plan's time ``at`` (``base_score``,
``score_reference_time``, ``access_count`` and ``protected`` are never touched: decay does not
compound):

* promote: ``stage=long_term``, ``promoted_at=at``, ``promotion_state=promoted``.
* decay: ``stage=decayed``, ``decayed_at=at``; from long-term ``promotion_state=demoted``, from
  short-term ``promotion_state=none`` (a pending candidacy lapses).
* delete: ``stage=deleted`` (a tombstone); every other field kept for audit.
* reactivate: ``stage=short_term``, ``decayed_at=None``, ``promotion_state=none`` (it may be
  promoted again); ``promoted_at`` is kept as history.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from remem.lifecycle.plan import PlanAction, PlannedChange
from remem.models import MemoryLifecycleMetadata, MemoryRecord, MemoryStage, PromotionState

__all__ = ["apply_change", "is_applied", "micros", "stale_reason"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(seconds: float) -> int:
    """UNIX seconds (as columnar reads give them) to whole microseconds (as stores keep them)."""
    return round(seconds * 1e6)


def _micros_of(value: datetime) -> int:
    return (value - _EPOCH) // timedelta(microseconds=1)


def apply_change(
    lifecycle: MemoryLifecycleMetadata, action: PlanAction, at: datetime
) -> MemoryLifecycleMetadata:
    """``lifecycle`` after ``action`` at ``at`` (rules in the module docstring)."""
    update: dict[str, object]
    if action is PlanAction.PROMOTE:
        update = {
            "stage": MemoryStage.LONG_TERM,
            "promoted_at": at,
            "promotion_state": PromotionState.PROMOTED,
        }
    elif action is PlanAction.DECAY:
        demoted = lifecycle.stage is MemoryStage.LONG_TERM
        update = {
            "stage": MemoryStage.DECAYED,
            "decayed_at": at,
            "promotion_state": PromotionState.DEMOTED if demoted else PromotionState.NONE,
        }
    elif action is PlanAction.DELETE:
        update = {"stage": MemoryStage.DELETED}
    else:
        update = {
            "stage": MemoryStage.SHORT_TERM,
            "decayed_at": None,
            "promotion_state": PromotionState.NONE,
        }
    return lifecycle.model_copy(update=update)


def stale_reason(record: MemoryRecord, change: PlannedChange) -> str | None:
    """Why ``record`` no longer matches the basis ``change`` was decided on, or None if it does."""
    lc = record.lifecycle
    if record.superseded_by is not None:
        return f"superseded by {record.superseded_by!r}"
    if lc.stage is not change.from_stage:
        return f"stage is {lc.stage.value}, was {change.from_stage.value}"
    if _micros_of(lc.score_reference_time) != micros(change.score_reference_time):
        return "accessed since the preview (score reference time moved)"
    if lc.base_score != change.base_score:
        return f"base score is {lc.base_score}, was {change.base_score}"
    if lc.protected != change.protected:
        return f"protected is {lc.protected}, was {change.protected}"
    return None


def is_applied(record: MemoryRecord, change: PlannedChange) -> bool:
    """True if ``record`` shows ``change`` already applied (its target stage, the same basis)."""
    lc = record.lifecycle
    return (
        record.superseded_by is None
        and lc.stage is change.to_stage
        and lc.base_score == change.base_score
        and _micros_of(lc.score_reference_time) == micros(change.score_reference_time)
    )
