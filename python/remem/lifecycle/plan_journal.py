"""A write-ahead journal for executing lifecycle plans across two stores.

Executing a plan writes the record store (one atomic ``update_lifecycle`` batch) and then the
vector collections (moves and removals): two stores no transaction spans. The journal makes the
pair roll forward together:

1. ``begin(pending)`` — the intent (plan id, time, every change with its basis), durable before
   any store is written;
2. ``records_applied(plan_id)`` — after the record batch committed;
3. ``commit(plan_id)`` — after the collections were brought in line.

A plan found begun and not committed (a crash, a SIGKILL, a cancelled task) is completed by
:meth:`LifecycleManager.recover` on the next open or execute. Replaying is idempotent: records
already at their target stage are not written again, moves skip ids no longer in their source
collection, removals of absent vectors are no-ops.

``FilePlanJournal`` appends fsynced JSON lines to a file (:class:`JsonLinesJournal`);
``MemoryPlanJournal`` keeps the intent in process memory (for tests and in-memory stacks, where a
crash loses everything).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from remem.errors import IntegrityError
from remem.lifecycle.plan import PlanAction, PlannedChange
from remem.models import MemoryStage
from remem.stores.shared.journal_file import JsonLinesJournal

__all__ = ["FilePlanJournal", "MemoryPlanJournal", "PendingPlan", "PlanJournal"]


@dataclass(frozen=True, slots=True)
class PendingPlan:
    """A plan whose execution began and has not been committed."""

    plan_id: str
    at: datetime
    changes: tuple[PlannedChange, ...]
    records_applied: bool = False


@runtime_checkable
class PlanJournal(Protocol):
    def begin(self, pending: PendingPlan) -> None: ...
    def records_applied(self, plan_id: str) -> None: ...
    def commit(self, plan_id: str) -> None: ...
    def pending(self) -> list[PendingPlan]: ...


class MemoryPlanJournal:
    """Pending plans in process memory (no durability)."""

    def __init__(self) -> None:
        self._pending: dict[str, PendingPlan] = {}

    def begin(self, pending: PendingPlan) -> None:
        self._pending[pending.plan_id] = pending

    def records_applied(self, plan_id: str) -> None:
        if plan_id in self._pending:
            self._pending[plan_id] = replace(self._pending[plan_id], records_applied=True)

    def commit(self, plan_id: str) -> None:
        self._pending.pop(plan_id, None)

    def pending(self) -> list[PendingPlan]:
        return list(self._pending.values())


def _change_to_json(change: PlannedChange) -> list[Any]:
    # Compact positional rows: a plan may hold every record of a large store.
    return [
        change.id,
        change.action.value,
        change.from_stage.value,
        change.to_stage.value,
        change.decay_score,
        change.promotion_score,
        change.base_score,
        change.score_reference_time,
        change.protected,
    ]


def _change_from_json(row: list[Any]) -> PlannedChange:
    return PlannedChange(
        id=row[0],
        action=PlanAction(row[1]),
        from_stage=MemoryStage(row[2]),
        to_stage=MemoryStage(row[3]),
        decay_score=float(row[4]),
        promotion_score=float(row[5]),
        base_score=float(row[6]),
        score_reference_time=float(row[7]),
        protected=bool(row[8]),
        reason_template="replayed from the plan journal",
    )


class FilePlanJournal:
    """An append-only JSON-lines plan journal, fsynced per line.

    Durability: a ``begin`` that returned is on disk (survives power loss), so the plan it
    announces is completed on the next open. A torn last line is a ``begin`` that never returned
    (no store was written after it) and is ignored. Whenever nothing is pending (on open, after
    the last commit) the file is removed, so it does not grow without bound.
    """

    def __init__(self, path: str | Path) -> None:
        self._file = JsonLinesJournal(path, what="plan journal")
        self._open = {p.plan_id for p in self.pending()}
        if not self._open:
            self._file.remove()

    @property
    def path(self) -> Path:
        return self._file.path

    def begin(self, pending: PendingPlan) -> None:
        self._open.add(pending.plan_id)
        self._file.append(
            {
                "op": "begin",
                "plan_id": pending.plan_id,
                "at": pending.at.isoformat(),
                "changes": [_change_to_json(c) for c in pending.changes],
            }
        )

    def records_applied(self, plan_id: str) -> None:
        self._file.append({"op": "records", "plan_id": plan_id})

    def commit(self, plan_id: str) -> None:
        self._file.append({"op": "commit", "plan_id": plan_id})
        self._open.discard(plan_id)
        if not self._open:
            self._file.remove()

    def pending(self) -> list[PendingPlan]:
        plans: dict[str, PendingPlan] = {}
        for number, record in enumerate(self._file.records(), start=1):
            try:
                op, plan_id = record["op"], record["plan_id"]
                if op == "begin":
                    plans[plan_id] = PendingPlan(
                        plan_id=plan_id,
                        at=datetime.fromisoformat(record["at"]),
                        changes=tuple(_change_from_json(row) for row in record["changes"]),
                    )
                elif op == "records" and plan_id in plans:
                    plans[plan_id] = replace(plans[plan_id], records_applied=True)
                elif op == "commit":
                    plans.pop(plan_id, None)
            except (KeyError, TypeError, ValueError, IndexError) as exc:
                raise IntegrityError(
                    f"plan journal {self.path} has a malformed record {number}; restore it from "
                    "a backup, or delete it after checking record stages against the collections"
                ) from exc
        return list(plans.values())
