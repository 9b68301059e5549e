"""MemoryController: turns in, memories in, ranked memories out.

    controller = MemoryController(vectors, graph, episodic, collections, record_store=records)
    await controller.record_turn("s1", "I moved to Lisbon", "Noted!")
    memory = await controller.remember("Ana lives in Lisbon")
    for hit in await controller.recall("where does Ana live?"):
        print(hit.score, hit.record.text, hit.explanation)

Deviation from the Friday signature: ``record_store`` (the source of truth; the vector and
full-text indexes derive from it) is a required keyword. :class:`remem.Runtime` wires them all.

The controller does not own the stores: ``aclose()`` drains extraction and flushes access counts;
whoever opened the stores closes them (the Runtime does, in reverse order). Every
time-dependent step reads the injected ``clock`` — tests advance a ManualClock, never sleep.

Writes of turns and fresh memories go through a write port (:mod:`remem.writebehind.port`):
``writes=`` (the Runtime passes :class:`~remem.writebehind.JournaledWrites` on the embedded
default, so ``record_turn`` and ``remember`` are journaled and applied in batches, and then every
store given here must be wrapped by :func:`remem.writebehind.behind` so reads wait for them);
without it the controller writes directly (:class:`~remem.writebehind.DirectWrites` on the
stores given here).

Priming: :meth:`MemoryController.prime` (:mod:`remem.controller.priming`), with the
``priming=`` config (default :meth:`PrimingConfig.controller_fallback`) unless a call names one.

Recall: :mod:`remem.controller.recall`; fusion: :mod:`remem.controller.fusion`; writes:
:mod:`remem.controller.writes`; extraction: :mod:`remem.controller.extraction_queue`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Self

import numpy as np
from numpy.typing import NDArray

from remem.context.priming import Priming, PrimingConfig
from remem.controller.config import ControllerConfig
from remem.controller.extraction import ExtractionContext, ExtractionResult, Extractor
from remem.controller.extraction_apply import apply_extraction
from remem.controller.extraction_queue import ExtractionBatch, ExtractionQueue
from remem.controller.priming import PrimingSources, prime_session
from remem.controller.recall import RecallPipeline
from remem.controller.recall_options import accessed_ids, embed_queries, recall_options
from remem.controller.telemetry import Telemetry
from remem.controller.turns import TurnLog, check_turn, check_turn_options, check_turns
from remem.controller.writes import (
    MemorySpec,
    MemoryWriter,
    check_query_vector,
    check_query_vectors,
)
from remem.errors import ConfigError, InvalidArgumentError, StoreClosedError
from remem.failures import BackgroundFailure, FailureLog
from remem.graph import AccessTracker, EntityResolver, GraphScorer, QueryEntityMatcher
from remem.models import (
    Clock,
    MemoryKind,
    MemoryRecord,
    MemoryStage,
    ProvenanceMetadata,
    ScoredMemory,
    SystemClock,
    TranscriptEntry,
    check_metadata,
    check_text,
)
from remem.staging import CollectionManager
from remem.stores.episodic import EpisodicStore
from remem.stores.graph import GraphStore
from remem.stores.records import RecordStore
from remem.stores.transcript import TranscriptStore, check_session_id
from remem.stores.vector import VectorStore, Where
from remem.writebehind import DirectWrites, WriteBehind, WritePort, check_behind


class MemoryController:
    """The memory engine's front door (see the module docstring)."""

    def __init__(
        self,
        vector_store: VectorStore,
        graph_store: GraphStore,
        episodic_store: EpisodicStore,
        collection_manager: CollectionManager,
        *,
        record_store: RecordStore,
        telemetry: Telemetry | None = None,
        priming: PrimingConfig | None = None,
        access_tracker: AccessTracker | None = None,
        graph_scorer: GraphScorer | None = None,
        transcript_store: TranscriptStore | None = None,
        entity_resolver: EntityResolver | None = None,
        extractor: Extractor | None = None,
        config: ControllerConfig | None = None,
        clock: Clock | None = None,
        writes: WritePort | None = None,
    ) -> None:
        if collection_manager.vector_store is not vector_store:
            raise ConfigError(
                "collection_manager was built on another vector store; pass the same one"
            )
        if writes is not None and writes.journaled:
            check_behind(collection_manager, episodic_store, record_store, transcript_store)
        self.vector_store = vector_store
        self.graph_store = graph_store
        self.episodic_store = episodic_store
        self.collection_manager = collection_manager
        self.record_store = record_store
        self.transcript_store = transcript_store
        self.telemetry = telemetry
        # The controller's fallback primes from no previous sessions (see PrimingConfig presets).
        self.priming = priming if priming is not None else PrimingConfig.controller_fallback()
        self.access_tracker = access_tracker
        self.graph_scorer = graph_scorer
        self.config = config if config is not None else ControllerConfig()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.resolver = entity_resolver or EntityResolver(graph_store, clock=self.clock)
        self.extractor = extractor
        if writes is None:
            writes = DirectWrites(
                transcript_store=transcript_store,
                episodic_store=episodic_store,
                record_store=record_store,
                collection_manager=collection_manager,
                failures=FailureLog(),
                now=self.clock.now,
            )
        self.writes = writes
        self._failures = writes.failures
        self._writer = MemoryWriter(
            record_store=record_store,
            collection_manager=collection_manager,
            resolver=self.resolver,
            writes=writes,
            now=self.clock.now,
        )
        self._recall = RecallPipeline(
            record_store=record_store,
            episodic_store=episodic_store,
            collection_manager=collection_manager,
            matcher=QueryEntityMatcher(self.resolver) if graph_scorer is not None else None,
            graph_scorer=graph_scorer,
            config=self.config,
            transcript_store=transcript_store,
        )
        self._extraction: ExtractionQueue | None = None
        if extractor is not None:
            cfg = self.config.extraction
            self._extraction = ExtractionQueue(
                self._apply_extraction,
                self._extraction_failed,
                interval=cfg.interval,
                size=cfg.queue_size,
            )
        self._turn_log = TurnLog(transcript_store, episodic_store, writes, now=self.clock.now)
        self._turns = self._turn_log.last_turns  # the same dict: a cache of each session's last
        self._closed = False

    @property
    def write_behind(self) -> WriteBehind | None:
        """The write-behind journal, when the write port is journaled."""
        # Through a wrapper too (the Runtime's quiescence gate exposes the journal it wraps).
        journal = getattr(self.writes, "journal", None)
        return journal if isinstance(journal, WriteBehind) else None

    # -- lifecycle ------------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Drain extraction (see extraction_queue), flush access counts; idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._extraction is not None:
            await self._extraction.aclose(self.config.extraction.drain_timeout)
        if self.access_tracker is not None:
            # A failed final flush is already in the tracker's failures(), shown by failures().
            with contextlib.suppress(Exception):
                await self.access_tracker.aclose()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError("this MemoryController is closed; open a new one")

    def failures(self) -> list[BackgroundFailure]:
        """Every recorded background failure, oldest first: extraction batches (with their turn
        ids), compensations, vector clean-ups, episodic indexing and access-count flushes."""
        out = self._failures.items()
        if self.access_tracker is not None:
            out += [
                BackgroundFailure("access_flush", f.at, (f.target,), f.error)
                for f in self.access_tracker.failures()
            ]
        return sorted(out, key=lambda f: f.at)

    def record_failure(self, failure: BackgroundFailure) -> None:
        """Keep a failure of work done on the controller's behalf (e.g. consolidation) in the
        log :meth:`failures` shows."""
        self._failures.add(failure)

    def _emit(self, operation: str, started: float, **fields: object) -> None:
        if self.telemetry is not None:
            self.telemetry.record(operation, time.perf_counter() - started, **fields)

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
    ) -> TranscriptEntry:
        """Write a turn to the transcript (creating the session if new) and the episodic index;
        schedule extraction every ``extraction.interval`` turns of the session.

        ``turn_number`` defaults to the session's last + 1. The turn is durable once the
        transcript append returns; an episodic indexing failure is recorded and re-raised (the
        turn stays in the transcript); extraction failures never reach the caller.
        """
        self._check_open()
        started = time.perf_counter()
        check_session_id(session_id)
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
        )
        if self._extraction is not None:
            await self._extraction.add(entry)
        self._emit("record_turn", started, session_id=session_id)
        return entry

    async def record_turns(
        self,
        session_id: str,
        turns: Sequence[tuple[str, str]],
        *,
        created_at: datetime | None = None,
        metadata: Mapping[str, object] | None = None,
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
        pairs = check_turns(turns)
        meta: dict[str, object] = dict(check_metadata(metadata))
        checked_at = check_turn_options(None, None, created_at)
        if not pairs:
            return []
        at = checked_at if checked_at is not None else self.clock.now()
        entries = await self._turn_log.record_many(session_id, pairs, created_at=at, metadata=meta)
        if self._extraction is not None:
            for entry in entries:
                await self._extraction.add(entry)
        self._emit("record_turns", started, session_id=session_id, turns=len(entries))
        return entries

    # -- extraction -----------------------------------------------------------------------------

    async def _apply_extraction(self, batch: ExtractionBatch) -> None:
        assert self.extractor is not None
        context = ExtractionContext(session_id=batch.session_id, now=self.clock.now())
        result = await self.extractor.extract(batch.entries, context=context)
        await apply_extraction(
            result,
            batch,
            resolver=self.resolver,
            graph_store=self.graph_store,
            remember=self.remember,
            now=context.now,
        )

    async def apply_extraction(
        self,
        result: ExtractionResult,
        entries: Sequence[TranscriptEntry],
        *,
        now: datetime | None = None,
    ) -> list[MemoryRecord]:
        """Apply an extractor's ``result`` for ``entries`` (turns of one session) now, exactly as
        background extraction would; return the memory records created.

        For callers that run their extractor themselves (the companion extracts each finished
        turn and then updates its core blocks from the new records).
        """
        self._check_open()
        if isinstance(entries, str) or not isinstance(entries, Sequence) or not entries:
            raise InvalidArgumentError("entries must be a non-empty list of TranscriptEntry")
        sessions = {e.session_id for e in entries}
        if len(sessions) != 1:
            raise InvalidArgumentError(
                f"entries must come from one session, got {sorted(sessions)}; apply per session"
            )
        return await apply_extraction(
            result,
            ExtractionBatch(entries[0].session_id, tuple(entries)),
            resolver=self.resolver,
            graph_store=self.graph_store,
            remember=self.remember,
            now=now if now is not None else self.clock.now(),
        )

    def _extraction_failed(self, batch: ExtractionBatch, exc: BaseException) -> None:
        self._failures.add(BackgroundFailure("extraction", self.clock.now(), batch.turn_ids, exc))

    async def flush_extraction(self) -> None:
        """Extract every pending turn now (partial windows too) and wait for it."""
        if self._extraction is not None:
            await self._extraction.flush()

    @property
    def pending_extraction(self) -> int:
        """Turns recorded but not yet extracted."""
        return 0 if self._extraction is None else self._extraction.pending_turns

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
        record = await self._writer.remember(
            text,
            kind=kind,
            provenance=provenance,
            namespace=namespace,
            session_id=session_id,
            metadata=metadata,
            entities=entities,
            vector=vector,
            memory_id=memory_id,
            valid_from=valid_from,
        )
        self._emit("remember", started)
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
        records = await self._writer.remember_many(
            items,
            kind=kind,
            provenance=provenance,
            namespace=namespace,
            session_id=session_id,
            metadata=metadata,
            vectors=vectors,
        )
        self._emit("remember_many", started, memories=len(records))
        return records

    async def forget(self, ids: Sequence[str]) -> int:
        """Move memories to the deleted stage (never recalled again); return how many changed.
        An unknown id raises NotFoundError and changes nothing."""
        self._check_open()
        return await self._writer.forget(ids)

    async def supersede(self, old_id: str, new_id: str, *, at: datetime | None = None) -> None:
        """Mark ``old_id`` as replaced by ``new_id``: kept in the record store, never recalled.
        Its ``valid_to`` becomes ``at`` (default now) unless it already ended earlier."""
        self._check_open()
        await self._writer.supersede(old_id, new_id, at=at)

    async def supersede_many(self, items: Sequence[tuple[str, str, datetime | None]]) -> None:
        """``supersede`` for many ``(old_id, new_id, at)`` triples: one record-store batch (all
        or nothing) and one vector removal per stage."""
        self._check_open()
        await self._writer.supersede_many(items)

    async def keyed_facts(
        self,
        *,
        subjects: Sequence[str] | None = None,
        attributes: Sequence[str] | None = None,
        namespace: str | None = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]:
        """Keyed facts (metadata subject/attribute/value) ordered by key then validity time;
        live ones only unless ``include_superseded`` (then every value a fact has had)."""
        self._check_open()
        return await self.record_store.keyed_facts(
            subjects=subjects,
            attributes=attributes,
            namespace=namespace,
            include_superseded=include_superseded,
        )

    # -- priming --------------------------------------------------------------------------------

    async def prime(
        self,
        session_id: str,
        *,
        now: datetime | None = None,
        config: PrimingConfig | None = None,
        namespace: str | None = None,
    ) -> Priming:
        """What session ``session_id`` starts with: entities, known facts, insights, summaries
        and earlier sessions' last turns, cut to ``config`` (default: this controller's
        ``priming``) and its token budget (:mod:`remem.controller.priming`).

        Pass the result to :meth:`remem.context.ContextAssembler.assemble` on every turn of
        the session. ``namespace`` limits the primed insights and summaries (default: all)."""
        self._check_open()
        check_session_id(session_id)
        cfg = config if config is not None else self.priming
        sources = PrimingSources(self.graph_store, self.record_store, self.transcript_store)
        return await prime_session(
            sources,
            cfg,
            session_id=session_id,
            now=now if now is not None else self.clock.now(),
            namespace=namespace,
        )

    # -- recall ---------------------------------------------------------------------------------

    async def recall(
        self,
        query: str,
        *,
        session_id: str | None = None,
        k: int = 10,
        stages: Sequence[MemoryStage | str] | None = None,
        filters: Where | None = None,
        include_decayed: bool = False,
        vector: NDArray[np.float32] | Sequence[float] | None = None,
        sources: Sequence[str] | None = None,
    ) -> list[ScoredMemory]:
        """The ``k`` best memories for ``query``, best first, each with its signals explained.

        ``stages`` defaults to short_term, long_term and episodic; ``include_decayed`` adds
        decayed; deleted and superseded memories are never returned. ``filters`` is a where
        filter on kind/namespace/stage/session_id (a filter on any other field is refused:
        InvalidArgumentError). ``vector`` is a precomputed query embedding.
        ``sources`` names the retrievers to run (default all of ``vector``, ``fulltext``,
        ``graph``); ``sources=["fulltext"]`` is a full-text-only recall (no query embedding).
        """
        vectors = None if vector is None else check_query_vector(vector)
        results = await self.recall_many(
            [query],
            vectors=vectors,
            session_id=session_id,
            k=k,
            stages=stages,
            filters=filters,
            include_decayed=include_decayed,
            sources=sources,
        )
        return results[0]

    async def recall_many(
        self,
        queries: Sequence[str],
        *,
        vectors: NDArray[np.float32] | Sequence[Sequence[float]] | None = None,
        session_id: str | None = None,
        k: int = 10,
        stages: Sequence[MemoryStage | str] | None = None,
        filters: Where | None = None,
        include_decayed: bool = False,
        sources: Sequence[str] | None = None,
    ) -> list[list[ScoredMemory]]:
        """``recall`` for many queries: one embedding batch and ONE batched collection query
        (native batched top-k); equal to calling ``recall`` per query."""
        self._check_open()
        started = time.perf_counter()
        if isinstance(queries, str) or not isinstance(queries, Sequence):
            raise InvalidArgumentError("recall_many takes a list of query strings")
        for q in queries:
            if not isinstance(q, str) or not q.strip():
                raise InvalidArgumentError(f"each query must be a non-empty str, got {q!r}")
            check_text(q, field="query")
        options = recall_options(
            self.config.max_k, k, stages, filters, include_decayed, session_id, sources
        )
        if not queries:
            return []
        dim = self.collection_manager.embeddings.dimension
        if vectors is None and "vector" not in options.sources:
            batch = np.zeros((len(queries), dim), dtype=np.float32)  # never searched
        elif vectors is None:
            batch = await embed_queries(self.collection_manager.embeddings, queries)
        else:
            batch = check_query_vectors(vectors, len(queries), dim)
        results = await self._recall.run(queries, batch, options, self.clock.now())
        await self._note_access(results)
        self._emit("recall", started, queries=len(queries), k=k)
        return results

    async def _note_access(self, results: Sequence[Sequence[ScoredMemory]]) -> None:
        if self.access_tracker is None:
            return
        record_ids, entity_ids = accessed_ids(results)
        try:
            await self.access_tracker.note(entity_ids=entity_ids, record_ids=record_ids)
        except Exception as exc:  # bookkeeping never fails a recall; the failure stays visible
            self._failures.add(
                BackgroundFailure("access_flush", self.clock.now(), tuple(record_ids), exc)
            )
