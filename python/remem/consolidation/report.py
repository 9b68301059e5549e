"""What a consolidation run did: supersessions, entity merges, day summaries and failures."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from remem.models import DaySummary


@dataclass(frozen=True, slots=True)
class Supersession:
    """One record or relationship replaced by a newer one (kept, with ``valid_to`` and
    ``superseded_by`` set). For a relationship, ``subject`` is the source entity id,
    ``attribute`` the relation type and the values are target entity ids. Kind ``"ended"`` is
    a relationship closed with no successor: ``new_id`` is the keyed fact that ended it, and
    ``new_value`` is None."""

    kind: Literal["record", "relationship", "ended"]
    old_id: str
    new_id: str
    subject: str
    attribute: str
    old_value: str | None
    new_value: str | None
    old_text: str
    new_text: str

    @property
    def is_restatement(self) -> bool:
        """The newer one says the same thing again (a duplicate), not something else."""
        return self.old_value == self.new_value


@dataclass(frozen=True, slots=True)
class EntityMerge:
    """A duplicate entity folded into the one kept: its names became aliases of ``kept_id``
    and its live relationships were re-pointed (old edges superseded by the copies)."""

    kept_id: str
    merged_id: str
    kept_name: str
    merged_name: str
    relationships: tuple[tuple[str, str], ...] = ()
    """(old relationship id, its copy on the kept entity)."""


@dataclass(frozen=True, slots=True)
class ConsolidationFailure:
    """A step that failed and will be retried by the next run (nothing was written for it)."""

    step: Literal["summary"]
    session_id: str
    day: date
    turn_ids: tuple[str, ...]
    error: BaseException

    @property
    def message(self) -> str:
        return f"{type(self.error).__name__}: {self.error}"


@dataclass(frozen=True, slots=True)
class SummaryRun:
    """The outcome of ``summarise_days`` for one session."""

    session_id: str
    written: tuple[DaySummary, ...] = ()
    up_to_date: tuple[date, ...] = ()
    failures: tuple[ConsolidationFailure, ...] = ()


@dataclass(frozen=True, slots=True)
class ConsolidationReport:
    """Everything one :meth:`MemoryConsolidator.consolidate` call changed or failed to do."""

    supersessions: tuple[Supersession, ...] = ()
    merges: tuple[EntityMerge, ...] = ()
    summaries: tuple[DaySummary, ...] = ()
    failures: tuple[ConsolidationFailure, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def changed(self) -> bool:
        return bool(self.supersessions or self.merges or self.summaries)

    def __str__(self) -> str:
        lines = [
            f"{len(self.supersessions)} supersessions, {len(self.merges)} merges, "
            f"{len(self.summaries)} day summaries, {len(self.failures)} failures"
        ]
        lines += [
            f"failed: {f.step} {f.session_id} {f.day.isoformat()}: {f.message}"
            for f in self.failures
        ]
        return "\n".join(lines)
