"""A lifecycle plan: what one maintenance pass would change, and why, before anything changes.

A :class:`LifecyclePlan` is an immutable value: :meth:`LifecycleManager.preview` builds it from
the stores without writing, and :meth:`LifecycleManager.execute` applies exactly it (or refuses it
as stale). Each :class:`PlannedChange` carries the scores and the reason that decided it, and the
basis it was decided on (stage, base score, reference time, protection): if any of those has
changed by the time of ``execute``, the plan is stale.

>>> from datetime import datetime, timezone
>>> plan = LifecyclePlan.empty(datetime(2026, 10, 1, tzinfo=timezone.utc))
>>> plan.total, plan.counts[PlanAction.PROMOTE]
(0, 0)
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import NamedTuple

from remem.lifecycle.decay import DecayConfig
from remem.lifecycle.promotion import PromotionConfig
from remem.models import MemoryStage

__all__ = ["LifecyclePlan", "PlanAction", "PlannedChange"]


class PlanAction(StrEnum):
    """What a planned change does to a record's stage."""

    PROMOTE = "promote"
    """short_term → long_term."""
    DECAY = "decay"
    """short_term or long_term → decayed."""
    DELETE = "delete"
    """decayed → deleted (a tombstone; the vector is removed from its collection)."""
    REACTIVATE = "reactivate"
    """decayed → short_term."""


class PlannedChange(NamedTuple):
    """One record's planned stage change, its scores at the plan's time, and the reason.

    ``base_score``, ``score_reference_time`` (UNIX seconds) and ``protected`` are the record's state
    the change was decided on; ``execute`` refuses the plan if the record no longer has them.
    ``detail`` is the quantity the rule compared besides the scores (hours of age for promote,
    hours since the last access for decay, days since decay for delete).

    A NamedTuple with a lazily formatted :attr:`reason`: a plan over a large store holds one
    change per changed record, and a tuple plus a shared template is several times cheaper to
    build than a frozen dataclass with an eagerly formatted message.
    """

    id: str
    action: PlanAction
    from_stage: MemoryStage
    to_stage: MemoryStage
    decay_score: float
    promotion_score: float
    base_score: float
    score_reference_time: float
    protected: bool
    detail: float = 0.0
    reason_template: str = ""

    @property
    def reason(self) -> str:
        """Why the rule chose this change, e.g. ``decay score 0.153 < 0.2 after 188.0 h ...``."""
        return self.reason_template.format(
            d=self.decay_score, p=self.promotion_score, x=self.detail
        )


@dataclass(frozen=True)
class LifecyclePlan:
    """Every change one maintenance pass would make at ``created_at``, grouped by action.

    ``scanned`` is how many records were examined (every record in the store; no caps). Lists keep
    the store's order (creation time, then id). The configs are the snapshot the plan was made
    under.
    """

    created_at: datetime
    decay_config: DecayConfig
    promotion_config: PromotionConfig
    scanned: int = 0
    promote: tuple[PlannedChange, ...] = ()
    decay: tuple[PlannedChange, ...] = ()
    delete: tuple[PlannedChange, ...] = ()
    reactivate: tuple[PlannedChange, ...] = ()
    plan_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    namespace: str | None = None
    """The scope the plan covers (``preview(namespace=...)``); None: every record."""

    @classmethod
    def empty(
        cls,
        created_at: datetime,
        decay_config: DecayConfig | None = None,
        promotion_config: PromotionConfig | None = None,
    ) -> LifecyclePlan:
        """A plan that changes nothing."""
        return cls(created_at, decay_config or DecayConfig(), promotion_config or PromotionConfig())

    @property
    def changes(self) -> tuple[PlannedChange, ...]:
        """Every change in execution order: promote, decay, delete, reactivate."""
        return self.promote + self.decay + self.delete + self.reactivate

    @property
    def counts(self) -> Mapping[PlanAction, int]:
        return {
            PlanAction.PROMOTE: len(self.promote),
            PlanAction.DECAY: len(self.decay),
            PlanAction.DELETE: len(self.delete),
            PlanAction.REACTIVATE: len(self.reactivate),
        }

    @property
    def total(self) -> int:
        return len(self.promote) + len(self.decay) + len(self.delete) + len(self.reactivate)

    def __bool__(self) -> bool:
        return self.total > 0

    def describe(self, *, limit: int = 10) -> str:
        """A human-readable summary: settings, counts, and up to ``limit`` changes per action."""
        d = self.decay_config
        lines = [
            f"lifecycle plan {self.plan_id} at {self.created_at.isoformat()}: "
            f"{self.total} change(s) among {self.scanned} record(s)"
            + ("" if self.namespace is None else f" of namespace {self.namespace!r}"),
            f"  settings: decay_rate={d.decay_rate}/h decay_threshold={d.decay_threshold} "
            f"promotion_threshold={d.promotion_threshold} "
            f"short_term_min_age_hours={d.short_term_min_age_hours} "
            f"decayed_retention_days={d.decayed_retention_days}",
        ]
        for action, changes in (
            (PlanAction.PROMOTE, self.promote),
            (PlanAction.DECAY, self.decay),
            (PlanAction.DELETE, self.delete),
            (PlanAction.REACTIVATE, self.reactivate),
        ):
            lines.append(f"  {action.value}: {len(changes)}")
            for change in changes[:limit]:
                lines.append(
                    f"    {change.id}: {change.from_stage.value} -> {change.to_stage.value} "
                    f"({change.reason})"
                )
            if len(changes) > limit:
                lines.append(f"    ... and {len(changes) - limit} more")
        if not self:
            lines.append("  nothing to do")
        return "\n".join(lines)
