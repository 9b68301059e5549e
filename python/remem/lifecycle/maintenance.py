"""A maintenance loop the application starts and stops: one cycle every interval, on a clock.

Nothing runs unless :meth:`MaintenanceLoop.start` is called. Timing follows the injected
:class:`~remem.models.Clock`; waiting is delegated to an injectable ``sleeper`` (``asyncio.sleep``
by default), so a test can advance a ManualClock instead of waiting. Cycles run at ``start +
k·interval``; a cycle that overruns (or a clock that jumps) skips the missed slots rather than
running back to back. A failing cycle is recorded (see :meth:`failures`) and the loop goes on.
:meth:`stop` never interrupts a cycle: it cancels the wait, or lets a running cycle finish first.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import timedelta

from remem.errors import InvalidArgumentError
from remem.lifecycle.report import MaintenanceFailure
from remem.models import Clock

__all__ = ["MaintenanceLoop", "Sleeper"]

Sleeper = Callable[[float], Awaitable[None]]
"""Waits the given number of seconds (``asyncio.sleep`` or a test double advancing a clock)."""

MAX_FAILURES_KEPT = 1000


class MaintenanceLoop:
    """Runs ``cycle`` every ``interval`` until stopped; records failures instead of dying."""

    def __init__(self, clock: Clock, sleeper: Sleeper | None = None) -> None:
        self._clock = clock
        self._sleeper: Sleeper = sleeper if sleeper is not None else asyncio.sleep
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._in_cycle = False
        self._failures: deque[MaintenanceFailure] = deque(maxlen=MAX_FAILURES_KEPT)
        self.failure_count = 0
        """Every failure ever recorded (``failures()`` keeps the latest 1000)."""
        self.cycles = 0
        """Cycles completed (successful or not) since the loop was created."""

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def failures(self) -> tuple[MaintenanceFailure, ...]:
        """Recorded failures, oldest first (the latest 1000; ``failure_count`` counts all)."""
        return tuple(self._failures)

    def record_failure(self, step: str, error: BaseException) -> None:
        self._failures.append(MaintenanceFailure(self._clock.now(), step, error))
        self.failure_count += 1

    def start(self, interval: timedelta, cycle: Callable[[], Awaitable[None]]) -> None:
        """Start the loop on the running event loop; the first cycle runs one ``interval`` later."""
        seconds = interval.total_seconds()
        if not (math.isfinite(seconds) and seconds > 0):
            raise InvalidArgumentError(f"interval is {interval}; pass a positive timedelta")
        if self.running:
            raise InvalidArgumentError(
                "maintenance is already running; call stop_maintenance() before starting it again"
            )
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(
            self._run(interval, cycle), name="remem-lifecycle-maintenance"
        )

    async def _run(self, interval: timedelta, cycle: Callable[[], Awaitable[None]]) -> None:
        next_at = self._clock.now() + interval
        while not self._stopping:
            delay = (next_at - self._clock.now()).total_seconds()
            try:
                await self._sleeper(max(0.0, delay))
            except Exception as exc:  # a broken sleeper would spin: record it and stop
                self.record_failure("sleep", exc)
                return
            if self._stopping:
                return
            self._in_cycle = True
            try:
                await cycle()
            except Exception as exc:
                self.record_failure("cycle", exc)
            finally:
                self._in_cycle = False
                self.cycles += 1
            now = self._clock.now()
            next_at += interval
            if next_at <= now:
                missed = math.floor((now - next_at) / interval) + 1
                next_at += interval * missed

    async def stop(self) -> None:
        """Stop the loop: cancel its wait, or let a running cycle finish; then await the task."""
        task = self._task
        if task is None:
            return
        self._stopping = True
        if not self._in_cycle:
            task.cancel()
        try:
            await asyncio.wait({task})
        finally:
            if task.done():
                self._task = None
