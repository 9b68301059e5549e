"""What executing a plan did, and what a maintenance cycle failed on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["ExecutionReport", "MaintenanceFailure"]


@dataclass(frozen=True, slots=True)
class ExecutionReport:
    """The outcome of :meth:`LifecycleManager.execute`.

    Counts are records whose stage was changed; ``vectors_moved`` / ``vectors_removed`` count the
    vectors that were actually in their source collection (a record without a vector changes
    stage all the same). ``recovered_plans`` is how many interrupted plans were rolled forward
    before this one.
    """

    plan_id: str
    executed_at: datetime
    promoted: int = 0
    decayed: int = 0
    deleted: int = 0
    reactivated: int = 0
    vectors_moved: int = 0
    vectors_removed: int = 0
    recovered_plans: int = 0

    @property
    def changed(self) -> int:
        return self.promoted + self.decayed + self.deleted + self.reactivated


@dataclass(frozen=True, slots=True)
class MaintenanceFailure:
    """One failed maintenance cycle: when, in which step (``preview`` or ``execute``), and why."""

    at: datetime
    step: str
    error: BaseException

    def __str__(self) -> str:
        return f"{self.at.isoformat()} {self.step}: {type(self.error).__name__}: {self.error}"
