"""WriteBehind: accepted writes are journaled at once and applied to the stores in batches.

Why: every write to the embedded memory stores is a DuckDB transaction (about 2 ms however
small), and ``remember`` touches two DuckDB files and a SQLite one, so an agent that records a
turn and remembers something per message could not pass a few hundred pairs a second. With
write-behind, ``record_turn`` and ``remember`` validate, embed, append one row to a SQLite journal
(one ~0.1 ms commit, as durable as the transcript: see ``durability``) and return. The journal is
applied to the real stores in batches — one transaction per store for many writes:

* in the background once ``batch_size`` writes are pending, or ``max_delay`` seconds after the
  first pending write (an idle process does not sit on them);
* before ANY other use of the stores: every reader awaits the write port's barrier first
  (:meth:`remem.writebehind.port.WritePort.barrier`: recall, lifecycle, consolidation and your
  own reads through ``await rt.controller.settled()``), which returns once all writes accepted
  before it are applied. So a read always sees every acknowledged write, exactly as without
  write-behind;
* on ``aclose()``, and on the next open after a crash (the journal is replayed).

Applying is idempotent — a write the stores already hold (a crash between the stores' commit and
the journal's delete, or a retry after a partial failure) is skipped — so a replay never
duplicates anything. A write the stores refuse for good (an id another write took meanwhile, e.g.
a transcript entry appended directly with the same turn number) is moved to the journal's
``rejected`` table with the reason and recorded in ``failures()``: never silently dropped. Any
other failure (disk full, a broken store) keeps the writes pending, is recorded in
``failures()``, and makes the call waiting for them raise :class:`PendingWritesError`; the next
call retries. Backpressure: with ``max_pending`` writes pending, a new one waits for a batch to be
applied first (and fails, before writing anything, if applying fails). The background batch
advances whenever the writer awaits something that suspends (an agent awaiting its model does,
constantly); a loop that only records and remembers applies in its backpressure waits and the
next read instead (yielding once per write was measured 10-20% slower per pair).

Scope: one process per memory directory (the embedded backend's DuckDB files are single-process
anyway). On PostgreSQL it is off by default: other processes read the database directly and would
not see journaled writes until they are applied.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import contextvars
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

import numpy as np
from numpy.typing import NDArray

from remem.cancel_safe import run_to_end
from remem.errors import ConfigError, PendingWritesError, StoreClosedError
from remem.failures import BackgroundFailure, FailureLog
from remem.models import MemoryRecord, TranscriptEntry
from remem.writebehind.file import JournalFile, PendingWrite

Applier = Callable[[list[PendingWrite]], Awaitable[list[tuple[PendingWrite, str]]]]
"""Applies writes to the stores idempotently; returns those refused for good, with the reason."""

_APPLYING: contextvars.ContextVar[bool] = contextvars.ContextVar("remem_applying", default=False)
"""Set inside the applying task: its own store calls must not wait for themselves."""


class WriteBehind:
    """The journal of accepted writes and their batched application (see the module doc)."""

    def __init__(
        self,
        file: JournalFile,
        apply: Applier,
        *,
        dimension: int,
        failures: FailureLog,
        now: Callable[[], datetime],
        batch_size: int = 256,
        max_pending: int = 2_048,
        max_delay: float = 0.1,
    ) -> None:
        if not 1 <= batch_size <= max_pending:
            raise ConfigError(
                f"write-behind needs 1 <= batch_size <= max_pending, got {batch_size}, "
                f"{max_pending}"
            )
        if not max_delay > 0:
            raise ConfigError(f"write-behind max_delay must be > 0 seconds, got {max_delay}")
        self.file = file
        self.dimension = dimension
        self.batch_size = batch_size
        self.max_pending = max_pending
        self.max_delay = max_delay
        self._apply = apply
        self._failures = failures
        self._now = now
        self._pending: list[PendingWrite] = []
        self._seq = 0
        self._inflight: asyncio.Task[None] | None = None
        self._background: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._opened = False
        self._closed = False
        self.applied_batches = 0
        """Batches applied so far (replay included)."""

    @property
    def pending(self) -> int:
        """Writes accepted but not yet applied to the stores."""
        return len(self._pending)

    async def open(self) -> int:
        """Load what a previous process left pending and apply it; return how many writes."""
        if self._opened:
            return 0
        await self.file.open()
        self._seq = await self.file.next_seq()
        left = await self.file.load(self.dimension)
        self._pending = left
        self._opened = True
        await self.flush()
        return len(left)

    # -- accepting writes -----------------------------------------------------------------------

    async def add_turns(self, entries: Sequence[TranscriptEntry]) -> None:
        """Journal turns (durable on return)."""
        await self._add([PendingWrite(0, turn=e) for e in entries])

    async def add_memories(
        self, records: Sequence[MemoryRecord], vectors: NDArray[np.float32]
    ) -> None:
        """Journal memories with their vectors, row i for record i (durable on return)."""
        await self._add(
            [
                PendingWrite(0, record=r, vector=np.ascontiguousarray(vectors[i], np.float32))
                for i, r in enumerate(records)
            ]
        )

    async def _add(self, writes: list[PendingWrite]) -> None:
        self._check_usable()
        while len(self._pending) >= self.max_pending:
            await self._step()  # backpressure; raises PendingWritesError before we write
        # A cancelled caller must not leave a write durable in the file yet unknown here (it
        # would surface only on reopen, after later writes took its turn number).
        await run_to_end(self._journal(writes))

    async def _journal(self, writes: list[PendingWrite]) -> None:
        numbered = []
        for w in writes:
            numbered.append(PendingWrite(self._seq, w.turn, w.record, w.vector))
            self._seq += 1
        await self.file.append(numbered)
        for w in numbered:  # commits finish in order, but resumptions may interleave
            bisect.insort(self._pending, w, key=lambda p: p.seq)
        self._schedule()

    def _schedule(self) -> None:
        loop = asyncio.get_running_loop()
        if len(self._pending) >= self.batch_size:
            self._start_background()
        elif self._timer is None:
            self._timer = loop.call_later(self.max_delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._pending and not self._closed:
            self._start_background()

    def _start_background(self) -> None:
        if self._background is None or self._background.done():
            self._background = asyncio.get_running_loop().create_task(self._drain_background())

    async def _drain_background(self) -> None:
        # A failure is recorded by _apply_batch; the next write, read or timer retries.
        with contextlib.suppress(PendingWritesError):
            await self.flush()

    # -- applying -------------------------------------------------------------------------------

    async def barrier(self) -> None:
        """Return once every write accepted before this call is in the stores."""
        if _APPLYING.get() or not self._pending:
            return
        await self._apply_through(self._pending[-1].seq)

    async def flush(self) -> None:
        """Apply everything pending now (raises PendingWritesError if the stores fail)."""
        if self._pending:
            await self._apply_through(self._pending[-1].seq)

    async def _apply_through(self, target: int) -> None:
        while self._pending and self._pending[0].seq <= target:
            await self._step()

    async def _step(self) -> None:
        """Apply the next batch, or wait for the one in flight (one at a time, in order)."""
        task = self._inflight
        if task is None or task.done():
            batch = self._pending[: self.batch_size]
            task = asyncio.get_running_loop().create_task(self._apply_batch(batch))
            task.add_done_callback(_retrieve)  # its waiters may all have been cancelled
            self._inflight = task
        # Shielded: a cancelled caller must not abort a batch that other callers wait for.
        await asyncio.shield(task)

    async def _apply_batch(self, batch: list[PendingWrite]) -> None:
        _APPLYING.set(True)  # this task's context only
        try:
            refused = await self._apply(batch)
            for write, reason in refused:
                await self.file.reject(write, reason)
            await self.file.remove([w.seq for w in batch])
        except Exception as exc:
            self._failed(batch, exc)
            raise PendingWritesError(
                f"{len(batch)} accepted writes could not be applied to the stores ({exc}); "
                f"they stay journaled in {self.file.path} and are retried on the next call "
                "and on reopen — nothing is lost"
            ) from exc
        for write, reason in refused:
            self._failed([write], PendingWritesError(f"the stores refused {write.id}: {reason}"))
        applied = {w.seq for w in batch}
        self._pending = [w for w in self._pending if w.seq not in applied]
        self.applied_batches += 1

    def _failed(self, writes: list[PendingWrite], error: BaseException) -> None:
        ids = tuple(w.id for w in writes)
        self._failures.add(BackgroundFailure("write_behind", self._now(), ids, error))

    # -- closing --------------------------------------------------------------------------------

    def _check_usable(self) -> None:
        if self._closed:
            raise StoreClosedError("the write-behind journal is closed; open a new Runtime")
        if not self._opened:
            raise StoreClosedError("the write-behind journal is not open; await open() first")

    async def aclose(self) -> None:
        """Apply everything pending, then close the journal file (idempotent). If applying
        fails, the writes stay journaled for the next open and the error is raised."""
        if self._closed:
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        try:
            if self._opened:
                await self.flush()
        finally:
            await self.file.aclose()


def _retrieve(task: asyncio.Task[None]) -> None:
    """Mark a batch's outcome as seen: a failure is already in ``failures()``, and a batch
    whose waiters were cancelled must not log "exception was never retrieved"."""
    if not task.cancelled():
        task.exception()
