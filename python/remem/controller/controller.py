"""MemoryController: turns in, memories in, ranked memories out.

    stores = Stores.embedded(path)            # or Stores.postgres(dsn); remem.Runtime does this
    await stores.open()
    collections = CollectionManager(stores.vectors, embedder)
    controller = MemoryController(stores, collections)
    await controller.record_turn("s1", "I moved to Lisbon", "Noted!")
    memory = await controller.remember("Ana lives in Lisbon")
    for hit in await controller.recall("where does Ana live?"):
        print(hit.score, hit.record.text, hit.explanation)

The controller is built from a :class:`~remem.stores.bundle.Stores` bundle (the transcript, the
episodic index, records, graph, vectors; the record store is the source of truth, the vector and
full-text indexes derive from it), the :class:`~remem.staging.CollectionManager` over the
bundle's vector store, and at most seven collaborators. The Friday signature (four stores and
the collection manager as positional arguments) is :meth:`MemoryController.from_parts`.

The controller does not own the stores: ``aclose()`` drains extraction and flushes access counts;
whoever opened the stores closes them (the Runtime does, in reverse order). Every
time-dependent step reads the injected ``clock`` — tests advance a ManualClock, never sleep.

Writes of turns and fresh memories go through a write port (:mod:`remem.writebehind.port`):
``writes=`` (the Runtime passes :class:`~remem.writebehind.JournaledWrites` on the embedded
default, so ``record_turn`` and ``remember`` are journaled and applied in batches); without it
the controller writes directly (:class:`~remem.writebehind.DirectWrites` on the bundle). Every
read the controller makes first awaits the port's barrier, so it sees every acknowledged write;
code above the controller reads the stores through :meth:`MemoryController.settled`, which
awaits the same barrier and returns the bundle.

Scopes (:mod:`remem.scopes`): every read takes ``namespace=`` (one scope, several, or None for
all) and pushes it into each index; a session's turns are in its namespace. With
``ControllerConfig(scopes="multi")`` (``RuntimeConfig(scopes="multi")``) a read or a turn write
without ``namespace=`` raises :class:`~remem.errors.ScopeRequiredError`.

Priming: :meth:`MemoryController.prime` (:mod:`remem.controller.priming`), with the
``priming=`` config (default :meth:`PrimingConfig.controller_fallback`) unless a call names one.

Recall: :mod:`remem.controller.recall`; fusion: :mod:`remem.controller.fusion`; writes:
:mod:`remem.controller.writes`; extraction: :mod:`remem.controller.extraction_runner`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Self

import numpy as np
from numpy.typing import NDArray

from remem.context.priming import Priming, PrimingConfig
from remem.controller.config import ControllerConfig
from remem.controller.extraction import ExtractionResult, Extractor
from remem.controller.extraction_runner import BackgroundExtraction
from remem.controller.gc_pause import gc_paused
from remem.controller.graph_services import GraphServices
from remem.controller.priming import PrimingSources, prime_session
from remem.controller.recall_options import (
    check_queries,
    query_batch,
    recall_options,
)
from remem.controller.scoped import keyed_facts_in
from remem.controller.telemetry import Telemetry
from remem.controller.turns import check_turn, check_turn_options, check_turns
from remem.controller.wiring import wire
from remem.controller.writes import MemorySpec, check_query_vector
from remem.errors import StoreClosedError
from remem.failures import BackgroundFailure
from remem.graph import AccessTracker, EntityResolver, GraphScorer
from remem.models import (
    Clock,
    EpisodicHit,
    MemoryKind,
    MemoryRecord,
    MemoryStage,
    ProvenanceMetadata,
    ScoredMemory,
    SystemClock,
    TranscriptEntry,
    TranscriptSession,
    check_metadata,
)
from remem.scopes import Namespaces, check_namespace, normalize_namespaces, require_scope
from remem.staging import CollectionManager
from remem.stores.bundle import Stores
from remem.stores.episodic import EpisodicStore
from remem.stores.graph import GraphStore
from remem.stores.records import RecordStore
from remem.stores.transcript import TranscriptStore, check_session_id
from remem.stores.vector import VectorStore, Where
from remem.writebehind import WriteBehind, WritePort


class MemoryController:
    """The memory engine's front door (see the module docstring)."""

    def __init__(
        self,
        stores: Stores,
        collections: CollectionManager,
        *,
        writes: WritePort | None = None,
        graph: GraphServices | None = None,
        extractor: Extractor | None = None,
        config: ControllerConfig | None = None,
        priming: PrimingConfig | None = None,
        clock: Clock | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        """``stores`` and ``collections`` (built on ``stores.vectors``); ``writes`` the write
        port (default: direct writes on the bundle); ``graph`` the resolver, the graph retriever
        and the access counter (default: a resolver only); ``priming`` the default of
        :meth:`prime`."""
        graph = graph if graph is not None else GraphServices()
        self._stores = stores
        self.collection_manager = collections
        self.telemetry = telemetry
        # The controller's fallback primes from no previous sessions (see PrimingConfig presets).
        self.priming = priming if priming is not None else PrimingConfig.controller_fallback()
        self.access_tracker: AccessTracker | None = graph.access
        self.graph_scorer: GraphScorer | None = graph.scorer
        self.config = config if config is not None else ControllerConfig()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.extractor = extractor
        parts = wire(
            stores,
            collections,
            writes=writes,
            graph=graph,
            config=self.config,
            clock=self.clock,
            telemetry=telemetry,
        )
        self.writes, self.resolver = parts.writes, parts.resolver
        self._failures = parts.writes.failures
        self._books, self._writer, self._recall = parts.books, parts.writer, parts.recall
        self._turn_log = parts.turns
        self._turns = self._turn_log.last_turns  # the same dict: a cache of each session's last
        self._extraction = BackgroundExtraction(
            extractor,
            self.config.extraction,
            resolver=self.resolver,
            graph_store=stores.graph,
            remember=self.remember,
            failures=self._failures,
            now=self.clock.now,
            transcript=stores.transcript,
        )
        self._closed = False

    @classmethod
    def from_parts(
        cls,
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
    ) -> MemoryController:
        """The Friday signature: the stores one by one (``vector_store``, ``graph_store``,
        ``episodic_store``, ``collection_manager``, and the record store, required here), the
        graph collaborators one by one. Equal to bundling them yourself::

            MemoryController.from_parts(vectors, graph, episodic, collections,
                                        record_store=records, transcript_store=transcript)
            # is
            MemoryController(Stores(vectors=vectors, graph=graph, episodic=episodic,
                                    records=records, transcript=transcript), collections)
        """
        stores = Stores(
            episodic=episodic_store,
            records=record_store,
            graph=graph_store,
            vectors=vector_store,
            transcript=transcript_store,
        )
        return cls(
            stores,
            collection_manager,
            writes=writes,
            graph=GraphServices(entity_resolver, graph_scorer, access_tracker),
            extractor=extractor,
            config=config,
            priming=priming,
            clock=clock,
            telemetry=telemetry,
        )

    async def settled(self) -> Stores:
        """The stores, once every write accepted before this call is in them (the write port's
        barrier; at once with direct writes). Read through them right away: a write accepted
        after this call may still be pending in a journal."""
        self._check_open()
        await self.writes.barrier()
        return self._stores

    @property
    def timezone(self) -> str | None:
        """The IANA timezone the episodic store groups calendar days in (None if it has none)."""
        zone = getattr(self._stores.episodic, "timezone", None)
        return zone if isinstance(zone, str) else None

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
        await self._extraction.aclose(self.config.extraction.drain_timeout)
        await self._books.aclose()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError("this MemoryController is closed; open a new one")

    def failures(self) -> list[BackgroundFailure]:
        """Every recorded background failure, oldest first: extraction batches (with their turn
        ids), compensations, vector clean-ups, episodic indexing and access-count flushes."""
        return self._books.failures()

    def record_failure(self, failure: BackgroundFailure) -> None:
        """Keep a failure of work done on the controller's behalf (e.g. consolidation) in the
        log :meth:`failures` shows."""
        self._failures.add(failure)

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
        scope = self._write_scope(namespace, "record_turn")
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
        scope = self._write_scope(namespace, "record_turns")
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
        return await self._extraction.apply_now(
            result, entries, now if now is not None else self.clock.now(), namespace
        )

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
        records = await self._writer.remember_many(
            items,
            kind=kind,
            provenance=provenance,
            namespace=namespace,
            session_id=session_id,
            metadata=metadata,
            vectors=vectors,
        )
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

    async def keyed_facts(
        self,
        *,
        subjects: Sequence[str] | None = None,
        attributes: Sequence[str] | None = None,
        namespace: Namespaces = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]:
        """Keyed facts (metadata subject/attribute/value) ordered by key then validity time;
        live ones only unless ``include_superseded`` (then every value a fact has had).
        ``namespace``: the scopes to read (None: all, single-scope runtimes only)."""
        self._check_open()
        scopes = self._read_scopes(namespace, "keyed_facts")
        await self.writes.barrier()
        return await keyed_facts_in(
            self._stores.records,
            scopes,
            subjects=subjects,
            attributes=attributes,
            include_superseded=include_superseded,
        )

    # -- priming --------------------------------------------------------------------------------

    async def prime(
        self,
        session_id: str,
        *,
        now: datetime | None = None,
        config: PrimingConfig | None = None,
        namespace: Namespaces = None,
    ) -> Priming:
        """What session ``session_id`` starts with: entities, known facts, insights, summaries
        and earlier sessions' last turns, cut to ``config`` (default: this controller's
        ``priming``) and its token budget (:mod:`remem.controller.priming`).

        Pass the result to :meth:`remem.context.ContextAssembler.assemble` on every turn of
        the session. ``namespace`` limits everything primed — entities and their facts,
        insights, summaries, earlier sessions — to those scopes (default: all, single-scope
        runtimes only)."""
        self._check_open()
        check_session_id(session_id)
        scopes = self._read_scopes(namespace, "prime")
        cfg = config if config is not None else self.priming
        await self.writes.barrier()
        stores = self._stores
        sources = PrimingSources(stores.graph, stores.records, stores.transcript)
        return await prime_session(
            sources,
            cfg,
            session_id=session_id,
            now=now if now is not None else self.clock.now(),
            namespace=scopes,
        )

    # -- scoped listings and search ---------------------------------------------------------------

    async def list_sessions(self, *, namespace: Namespaces = None) -> list[TranscriptSession]:
        """The transcript's sessions in ``namespace`` (None: all, single-scope runtimes only),
        oldest first; [] without a transcript store."""
        self._check_open()
        scopes = self._read_scopes(namespace, "list_sessions")
        await self.writes.barrier()
        if self._stores.transcript is None:
            return []
        return await self._stores.transcript.list_sessions(namespace=scopes)

    async def search_text(
        self,
        query: str,
        *,
        namespace: Namespaces = None,
        limit: int = 10,
        session_id: str | None = None,
    ) -> list[EpisodicHit]:
        """Full-text hits (turns and memory notes) for ``query`` in ``namespace`` (None: all,
        single-scope runtimes only), best first; the scope is part of the search itself."""
        self._check_open()
        scopes = self._read_scopes(namespace, "search_text")
        await self.writes.barrier()
        return await self._stores.episodic.search(
            query, limit=limit, session_id=session_id, namespace=scopes
        )

    def _read_scopes(self, namespace: Namespaces, action: str) -> tuple[str, ...] | None:
        scopes = normalize_namespaces(namespace)
        require_scope(scopes, multi=self.config.scopes == "multi", action=action)
        return scopes

    def _write_scope(self, namespace: str | None, action: str) -> str | None:
        if namespace is None:
            require_scope(None, multi=self.config.scopes == "multi", action=action)
            return None
        return check_namespace(namespace)

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
        namespace: Namespaces = None,
    ) -> list[ScoredMemory]:
        """The ``k`` best memories for ``query``, best first, each with its signals explained.

        ``stages`` defaults to short_term, long_term and episodic; ``include_decayed`` adds
        decayed; deleted and superseded memories are never returned. ``filters`` is a where
        filter on kind/namespace/stage/session_id (a filter on any other field is refused:
        InvalidArgumentError). ``vector`` is a precomputed query embedding.
        ``sources`` names the retrievers to run (default all of ``vector``, ``fulltext``,
        ``graph``); ``sources=["fulltext"]`` is a full-text-only recall (no query embedding).
        ``namespace``: the scopes the recall may see (one, several, or None for every scope —
        refused with ScopeRequiredError in a multi-scope runtime); pushed into the vector
        search, the full-text search, the record read and the graph matcher.
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
            namespace=namespace,
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
        namespace: Namespaces = None,
    ) -> list[list[ScoredMemory]]:
        """``recall`` for many queries: one embedding batch and ONE batched collection query
        (native batched top-k); equal to calling ``recall`` per query."""
        self._check_open()
        started = time.perf_counter()
        check_queries(queries)
        options = recall_options(
            self.config.max_k, k, stages, filters, include_decayed, session_id, sources, namespace
        )
        require_scope(options.namespaces, multi=self.config.scopes == "multi", action="recall")
        if not queries:
            return []
        batch = await query_batch(self.collection_manager.embeddings, queries, vectors, options)
        await self.writes.barrier()
        with gc_paused():  # see remem.controller.gc_pause: the collector cost a large share
            results = await self._recall.run(queries, batch, options, self.clock.now())
        await self._books.note_access(results)
        self._books.emit("recall", started, queries=len(queries), k=k)
        return results
