"""Bookkeeping: what the controller records about its own work, never failing the work itself.

* **telemetry** — one event per operation (name, wall seconds, a few counts), when an observer
  is given (:class:`~remem.controller.telemetry.Telemetry`);
* **access counts** — the memories and entities each recall returned, noted on the
  :class:`~remem.graph.AccessTracker` (reinforcement); a failure to note is recorded, the recall
  still returns;
* **background failures** — the write port's :class:`~remem.failures.FailureLog` and the access
  tracker's failed flushes, merged oldest first (``MemoryController.failures()``).

Example::

    books = Bookkeeping(writes.failures, tracker, telemetry, clock.now)
    started = time.perf_counter()
    await books.note_access(results)
    books.emit("recall", started, queries=1)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from datetime import datetime

from remem.controller.recall_options import accessed_ids
from remem.controller.telemetry import Telemetry
from remem.failures import BackgroundFailure, FailureLog
from remem.graph import AccessTracker
from remem.models import ScoredMemory


class Bookkeeping:
    """Telemetry, access counts and the failure log of one controller (see the module docs)."""

    def __init__(
        self,
        failures: FailureLog,
        access: AccessTracker | None,
        telemetry: Telemetry | None,
        now: Callable[[], datetime],
    ) -> None:
        self.log = failures
        self.access = access
        self.telemetry = telemetry
        self._now = now

    def emit(self, operation: str, started: float, **fields: object) -> None:
        """Report ``operation``, begun at ``time.perf_counter()`` = ``started``."""
        if self.telemetry is not None:
            self.telemetry.record(operation, time.perf_counter() - started, **fields)

    async def note_access(self, results: Sequence[Sequence[ScoredMemory]]) -> None:
        """Count what a recall returned (a failure is recorded, never raised)."""
        if self.access is None:
            return
        record_ids, entity_ids = accessed_ids(results)
        try:
            await self.access.note(entity_ids=entity_ids, record_ids=record_ids)
        except Exception as exc:  # bookkeeping never fails a recall; the failure stays visible
            self.log.add(BackgroundFailure("access_flush", self._now(), tuple(record_ids), exc))

    def failures(self) -> list[BackgroundFailure]:
        """Every recorded failure, oldest first (the tracker's failed flushes included)."""
        out = self.log.items()
        if self.access is not None:
            out += [
                BackgroundFailure("access_flush", f.at, (f.target,), f.error)
                for f in self.access.failures()
            ]
        return sorted(out, key=lambda f: f.at)

    async def aclose(self) -> None:
        """Flush the access counts one last time."""
        if self.access is not None:
            # A failed final flush is already in the tracker's failures(), shown by failures().
            with contextlib.suppress(Exception):
                await self.access.aclose()
