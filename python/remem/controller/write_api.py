"""The controller's write API: turns, extraction of turns, memories.

* ``record_turn`` / ``record_turns`` write a session's turns (transcript, then the episodic
  index, through :class:`~remem.controller.turns.TurnLog`) and hand each to background
  extraction (:class:`~remem.controller.extraction_runner.BackgroundExtraction`);
* ``apply_extraction`` / ``flush_extraction`` run extraction now, for callers that extract
  themselves or must wait for it;
* ``remember`` / ``remember_many`` / ``forget`` / ``supersede`` / ``supersede_many`` go to the
  :class:`~remem.controller.writes.MemoryWriter` (validation, embedding, the write port).

Each method checks the controller is open, checks its scope (:mod:`remem.controller.scope_checks`),
calls its part and reports the call to telemetry; the parts are wired by
:class:`~remem.controller.controller.MemoryController` (declared in
:mod:`remem.controller.state`). This class is not used on its own.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np
from numpy.typing import NDArray

from remem.controller.extraction import ExtractionResult
from remem.controller.extraction_runner import AfterBatch
from remem.controller.scope_checks import memory_scope, write_scope
from remem.controller.state import ControllerState
from remem.controller.turns import check_turn, check_turn_options, check_turns
from remem.controller.writes import MemoryDefaults, MemorySpec, build_record
from remem.models import (
    MemoryKind,
    MemoryRecord,
    ProvenanceMetadata,
    TranscriptEntry,
    check_metadata,
)
from remem.stores.transcript import check_session_id


class WriteAPI(ControllerState):
    """MemoryController's writes (see the module docstring)."""

    # -- turns ----------------------------------------------------------------------------------

    async def record_turn(
        self,
        session_id: str,
        user_message: str = "",
        assistant_message: str = "",
        *,
        turn_number: int | None = None,
        entry_id: str | None = None,
        created_at: datetime | None = None,
        metadata: Mapping[str, object] | None = None,
        namespace: str | None = None,
    ) -> TranscriptEntry:
        """Write a turn to the transcript (creating the session if new) and the episodic index;
        schedule extraction every ``extraction.interval`` turns of the session.

        ``turn_number`` defaults to the session's last + 1. The turn is durable once the
        transcript append returns; an episodic indexing failure is recorded and re-raised (the
        turn stays in the transcript); extraction failures never reach the caller.
        ``namespace``: the session's scope (a new session is created in it, default
        ``"default"``; naming another one than an existing session's raises
        InvalidArgumentError).
        """
        self._check_open()
        started = time.perf_counter()
        check_session_id(session_id)
        scope = write_scope(self.config, namespace, "record_turn")
        check_turn(user_message, assistant_message)
        created_at = check_turn_options(turn_number, entry_id, created_at)
        meta: dict[str, object] = dict(check_metadata(metadata))
        entry = await self._turn_log.record(
            session_id,
            user_message,
            assistant_message,
            turn_number=turn_number,
            entry_id=entry_id,
            created_at=created_at if created_at is not None else self.clock.now(),
            metadata=meta,
            namespace=scope,
        )
        await self._extraction.add(entry)
        self._books.emit("record_turn", started, session_id=session_id)
        return entry

    async def record_turns(
        self,
        session_id: str,
        turns: Sequence[tuple[str, str]],
        *,
        created_at: datetime | None = None,
        metadata: Mapping[str, object] | None = None,
        namespace: str | None = None,
    ) -> list[TranscriptEntry]:
        """``record_turn`` for many (user_message, assistant_message) pairs of one session: one
        transcript batch and one episodic batch; turns are numbered on from the session's last;
        extraction is scheduled exactly as the same ``record_turn`` calls would.

        Every pair is validated first (a bad one raises naming its index; nothing is written).
        All turns share ``created_at`` (default: now) and ``metadata``.
        """
        self._check_open()
        started = time.perf_counter()
        check_session_id(session_id)
        scope = write_scope(self.config, namespace, "record_turns")
        pairs = check_turns(turns)
        meta: dict[str, object] = dict(check_metadata(metadata))
        checked_at = check_turn_options(None, None, created_at)
        if not pairs:
            return []
        at = checked_at if checked_at is not None else self.clock.now()
        entries = await self._turn_log.record_many(
            session_id, pairs, created_at=at, metadata=meta, namespace=scope
        )
        for entry in entries:
            await self._extraction.add(entry)
        self._books.emit("record_turns", started, session_id=session_id, turns=len(entries))
        return entries

    # -- extraction -----------------------------------------------------------------------------

    async def apply_extraction(
        self,
        result: ExtractionResult,
        entries: Sequence[TranscriptEntry],
        *,
        now: datetime | None = None,
        namespace: str | None = None,
    ) -> list[MemoryRecord]:
        """Apply an extractor's ``result`` for ``entries`` (turns of one session) now, exactly as
        background extraction would; return the memory records created. Everything is written
        in ``namespace`` (default: the session's ``TranscriptSession.namespace``).

        For callers that run their extractor themselves (the companion extracts each finished
        turn and then updates its core blocks from the new records).
        """
        self._check_open()
        scope = None if namespace is None else memory_scope(namespace)
        return await self._extraction.apply_now(
            result, entries, now if now is not None else self.clock.now(), scope
        )

    def after_extraction(self, hook: AfterBatch | None) -> None:
        """Run ``hook`` on the memory records each background extraction batch creates (None:
        nothing). :class:`remem.Runtime` sets it to supersede what the new facts contradict
        (``ExtractionConfig.supersede``); a hook that raises fails that batch, which is
        recorded in :meth:`failures` like any extraction failure. ``apply_extraction``'s
        callers run their own follow-up (the companion supersedes in its post-turn step)."""
        self._extraction.after = hook

    async def flush_extraction(self) -> None:
        """Extract every pending turn now (partial windows too) and wait for it."""
        await self._extraction.flush()

    @property
    def pending_extraction(self) -> int:
        """Turns recorded but not yet extracted."""
        return self._extraction.pending_turns

    # -- memories -------------------------------------------------------------------------------

    async def remember(
        self,
        text: str,
        *,
        kind: MemoryKind | str = MemoryKind.FACT,
        provenance: ProvenanceMetadata | None = None,
        namespace: str = "default",
        session_id: str | None = None,
        metadata: Mapping[str, object] | None = None,
        entities: Sequence[str] | None = None,
        vector: NDArray[np.float32] | Sequence[float] | None = None,
        memory_id: str | None = None,
        valid_from: datetime | None = None,
    ) -> MemoryRecord:
        """Store a memory (short-term, base score 1.0, provenance source_type "user" by default):
        record + vector (embedded once, or ``vector``) + full-text note, all or nothing.
        ``entities`` are names resolved to graph entities and linked to the record.
        ``valid_from`` is when the statement started to hold in the world, when known (the
        consolidator orders contradicting facts by it, else by creation time)."""
        self._check_open()
        started = time.perf_counter()
        built = build_record(
            text,
            kind=kind,
            provenance=provenance,
            namespace=namespace,
            session_id=session_id,
            metadata=metadata,
            memory_id=memory_id,
            now=self.clock.now(),
            valid_from=valid_from,
        )
        record = await self._writer.remember(
            built, entities=entities, vector=vector, own_id=memory_id is not None
        )
        self._books.emit("remember", started)
        return record

    async def remember_many(
        self,
        items: Sequence[str | MemorySpec],
        *,
        kind: MemoryKind | str = MemoryKind.FACT,
        provenance: ProvenanceMetadata | None = None,
        namespace: str = "default",
        session_id: str | None = None,
        metadata: Mapping[str, object] | None = None,
        vectors: NDArray[np.float32] | Sequence[Sequence[float]] | None = None,
    ) -> list[MemoryRecord]:
        """``remember`` for many texts (or :class:`MemorySpec` with per-item overrides of the
        keyword defaults), all or nothing: every item validated first (the error names the bad
        index), ONE embedding call (or ``vectors``, one row per item), one write per store. No
        ``entities``: link them with ``remember``. Returns the records in input order."""
        self._check_open()
        started = time.perf_counter()
        defaults = MemoryDefaults(kind, provenance, namespace, session_id, metadata)
        records = await self._writer.remember_many(items, defaults, vectors)
        self._books.emit("remember_many", started, memories=len(records))
        return records

    async def forget(self, ids: Sequence[str]) -> int:
        """Move memories to the deleted stage (never recalled again); return how many changed.
        An unknown id raises NotFoundError and changes nothing."""
        self._check_open()
        return await self._writer.forget(ids)

    async def supersede(
        self, old_id: str, new_id: str, *, at: datetime | None = None, across_scopes: bool = False
    ) -> None:
        """Mark ``old_id`` as replaced by ``new_id``: kept in the record store, never recalled.
        Its ``valid_to`` becomes ``at`` (default now) unless it already ended earlier. Both must
        be in one namespace (B cannot end A's facts) unless ``across_scopes`` — an explicit
        handoff (:meth:`remem.multiagent.MultiAgentMemoryController.handoff`) and nothing else."""
        self._check_open()
        await self._writer.supersede_many([(old_id, new_id, at)], across_scopes=across_scopes)

    async def supersede_many(self, items: Sequence[tuple[str, str, datetime | None]]) -> None:
        """``supersede`` for many ``(old_id, new_id, at)`` triples: one record-store batch (all
        or nothing) and one vector removal per stage."""
        self._check_open()
        await self._writer.supersede_many(items)
