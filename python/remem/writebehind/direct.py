"""DirectWrites: the write port that writes the stores at once (see :mod:`.port`).

The record store is the source of truth; the staged collection (vector) and the episodic note
(full text) are indexes of it, and the transcript is the source of the episodic turn index. So:

* ``append_turns``: the transcript first (durable once it returns), then one episodic batch; an
  indexing failure is recorded in ``failures`` and re-raised (the turns stay in the transcript;
  re-indexing identical turns is a no-op by the episodic contract).
* ``store_memories``: the record and the vector concurrently (two stores, two threads), then the
  notes. If either of the first two fails, what this call wrote of them is undone; if the notes
  fail, both are; the original error is re-raised (a failed compensation is recorded). The
  whole write runs to its end even if the caller is cancelled (:func:`run_to_end`), so a
  cancellation never leaves a memory without its vector or note.

The journaled port applies its batches through the same stores (:mod:`.apply`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np
from numpy.typing import NDArray

from remem.cancel_safe import run_to_end
from remem.errors import NotFoundError
from remem.failures import BackgroundFailure, FailureLog
from remem.models import MemoryRecord, MemoryStage, TranscriptEntry
from remem.scopes import DEFAULT_NAMESPACE
from remem.staging import CollectionManager
from remem.stores.episodic import EpisodicStore, NoteInput
from remem.stores.records import RecordStore
from remem.stores.transcript import TranscriptStore

USER_CHARS_KEY = "remem_user_chars"
"""Episodic-copy metadata key: the user message's length, so a hit's text splits exactly."""


class DirectWrites:
    """Writes turns and memories to the stores now (see the module docstring)."""

    journaled = False
    journal: None = None  # no write-behind journal: every write is in the stores on return

    def __init__(
        self,
        *,
        transcript_store: TranscriptStore | None,
        episodic_store: EpisodicStore,
        record_store: RecordStore,
        collection_manager: CollectionManager,
        failures: FailureLog,
        now: Callable[[], datetime],
    ) -> None:
        self.transcript = transcript_store
        self.episodic = episodic_store
        self.records = record_store
        self.collections = collection_manager
        self._failures = failures
        self.now = now
        self._scopes: dict[str, str] = {}  # session id -> namespace (a session keeps its own)

    @property
    def failures(self) -> FailureLog:
        return self._failures

    async def open(self) -> int:
        return 0

    async def aclose(self) -> None:
        return None

    async def barrier(self) -> None:
        return None

    # -- turns ----------------------------------------------------------------------------------

    async def append_turns(
        self, entries: Sequence[TranscriptEntry], *, confirm: bool = False
    ) -> None:
        if self.transcript is not None:
            await self.transcript.append_entries(entries)
        await self.index_turns(entries)

    async def index_turns(self, entries: Sequence[TranscriptEntry]) -> None:
        """Index turns in the episodic store, each in its session's namespace (read from the
        transcript once per session; ``"default"`` without a transcript); a retry of identical
        turns is a no-op; a failure is recorded and re-raised."""
        # model_copy, not replace(): the entry is already validated and one int is added.
        indexed = [
            e.model_copy(update={"metadata": {**e.metadata, USER_CHARS_KEY: len(e.user_message)}})
            for e in entries
        ]
        try:
            by_scope: dict[str, list[TranscriptEntry]] = {}
            for e in indexed:
                by_scope.setdefault(await self._scope_of(e.session_id), []).append(e)
            for scope, group in by_scope.items():
                await self.episodic.index_turns(group, namespace=scope)
        except Exception as exc:
            ids = tuple(e.id for e in entries)
            self._failures.add(BackgroundFailure("episodic_index", self.now(), ids, exc))
            raise

    async def _scope_of(self, session_id: str) -> str:
        scope = self._scopes.get(session_id)
        if scope is not None:
            return scope
        if self.transcript is None:
            return DEFAULT_NAMESPACE
        try:
            scope = (await self.transcript.get_session(session_id)).namespace
        except NotFoundError:
            return DEFAULT_NAMESPACE  # not cached: the append itself reports the unknown session
        self._scopes[session_id] = scope
        return scope

    # -- memories -------------------------------------------------------------------------------

    async def store_memories(
        self,
        records: Sequence[MemoryRecord],
        vectors: NDArray[np.float32],
        *,
        confirm: bool = False,
    ) -> None:
        await run_to_end(self._store(list(records), vectors))

    async def _store(self, records: list[MemoryRecord], vectors: NDArray[np.float32]) -> None:
        put, add = await asyncio.gather(
            self.records.put(records),
            self.collections.add(records, vectors=vectors),
            return_exceptions=True,
        )
        if isinstance(put, BaseException) or isinstance(add, BaseException):
            # Only undo our own writes: a record put refused as a duplicate belongs to someone
            # else (and so may a vector in another stage), so it is never deleted here.
            await self._undo(
                records,
                record_written=not isinstance(put, BaseException),
                vector_written=not isinstance(add, BaseException),
            )
            raise put if isinstance(put, BaseException) else add  # type: ignore[misc]
        try:
            await self.episodic.add_notes([note_of(r) for r in records])
        except BaseException:
            await self._undo(records, record_written=True, vector_written=True)
            raise

    async def _undo(
        self, records: Sequence[MemoryRecord], *, record_written: bool, vector_written: bool
    ) -> None:
        ids = [r.id for r in records]
        try:
            if vector_written:
                # Fresh records are all short-term, so one collection holds every vector.
                await self.collections.remove(ids, MemoryStage.SHORT_TERM)
            if record_written:
                await self.records.delete(ids)
        except Exception as exc:
            self._failures.add(BackgroundFailure("compensation", self.now(), tuple(ids), exc))


def note_of(record: MemoryRecord) -> NoteInput:
    """The full-text note of a fresh memory (same id, so both retrievers fuse under one key)."""
    return NoteInput(
        note_id=record.id,
        text=record.text,
        created_at=record.lifecycle.created_at,
        session_id=record.session_id,
        metadata={"kind": record.kind.value, "namespace": record.namespace},
        namespace=record.namespace,
    )
