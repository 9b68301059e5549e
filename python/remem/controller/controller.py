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
``ControllerConfig.priming`` (default :meth:`PrimingConfig.controller_fallback`) unless a call
names one.

Where each concept lives: construction and lifecycle here; the write API (turns, extraction,
memories) in :mod:`remem.controller.write_api`; the read API (recall, keyed facts, priming,
listings, search) in :mod:`remem.controller.read_api`; the scope checks at both in
:mod:`remem.controller.scope_checks`; the parts they share in :mod:`remem.controller.state`.
Below them: recall :mod:`remem.controller.recall`; fusion :mod:`remem.controller.fusion`;
memory writes :mod:`remem.controller.writes`; extraction
:mod:`remem.controller.extraction_runner`.
"""

from __future__ import annotations

import dataclasses
from types import TracebackType
from typing import Self

from remem.context.priming import PrimingConfig
from remem.controller.config import ControllerConfig
from remem.controller.extraction import Extractor
from remem.controller.extraction_runner import BackgroundExtraction
from remem.controller.graph_services import GraphServices
from remem.controller.read_api import ReadAPI
from remem.controller.telemetry import Telemetry
from remem.controller.wiring import wire
from remem.controller.write_api import WriteAPI
from remem.failures import BackgroundFailure
from remem.graph import AccessTracker, EntityResolver, GraphScorer
from remem.models import Clock, SystemClock
from remem.staging import CollectionManager
from remem.stores.bundle import Stores
from remem.stores.episodic import EpisodicStore
from remem.stores.graph import GraphStore
from remem.stores.records import RecordStore
from remem.stores.transcript import TranscriptStore
from remem.stores.vector import VectorStore
from remem.writebehind import WriteBehind, WritePort


class MemoryController(WriteAPI, ReadAPI):
    """The memory engine's front door (see the module docstring): built and closed here, its
    writes in :class:`~remem.controller.write_api.WriteAPI`, its reads in
    :class:`~remem.controller.read_api.ReadAPI`."""

    def __init__(
        self,
        stores: Stores,
        collections: CollectionManager,
        *,
        writes: WritePort | None = None,
        graph: GraphServices | None = None,
        extractor: Extractor | None = None,
        config: ControllerConfig | None = None,
        clock: Clock | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        """``stores`` and ``collections`` (built on ``stores.vectors``); ``writes`` the write
        port (default: direct writes on the bundle); ``graph`` the resolver, the graph retriever
        and the access counter (default: a resolver only); ``config.priming`` the default of
        :meth:`prime`."""
        graph = graph if graph is not None else GraphServices()
        self._stores = stores
        self.collection_manager = collections
        self.telemetry = telemetry
        self.access_tracker: AccessTracker | None = graph.access
        self.graph_scorer: GraphScorer | None = graph.scorer
        self.config = config if config is not None else ControllerConfig()
        # The default of prime(): the config's (see PrimingConfig presets).
        self.priming: PrimingConfig = self.config.priming
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
        graph collaborators one by one, ``priming`` folded into ``config.priming``. Equal to
        bundling them yourself::

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
        if priming is not None:
            config = dataclasses.replace(
                config if config is not None else ControllerConfig(), priming=priming
            )
        return cls(
            stores,
            collection_manager,
            writes=writes,
            graph=GraphServices(entity_resolver, graph_scorer, access_tracker),
            extractor=extractor,
            config=config,
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
    def timezone(self) -> str:
        """The IANA timezone the episodic store groups calendar days in."""
        return self._stores.episodic.timezone

    @property
    def write_behind(self) -> WriteBehind | None:
        """The write-behind journal, when the write port is journaled."""
        # Every port says (WritePort.journal); a wrapper such as the Runtime's quiescence gate
        # passes on the journal of the port it wraps.
        return self.writes.journal

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

    def failures(self) -> list[BackgroundFailure]:
        """Every recorded background failure, oldest first: extraction batches (with their turn
        ids), compensations, vector clean-ups, episodic indexing and access-count flushes."""
        return self._books.failures()

    def record_failure(self, failure: BackgroundFailure) -> None:
        """Keep a failure of work done on the controller's behalf (e.g. consolidation) in the
        log :meth:`failures` shows."""
        self._failures.add(failure)
