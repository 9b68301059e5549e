"""The quiescence token: a memory held still — no writes, extraction, compaction or access flushes.

::

    async with quiesce(runtime_participants(...), memory="./memory") as token:
        ...                     # nothing writes the stores until the block ends
        snapshot("./memory", "./backup", quiesced=token)   # token.memory names ./memory
    assert token.released       # on every path: return, exception, cancellation

Participants are paused in order and resumed in reverse. The order that drains without a
deadlock (and :func:`runtime_participants` uses):

1. **compaction** — the lifecycle maintenance loop is stopped (a running cycle ends first) and
   restarted with its interval afterwards (:class:`MaintenancePause`);
2. **extraction** — the extraction queue is drained while writes still flow, since extraction
   ends in writes (:class:`ExtractionDrain`); a turn recorded later queues its extraction, which
   then waits at the write gate;
3. **writers** — the write gate closes: new ``append_turns`` / ``store_memories`` wait, the ones
   in flight end, and the port's barrier applies what a journal holds (:class:`GatedWrites`);
4. **core blocks** and 5. **graph writes** — two more gates (:class:`GatePause`), closed once
   writes through the port are held: core memory block commits
   (:class:`remem.blocks.gated.GatedBlockStore` — ``CoreMemory`` edits, the companion's
   ``core_memory_*`` tools, the service's block edits) and graph writes that do not go through
   the port (:class:`remem.graph.gated.GatedGraphStore` — entity upserts, relationships added
   by extraction, the consolidator's supersessions and merges). After the extraction drain, so
   the drain's own graph writes pass; a write in flight ends first, later ones wait;
6. **access-count flushes** — pending counts are flushed, then further flushes wait
   (:class:`AccessFlushPause`);
7. **record updates** — a last gate (:class:`GatePause`) on the record store
   (:class:`remem.recovery.gated_records.GatedRecordStore`): ``forget``, ``supersede`` /
   ``supersede_many`` and a lifecycle plan run by hand update records outside the port, then
   drop or move vectors, so both wait here. After the port and the access flush, which pass
   it while they drain;
8. **transcript writes** — the same on the transcript store
   (:class:`remem.recovery.gated_transcript.GatedTranscriptStore`): the first ``record_turn`` of
   a new session creates the session row outside the port, so it (and its turn) waits here.

**Identity.** A token names the memory it holds still (``token.memory``, see
:func:`remem.recovery.identity.memory_identity`: the resolved directory, or the PostgreSQL
host/port/database/schema). An operation given a token calls :meth:`QuiescenceToken.admit` with
the memory it was asked to act on: a token of another memory is refused with
:class:`ForeignTokenError` (it proves nothing about this one), a released one with
:class:`WritersActiveError`.

Release: every paused participant is resumed even if the body raised, was cancelled, or another
resume failed (the first resume error is raised after all ran). A pause that does not finish
within ``pause_timeout`` seconds undoes the pauses before it and raises :class:`WritersActiveError`.
Cancellation while pausing or resuming is deferred until the resumes ran
(:func:`remem.cancel_safe.run_to_end`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from remem.cancel_safe import run_to_end
from remem.failures import FailureLog
from remem.models import MemoryRecord, TranscriptEntry
from remem.recovery.errors import ForeignTokenError, WritersActiveError
from remem.recovery.identity import memory_identity
from remem.writebehind import WriteBehind, WritePort

__all__ = [
    "AccessFlushPause",
    "ExtractionDrain",
    "Gate",
    "GatePause",
    "GatedWrites",
    "MaintenancePause",
    "Pausable",
    "QuiescenceToken",
    "quiesce",
    "runtime_participants",
]

DEFAULT_TIMEOUT = 30.0


class Pausable(Protocol):
    """Something that can be held still: ``pause`` returns once it does nothing, ``resume``
    lets it go on."""

    name: str

    async def pause(self) -> None: ...
    async def resume(self) -> None: ...


class Gate:
    """Passages (``async with gate.passage():``) that ``close`` waits out and then holds back.

    >>> gate = Gate()
    >>> gate.closed
    False
    """

    def __init__(self) -> None:
        self._open = asyncio.Event()
        self._open.set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._inside = 0
        self._waiting = 0

    @property
    def closed(self) -> bool:
        return not self._open.is_set()

    @property
    def waiting(self) -> int:
        """Passages held back by the closed gate, not yet entered."""
        return self._waiting

    @property
    def inside(self) -> int:
        """Passages in flight."""
        return self._inside

    @contextlib.asynccontextmanager
    async def passage(self) -> AsyncIterator[None]:
        # A loop, not one wait: a waiter woken by open() may run only after the gate closed
        # again (a release followed at once by another quiesce); it must not slip in then.
        while not self._open.is_set():
            self._waiting += 1
            try:
                await self._open.wait()
            finally:
                self._waiting -= 1
        self._inside += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._inside -= 1
            if self._inside == 0:
                self._idle.set()

    async def close(self) -> None:
        """Hold back new passages and wait for those in flight."""
        self._open.clear()
        await self._idle.wait()

    def open(self) -> None:
        self._open.set()


class GatedWrites:
    """A :class:`WritePort` whose writes pass a :class:`Gate`; pausing it closes the gate and
    waits for the inner port's barrier (a journal's accepted writes are then in the stores)."""

    name = "writers"

    def __init__(self, inner: WritePort) -> None:
        self.inner = inner
        self.gate = Gate()

    @property
    def failures(self) -> FailureLog:
        return self.inner.failures

    @property
    def journaled(self) -> bool:
        return self.inner.journaled

    @property
    def journal(self) -> WriteBehind | None:
        """The write-behind journal of the wrapped port, if it is journaled."""
        return self.inner.journal

    async def append_turns(
        self, entries: Sequence[TranscriptEntry], *, confirm: bool = False
    ) -> None:
        async with self.gate.passage():
            await self.inner.append_turns(entries, confirm=confirm)

    async def store_memories(
        self,
        records: Sequence[MemoryRecord],
        vectors: NDArray[np.float32],
        *,
        confirm: bool = False,
    ) -> None:
        async with self.gate.passage():
            await self.inner.store_memories(records, vectors, confirm=confirm)

    async def barrier(self) -> None:
        await self.inner.barrier()

    async def open(self) -> int:
        return await self.inner.open()

    async def aclose(self) -> None:
        self.gate.open()
        await self.inner.aclose()

    async def pause(self) -> None:
        await self.gate.close()
        await self.inner.barrier()

    async def resume(self) -> None:
        self.gate.open()


class GatePause:
    """A participant that closes ``gate`` (waiting out the passages in flight) and reopens it:
    the block and graph write gates."""

    def __init__(self, name: str, gate: Gate) -> None:
        self.name = name
        self.gate = gate

    async def pause(self) -> None:
        await self.gate.close()

    async def resume(self) -> None:
        self.gate.open()


class _Maintained(Protocol):
    @property
    def maintenance_running(self) -> bool: ...
    @property
    def maintenance_settings(self) -> tuple[timedelta, bool] | None: ...
    def start_maintenance(self, interval: timedelta, *, execute: bool = True) -> None: ...
    async def stop_maintenance(self) -> None: ...


class MaintenancePause:
    """Stops a lifecycle manager's maintenance loop; restarts it (same interval) on resume."""

    name = "compaction"

    def __init__(self, manager: _Maintained) -> None:
        self.manager = manager
        self._restart: tuple[timedelta, bool] | None = None

    async def pause(self) -> None:
        self._restart = (
            self.manager.maintenance_settings if self.manager.maintenance_running else None
        )
        await self.manager.stop_maintenance()

    async def resume(self) -> None:
        if self._restart is not None:
            interval, execute = self._restart
            self._restart = None
            self.manager.start_maintenance(interval, execute=execute)


