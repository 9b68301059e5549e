"""LifecycleManager: preview and execute stage movement over a record store and its collections.

``preview()`` reads every record's lifecycle columns in one set-based query, scores them all in
one native fused pass and returns a :class:`LifecyclePlan` (rules: :mod:`remem.lifecycle.rules`);
it writes nothing. ``execute(plan)`` applies exactly that plan, or refuses it with
:class:`~remem.errors.StalePlanError` if any record it would change has changed since (stage, base
score, reference time, protection, supersession) — preview again. Execution order:

1. the plan journal records the intent (durable with :class:`FilePlanJournal`);
2. every record update is one ``update_lifecycle`` batch (atomic in the record store);
3. vectors follow: moves between staged collections, removal for deleted records;
4. the journal marks the plan done.

A crash anywhere in 2-4 is rolled forward by :meth:`recover` (run on open and before every
execute), so the record store and the collections agree again. Between steps 2 and 3 a reader may
briefly see a record's new stage while its vector is still in the old collection.

With a write-behind journal, pass its write port as ``barrier``: every preview, execute and
recover first awaits ``barrier.barrier()``, so a plan covers every acknowledged ``remember``.

Nothing runs in the background unless the application calls :meth:`start_maintenance`;
:meth:`stop_maintenance` (and ``aclose``) stop it cleanly. The manager does not own the stores:
closing it leaves them open.

Example::

    async with LifecycleManager(records, collections, clock=clock) as lifecycle:
        plan = await lifecycle.preview()
        print(plan.describe())
        report = await lifecycle.execute(plan)
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from remem.errors import InvalidArgumentError, NotFoundError, StalePlanError
from remem.lifecycle.decay import DecayConfig
from remem.lifecycle.maintenance import MaintenanceLoop, Sleeper
from remem.lifecycle.plan import LifecyclePlan, PlanAction, PlannedChange
from remem.lifecycle.plan_journal import MemoryPlanJournal, PendingPlan, PlanJournal
from remem.lifecycle.promotion import PromotionConfig
from remem.lifecycle.report import ExecutionReport, MaintenanceFailure
from remem.lifecycle.rules import evaluate_rules
from remem.lifecycle.transitions import apply_change, is_applied, stale_reason
from remem.models import Clock, MemoryRecord, MemoryStage, SystemClock, require_aware
from remem.staging import STAGED, CollectionManager
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.records import RecordStore
from remem.stores.shared.vector_input import check_id

__all__ = ["LifecycleManager"]


class Barrier(Protocol):
    """Waits until every write accepted before the call is in the stores
    (:meth:`remem.writebehind.port.WritePort.barrier`)."""

    async def barrier(self) -> None: ...


class LifecycleManager(StoreLifecycle):
    """Previews and executes lifecycle plans; optionally runs them on a schedule.

    ``journal`` defaults to an in-memory :class:`MemoryPlanJournal`; pass a
    :class:`FilePlanJournal` for crash safety across processes. ``sleeper`` is how the maintenance
    loop waits (``asyncio.sleep`` by default; tests pass one that advances a ManualClock).
    ``barrier`` is what every operation waits for first (a journaled write port; None: nothing).
    """

    def __init__(
        self,
        record_store: RecordStore,
        collection_manager: CollectionManager,
        *,
        decay: DecayConfig | None = None,
        promotion: PromotionConfig | None = None,
        clock: Clock | None = None,
        journal: PlanJournal | None = None,
        sleeper: Sleeper | None = None,
        barrier: Barrier | None = None,
    ) -> None:
        self.record_store = record_store
        self._barrier = barrier
        self.collections = collection_manager
        self.decay_config = decay if decay is not None else DecayConfig()
        self.promotion_config = promotion if promotion is not None else PromotionConfig()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.journal: PlanJournal = journal if journal is not None else MemoryPlanJournal()
        self._lock = asyncio.Lock()
        self._open_lock = asyncio.Lock()
        self._executed: set[str] = set()
        self._maintenance = MaintenanceLoop(self.clock, sleeper)
        self._maintenance_settings: tuple[timedelta, bool] | None = None
        self.recovered_plans = 0
        """Interrupted plans rolled forward by this manager (on open, execute or recover)."""
        self.last_report: ExecutionReport | None = None
        """The report of the latest successful execute (by maintenance or a direct call)."""

    # -- lifecycle ------------------------------------------------------------------------------

    async def _open(self) -> None:
        await self._recover_pending()

    async def _close(self) -> None:
        await self._maintenance.stop()

    async def _ready(self) -> None:
        self._check_open()
        async with self._open_lock:
            await self.open()
        if self._barrier is not None:
            await self._barrier.barrier()

    # -- preview --------------------------------------------------------------------------------

    async def preview(
        self, now: datetime | None = None, *, namespace: str | None = None
    ) -> LifecyclePlan:
        """The plan for ``now`` (default: the clock's time); changes nothing.

        Covers every record in the store with one columnar read and one native scoring pass;
        with ``namespace``, only that scope's records (the rules score each record on its own,
        so the changes are the whole plan's changes of those records, and a plan shown to B
        names none of A's memories). Executing a namespace's plan changes only its records.
        """
        await self._ready()
        at = require_aware(now, field="now") if now is not None else self.clock.now()
        if namespace is not None:
            check_id(namespace, field="namespace")
        cols = await self.record_store.lifecycle_columns()
        plan = evaluate_rules(cols, at, self.decay_config, self.promotion_config)
        if namespace is None:
            return plan
        return await self._in_namespace(plan, cols.ids, namespace)

    async def _in_namespace(
        self, plan: LifecyclePlan, scanned_ids: Sequence[str], namespace: str
    ) -> LifecyclePlan:
        """``plan`` cut to the records of ``namespace`` (one scan of that scope's records)."""
        # The columnar read has no namespace column; the scope's ids come from one scan.
        mine = {
            r.id for r in await self.record_store.scan(namespace=namespace, include_superseded=True)
        }
        return dataclasses.replace(
            plan,
            scanned=sum(1 for i in scanned_ids if i in mine),
            promote=tuple(c for c in plan.promote if c.id in mine),
            decay=tuple(c for c in plan.decay if c.id in mine),
            delete=tuple(c for c in plan.delete if c.id in mine),
            reactivate=tuple(c for c in plan.reactivate if c.id in mine),
            namespace=namespace,
        )

    # -- execute --------------------------------------------------------------------------------

    async def execute(self, plan: LifecyclePlan) -> ExecutionReport:
        """Apply ``plan`` (see the module docstring); StalePlanError if it no longer matches.

        A refused plan changes nothing. Executing the same plan twice is refused as stale.
        """
        if not isinstance(plan, LifecyclePlan):
            raise InvalidArgumentError(
                f"execute takes the LifecyclePlan preview() returned, got {type(plan).__name__}"
            )
        await self._ready()
        async with self._lock:
            recovered = await self._recover_pending_locked()
            if plan.plan_id in self._executed:
                raise StalePlanError(
                    f"plan {plan.plan_id} was already executed; call preview() for a new plan"
                )
            changes = plan.changes
            if not changes:
                self._executed.add(plan.plan_id)
                self.last_report = self._report(plan.plan_id, plan.created_at, (), 0, 0, recovered)
                return self.last_report
            records = await self._fetch(c.id for c in changes)
            stale = []
            for change in changes:
                record = records.get(change.id)
                why = "deleted from the store" if record is None else stale_reason(record, change)
                if why is not None:
                    stale.append(f"{change.id} ({why})")
            if stale:
                raise StalePlanError(
                    f"{len(stale)} record(s) changed since the plan was previewed, e.g. "
                    f"{', '.join(stale[:5])}; nothing was changed — call preview() again"
                )
            self.journal.begin(PendingPlan(plan.plan_id, plan.created_at, changes))
            await self.record_store.update_lifecycle(
                [
                    (c.id, apply_change(records[c.id].lifecycle, c.action, plan.created_at))
                    for c in changes
                ]
            )
            self.journal.records_applied(plan.plan_id)
            moved, removed = await self._apply_collections(changes)
            self.journal.commit(plan.plan_id)
            self._executed.add(plan.plan_id)
            report = self._report(plan.plan_id, plan.created_at, changes, moved, removed, recovered)
            self.last_report = report
            return report

    @staticmethod
    def _report(
        plan_id: str,
        at: datetime,
        changes: Sequence[PlannedChange],
        moved: int,
        removed: int,
        recovered: int,
    ) -> ExecutionReport:
        counts = {action: 0 for action in PlanAction}
        for change in changes:
            counts[change.action] += 1
        return ExecutionReport(
            plan_id=plan_id,
            executed_at=at,
            promoted=counts[PlanAction.PROMOTE],
            decayed=counts[PlanAction.DECAY],
            deleted=counts[PlanAction.DELETE],
            reactivated=counts[PlanAction.REACTIVATE],
            vectors_moved=moved,
            vectors_removed=removed,
            recovered_plans=recovered,
        )

    async def _fetch(self, ids: Iterable[str]) -> dict[str, MemoryRecord]:
        """The records among ``ids`` that still exist, by id."""
        wanted = list(dict.fromkeys(ids))
        try:
            found = await self.record_store.get(wanted)
        except NotFoundError:
            # Rare (a record deleted outright since): find the survivors in one columnar read.
            existing = set((await self.record_store.lifecycle_columns()).ids)
            found = await self.record_store.get([i for i in wanted if i in existing])
        return {r.id: r for r in found}

    async def _apply_collections(self, changes: Sequence[PlannedChange]) -> tuple[int, int]:
        """Bring the vectors in line with ``changes``; idempotent. Returns (moved, removed)."""
        moves: dict[tuple[MemoryStage, MemoryStage], list[str]] = defaultdict(list)
        removals: dict[MemoryStage, list[str]] = defaultdict(list)
        for change in changes:
            if change.from_stage not in STAGED:
                continue
            if change.to_stage in STAGED:
                moves[(change.from_stage, change.to_stage)].append(change.id)
            else:
                removals[change.from_stage].append(change.id)
        moved = removed = 0
        for (source, target), ids in moves.items():
            moved += await self.collections.move(ids, source, target)
        for stage, ids in removals.items():
            removed += await self.collections.remove(ids, stage)
        return moved, removed

    # -- recovery -------------------------------------------------------------------------------

    async def recover(self) -> int:
        """Roll forward every plan the journal says was begun and not done; return how many.

        Opening the manager already does this, so the count excludes plans recovered on open
        (``recovered_plans`` counts them all).
        """
        await self._ready()
        async with self._lock:
            return await self._recover_pending_locked()

    async def _recover_pending(self) -> int:
        async with self._lock:
            return await self._recover_pending_locked()

    async def _recover_pending_locked(self) -> int:
        pending = self.journal.pending()
        for item in pending:
            await self._roll_forward(item)
            self.recovered_plans += 1
        return len(pending)

    async def _roll_forward(self, item: PendingPlan) -> None:
        """Complete ``item``: records still at their basis get the update; vectors follow.

        A record changed by someone else since (neither at its basis nor at its target) is left
        as it is, and so is its vector.
        """
        records = await self._fetch(c.id for c in item.changes)
        if not item.records_applied:
            todo = [
                c
                for c in item.changes
                if c.id in records and stale_reason(records[c.id], c) is None
            ]
            await self.record_store.update_lifecycle(
                [(c.id, apply_change(records[c.id].lifecycle, c.action, item.at)) for c in todo]
            )
            self.journal.records_applied(item.plan_id)
            records = await self._fetch(c.id for c in item.changes)
        done = [c for c in item.changes if c.id in records and is_applied(records[c.id], c)]
        await self._apply_collections(done)
        self.journal.commit(item.plan_id)

    # -- maintenance ----------------------------------------------------------------------------

    def start_maintenance(self, interval: timedelta, *, execute: bool = True) -> None:
        """Preview (and, if ``execute``, execute) every ``interval`` until stopped.

        Runs as an asyncio task on the current event loop; the first cycle is one interval after
        the start, timed by the manager's clock. Failures are recorded in :meth:`failures` and the
        loop continues. Raises InvalidArgumentError if it is already running.
        """
        self._check_open()
        self._maintenance.start(interval, lambda: self._maintenance_cycle(execute))
        self._maintenance_settings = (interval, execute)

    async def stop_maintenance(self) -> None:
        """Stop the maintenance task (a running cycle finishes first) and wait for it."""
        await self._maintenance.stop()

    @property
    def maintenance_settings(self) -> tuple[timedelta, bool] | None:
        """``(interval, execute)`` of the last :meth:`start_maintenance` (None before any); the
        quiescence token restarts the loop with them."""
        return self._maintenance_settings

    @property
    def maintenance_running(self) -> bool:
        return self._maintenance.running

    @property
    def maintenance_cycles(self) -> int:
        """How many maintenance cycles have completed (successfully or not)."""
        return self._maintenance.cycles

    def failures(self) -> tuple[MaintenanceFailure, ...]:
        """Failed maintenance cycles, oldest first (the latest 1000)."""
        return self._maintenance.failures()

    async def _maintenance_cycle(self, execute: bool) -> None:
        try:
            plan = await self.preview()
        except Exception as exc:
            self._maintenance.record_failure("preview", exc)
            return
        if not execute:
            return
        try:
            await self.execute(plan)
        except Exception as exc:
            self._maintenance.record_failure("execute", exc)
