"""JournalApply: how the journal's batches reach the stores, idempotently, through DirectWrites.

:class:`remem.writebehind.WriteBehind` calls it with a batch of journaled turns and memories.
A batch may be applied a second time — a retry after a failure part-way through, or a replay
after a crash between the stores' commits and the journal's delete — so every step skips what
the stores already hold:

* turns: one transcript append per session; on DuplicateIdError each turn alone, where a turn
  whose id is already in the transcript is skipped and one whose turn number another entry took
  (someone appended to the transcript directly) is refused for good, with the reason; then one
  episodic batch (re-indexing an identical turn is a no-op by the episodic contract);
* memories: the record batch and the vector batch concurrently (two stores, two threads), each
  falling back to one memory at a time on DuplicateIdError, skipping those already written (the
  ids are generated here, so an existing id is this very memory); then the notes (idempotent).

Anything else raises, and the journal keeps the batch for a retry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import numpy as np

from remem.errors import DuplicateIdError
from remem.models import MemoryRecord, TranscriptEntry
from remem.stores.transcript import TranscriptStore
from remem.writebehind.direct import DirectWrites, note_of
from remem.writebehind.file import PendingWrite

T = TypeVar("T")


async def _write_missing(write: Callable[[list[T]], Awaitable[None]], items: list[T]) -> None:
    """``write(items)``; on DuplicateIdError, each item alone, skipping those already there."""
    try:
        await write(items)
    except DuplicateIdError:
        if len(items) == 1:
            return
        for item in items:
            try:
                await write([item])
            except DuplicateIdError:
                continue


class JournalApply:
    """Applies journaled writes to the stores of a :class:`DirectWrites` (the module doc)."""

    def __init__(self, direct: DirectWrites) -> None:
        self._direct = direct

    async def __call__(self, batch: list[PendingWrite]) -> list[tuple[PendingWrite, str]]:
        turns = [w for w in batch if w.turn is not None]
        memories = [w for w in batch if w.record is not None]
        # Turns and memories touch different stores but the episodic one: run both paths at
        # once so the stores' threads overlap; both finish before any error is raised.
        refused, applied = await asyncio.gather(
            self._apply_turns(turns), self._apply_memories(memories), return_exceptions=True
        )
        for outcome in (refused, applied):
            if isinstance(outcome, BaseException):
                raise outcome
        assert isinstance(refused, list)
        return refused

    async def _apply_turns(self, writes: list[PendingWrite]) -> list[tuple[PendingWrite, str]]:
        refused: list[tuple[PendingWrite, str]] = []
        if not writes:
            return refused
        transcript = self._direct.transcript
        if transcript is not None:
            by_session: dict[str, list[PendingWrite]] = {}
            for w in writes:
                assert w.turn is not None
                by_session.setdefault(w.turn.session_id, []).append(w)
            for session_writes in by_session.values():
                refused += await self._append(session_writes)
        kept = {id(w) for w, _ in refused}
        entries = [w.turn for w in writes if id(w) not in kept and w.turn is not None]
        if entries:
            await self._direct.index_turns(entries)
        return refused

    async def _append(self, writes: list[PendingWrite]) -> list[tuple[PendingWrite, str]]:
        transcript = self._direct.transcript
        assert transcript is not None
        entries = [w.turn for w in writes if w.turn is not None]
        try:
            await transcript.append_entries(entries)
            return []
        except DuplicateIdError:
            pass
        refused: list[tuple[PendingWrite, str]] = []
        for w in writes:
            assert w.turn is not None
            try:
                await transcript.append_entries([w.turn])
            except DuplicateIdError as exc:
                if not await _in_transcript(transcript, w.turn):
                    refused.append((w, str(exc)))
        return refused

    async def _apply_memories(self, writes: list[PendingWrite]) -> None:
        if not writes:
            return
        records: list[MemoryRecord] = [w.record for w in writes if w.record is not None]
        vectors = np.vstack([w.vector for w in writes if w.vector is not None])
        writer = self._direct
        by_id = {r.id: i for i, r in enumerate(records)}

        async def add(batch: list[MemoryRecord]) -> None:
            rows = vectors if batch is records else vectors[[by_id[r.id] for r in batch]]
            await writer.collections.add(batch, vectors=rows)

        # Both finish before we go on: a stray write must not race the batch's retry.
        outcomes = await asyncio.gather(
            _write_missing(writer.records.put, records),
            _write_missing(add, records),
            return_exceptions=True,
        )
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        await writer.episodic.add_notes([note_of(r) for r in records])


async def _in_transcript(transcript: TranscriptStore, entry: TranscriptEntry) -> bool:
    stored: Sequence[TranscriptEntry] = await transcript.get_entries(
        entry.session_id, since_turn=max(0, entry.turn_number - 1), limit=1
    )
    return bool(stored) and stored[0].id == entry.id