class ExtractionDrain:
    """Drains extraction (``drain`` is e.g. ``controller.flush_extraction``); nothing to resume:
    later extraction waits at the write gate."""

    name = "extraction"

    def __init__(self, drain: Callable[[], Awaitable[None]]) -> None:
        self.drain = drain

    async def pause(self) -> None:
        await self.drain()

    async def resume(self) -> None:
        return None


class _Holdable(Protocol):
    def hold_flushes(self) -> contextlib.AbstractAsyncContextManager[None]: ...


class AccessFlushPause:
    """Flushes an access tracker's pending counts, then holds further flushes back."""

    name = "access-count flushes"

    def __init__(self, tracker: _Holdable) -> None:
        self.tracker = tracker
        self._held: contextlib.AsyncExitStack | None = None

    async def pause(self) -> None:
        stack = contextlib.AsyncExitStack()
        await stack.enter_async_context(self.tracker.hold_flushes())
        self._held = stack

    async def resume(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            await held.aclose()


@dataclass(slots=True)
class QuiescenceToken:
    """Held while the memory ``memory`` is still; ``released`` once every participant was
    resumed."""

    memory: str
    """The identity of the memory held still (:func:`memory_identity`)."""
    participants: tuple[str, ...]
    released: bool = False
    _paused: list[Pausable] = field(default_factory=list)

    def admit(self, location: str | os.PathLike[str], operation: str) -> None:
        """Check that this token proves ``location`` still for ``operation`` (a verb: "snapshot",
        "export", …): ForeignTokenError for another memory, WritersActiveError once released."""
        asked = memory_identity(location)
        if asked != self.memory:
            raise ForeignTokenError(
                f"the quiescence token given to {operation} {asked} holds {self.memory} still, "
                f"not it; pass the token of the Runtime that has {asked} open (`async with "
                "rt.quiesce() as token`), or no token once that Runtime is closed"
            )
        if self.released:
            raise WritersActiveError(
                f"writers active: the quiescence token given to {operation} {asked} was already "
                "released; run it inside the `async with rt.quiesce()` block"
            )

    async def release(self) -> None:
        """Resume every paused participant, in reverse order; idempotent."""
        if self.released:
            return
        errors: list[BaseException] = []
        while self._paused:
            part = self._paused.pop()
            try:
                await part.resume()
            except Exception as exc:
                errors.append(exc)
        self.released = True
        if errors:
            raise errors[0]


@contextlib.asynccontextmanager
async def quiesce(
    participants: Sequence[Pausable],
    *,
    memory: str | os.PathLike[str],
    pause_timeout: float = DEFAULT_TIMEOUT,
) -> AsyncIterator[QuiescenceToken]:
    """Pause ``participants`` of the memory at ``memory`` (its directory or DSN) in order for
    the body; released on every path (module docs)."""
    token = QuiescenceToken(memory_identity(memory), tuple(p.name for p in participants))
    try:
        await run_to_end(_pause_all(token, participants, pause_timeout))
        yield token
    finally:
        await run_to_end(token.release())


async def _pause_all(
    token: QuiescenceToken, participants: Sequence[Pausable], pause_timeout: float
) -> None:
    for part in participants:
        # Registered before pausing: a pause that fails or times out half-way (a gate closed,
        # a loop stopped) is resumed with the others.
        token._paused.append(part)
        try:
            await asyncio.wait_for(part.pause(), pause_timeout)
        except TimeoutError as exc:
            raise WritersActiveError(
                f"writers active: {part.name} did not stop within {pause_timeout:g} s; finish or "
                "cancel what runs and retry"
            ) from exc


def runtime_participants(
    *,
    lifecycle: _Maintained | None,
    drain_extraction: Callable[[], Awaitable[None]] | None,
    writes: GatedWrites | None,
    blocks: Gate | None = None,
    graph: Gate | None = None,
    access: _Holdable | None,
    records: Gate | None = None,
    sessions: Gate | None = None,
) -> list[Pausable]:
    """The participants of a running memory, in the order :func:`quiesce` must pause them."""
    parts: list[Any] = []
    if lifecycle is not None:
        parts.append(MaintenancePause(lifecycle))
    if drain_extraction is not None:
        parts.append(ExtractionDrain(drain_extraction))
    if writes is not None:
        parts.append(writes)
    if blocks is not None:
        parts.append(GatePause("core blocks", blocks))
    if graph is not None:
        parts.append(GatePause("graph writes", graph))
    if access is not None:
        parts.append(AccessFlushPause(access))
    if records is not None:
        parts.append(GatePause("record updates", records))
    if sessions is not None:
        parts.append(GatePause("transcript writes", sessions))
    return parts
