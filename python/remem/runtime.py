"""Runtime: a complete memory application from one directory, a TOML file or keyword arguments.

    async with remem.Runtime.open("./memory") as rt:
        await rt.controller.record_turn("s1", "I moved to Lisbon", "Noted!")
        hits = await rt.controller.recall("where do I live?")
        print(rt.describe())

Backends (see :class:`~remem.runtime_config.RuntimeConfig`):

* ``embedded`` (default): SQLite ``transcript.db`` + ``episodic.db`` (FTS5), one DuckDB file
  ``memory.duckdb`` for records and graph (one :class:`DuckDBDatabase`), ``vectors/``
  (:class:`HnswVectorStore`), ``moves.journal`` (:class:`FileMoveJournal`),
  ``writebehind.db`` (the write-behind journal: the write port, :mod:`remem.writebehind.port`,
  is :class:`JournaledWrites` with ``write_behind`` on, else :class:`DirectWrites`); the embedder is
  ``embedder=`` if given, else the one ``embedding_provider`` names (see below).
* ``postgres``: ``Postgres*`` stores and :class:`PgVectorStore` on ``dsn``. Decision: the move
  journal stays a file in ``path`` — :class:`MoveJournal` is synchronous (its ``begin`` must be
  durable before the first vector write, from inside the move), and a table would need a second,
  blocking connection; a move is also replayed idempotently by whichever process opens ``path``.

Embedder rule for ``embedding_provider = "auto"``: the bundled MiniLM when its weights are
installed (and ``embedding_dimension`` is 384), HashingEmbedder otherwise. A directory keeps the
model its collections were built with: each collection records its embedding model, so when the
staged collections already exist under the hashing embedder's model name, ``auto`` reopens them
with the hashing embedder (``describe()`` shows which) — nothing is re-embedded or wiped. To move
such a directory to MiniLM, re-embed it explicitly: ``remem reembed --model minilm``
(:mod:`remem.maintenance.reembed`), which builds a new collection generation and switches
:mod:`remem.staging.generation`'s pointer; ``Runtime.open`` on a model mismatch says so.
A directory built with MiniLM and opened where MiniLM is missing fails with the store's
model-mismatch error instead of silently switching. The bundled MiniLM runs in bf16 on a CPU
with AVX512_BF16 and in float32 elsewhere (``precision="auto"``,
:func:`~remem.embeddings.sentence_transformer.resolve_precision`); a directory keeps the
precision its collections were built with (under ``auto`` and ``minilm``), on any CPU.

The stores are a :class:`~remem.stores.bundle.Stores` bundle (``rt.stores``) made by its backend
factory (:meth:`Stores.embedded` or :meth:`Stores.postgres`). They open in order (transcript,
episodic, records, graph, blocks, vectors), then collections, and close in reverse; a failure
while opening closes what was opened. The lifecycle manager (no background work unless the
application starts it) is ``rt.lifecycle``, opened last.

Core memory blocks persist beside the data (:class:`DuckDBBlockStore` in ``memory.duckdb``, or
:class:`PostgresBlockStore`), opened after the graph: ``rt.block_store``, and
``await rt.blocks("ada")`` loads a namespace's :class:`~remem.blocks.CoreMemory`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from remem.blocks import BlockStore, CoreMemory, CoreMemoryConfig
from remem.blocks.gated import GatedBlockStore
from remem.consolidation import MemoryConsolidator
from remem.controller import Extractor, MemoryController, decay_rescore
from remem.controller.graph_services import GraphServices
from remem.embeddings import (
    MINILM_MODEL_NAME,
    EmbeddingService,
    HashingEmbedder,
    SentenceTransformerEmbedder,
)
from remem.errors import ConfigError, EmbeddingModelMismatchError, StoreClosedError
from remem.failures import FailureLog
from remem.graph import AccessTracker, EntityResolver, GraphScorer
from remem.graph.gated import GatedGraphStore
from remem.lifecycle import DecayCalculator, FilePlanJournal, LifecycleManager
from remem.models import Clock, SystemClock
from remem.recovery.gated_records import GatedRecordStore
from remem.recovery.gated_transcript import GatedTranscriptStore
from remem.recovery.quiescence import (
    Gate,
    GatedWrites,
    QuiescenceToken,
    quiesce,
    runtime_participants,
)
from remem.runtime_config import RuntimeConfig
from remem.staging import STAGED, CollectionManager, FileMoveJournal, StagingConfig
from remem.staging.generation import read_generation
from remem.stores.bundle import Stores
from remem.stores.records import RecordStore
from remem.stores.vector import VectorStore
from remem.writebehind import DirectWrites, JournaledWrites, JournalFile, WritePort

MINILM_DIMENSION = 384


def provider_embedder(provider: str, dimension: int = MINILM_DIMENSION) -> EmbeddingService:
    """The embedder ``embedding_provider`` names, for a new directory (see the module docs for
    ``auto`` on an existing one): ``hashing``, ``minilm`` (ConfigError without its weights), or
    ``auto`` = MiniLM when installed and ``dimension`` is 384, else hashing."""
    if provider == "hashing":
        return HashingEmbedder(dimension=dimension)
    if provider == "minilm":
        return SentenceTransformerEmbedder.bundled_minilm()
    if dimension != MINILM_DIMENSION:
        return HashingEmbedder(dimension=dimension)
    try:
        return SentenceTransformerEmbedder.bundled_minilm()
    except ConfigError:  # weights (or tokenizers/safetensors) not installed
        return HashingEmbedder(dimension=dimension)


class Runtime:
    """Owns the stores, the embedder and the controller of one memory (see module docstring)."""

    def __init__(
        self,
        config: RuntimeConfig,
        *,
        embedder: EmbeddingService | None = None,
        extractor: Extractor | None = None,
        clock: Clock | None = None,
        generation: str | None = None,
    ) -> None:
        """``generation``: the collection prefix to open instead of the directory's pointer
        (:mod:`remem.staging.generation`) — how ``remem reembed`` builds a new generation."""
        self.config = config
        self._generation = generation
        self.clock: Clock = clock if clock is not None else SystemClock()
        # `auto` may still fall back to hashing once the stored collections are seen (_build).
        self._auto_embedder = embedder is None and config.embedding_provider == "auto"
        # The provider's embedder (not one passed in) may follow the stored collections' model.
        self._provided_embedder = embedder is None
        self.embedder: EmbeddingService = embedder or self._default_embedder()
        self.extractor = extractor
        self._controller: MemoryController | None = None
        self._stores: Stores | None = None
        self._closers: list[Any] = []
        self.lifecycle: LifecycleManager | None = None
        self._gated: GatedWrites | None = None
        # The quiescence token's gates for the writes that bypass the write port (rt.quiesce()).
        self._block_gate = Gate()
        self._graph_gate = Gate()
        self._record_gate = Gate()
        self._session_gate = Gate()
        self._tracker: AccessTracker | None = None
        self._closed = False

    # -- construction -----------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path = "./memory",
        *,
        embedder: EmbeddingService | None = None,
        extractor: Extractor | None = None,
        clock: Clock | None = None,
        config: RuntimeConfig | None = None,
        **overrides: Any,
    ) -> Runtime:
        """A runtime on ``path``; use ``async with`` (or ``await rt.start()``). ``overrides`` are
        RuntimeConfig fields (``backend="postgres", dsn=...``)."""
        base = config if config is not None else RuntimeConfig(path=Path(path))
        try:
            cfg = RuntimeConfig(**{**_fields(base), "path": Path(path), **overrides})
        except TypeError as exc:
            raise ConfigError(f"unknown Runtime option: {exc}") from exc
        return cls(cfg, embedder=embedder, extractor=extractor, clock=clock)

    @classmethod
    def from_toml(
        cls,
        file: str | Path,
        *,
        embedder: EmbeddingService | None = None,
        extractor: Extractor | None = None,
        clock: Clock | None = None,
        **overrides: Any,
    ) -> Runtime:
        return cls(
            RuntimeConfig.from_toml(file, **overrides),
            embedder=embedder,
            extractor=extractor,
            clock=clock,
        )

    def _provider_name(self) -> str:
        """The ``embedding_provider`` value that names the embedder in use."""
        if isinstance(self.embedder, HashingEmbedder):
            return "hashing"
        provider = self.config.embedding_provider
        return "minilm" if provider == "auto" else provider

    def _default_embedder(self) -> EmbeddingService:
        return provider_embedder(self.config.embedding_provider, self.config.embedding_dimension)

    async def _keep_stored_model(self, vectors: VectorStore, prefix: str) -> None:
        """Reopen the active generation's collections with the model they were built by, when
        the provider's choice is another form of it: under ``auto``, collections built by the
        hashing embedder keep it; under ``auto`` or ``minilm``, collections built by the bundled
        MiniLM at the other precision (float32 / bfloat16: ``precision="auto"`` differs between
        CPUs) keep theirs. Anything else is left to the store's model-mismatch error."""
        if not self._provided_embedder:
            return
        names = {f"{prefix}_{stage.value}" for stage in STAGED}
        stored = {i.model_name for i in await vectors.list_collections() if i.name in names}
        if not stored or self.embedder.model_name in stored:
            return
        for other in self._stored_alternatives():
            if other.model_name in stored:
                self.embedder = other
                return

    def _stored_alternatives(self) -> list[EmbeddingService]:
        """The embedders a directory may have been built with instead of the provider's."""
        out: list[EmbeddingService] = []
        current = self.embedder
        if isinstance(current, SentenceTransformerEmbedder) and current.model_name.startswith(
            MINILM_MODEL_NAME
        ):
            other = "float32" if current.precision == "bfloat16" else "bfloat16"
            out.append(SentenceTransformerEmbedder.bundled_minilm(precision=other))
        if self._auto_embedder and not isinstance(current, HashingEmbedder):
            out.append(HashingEmbedder(dimension=self.config.embedding_dimension))
        return out

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def controller(self) -> MemoryController:
        if self._controller is None:
            raise StoreClosedError(
                "the Runtime is not started (use `async with Runtime.open(...)`) or was closed"
            )
        return self._controller

    @property
    def stores(self) -> Stores:
        """The stores of this memory (graph and blocks behind the quiescence gates, the others
        bare): with write-behind on, a read must follow
        ``await rt.controller.settled()`` (or use what it returns) to see every acknowledged
        write."""
        if self._stores is None:
            raise StoreClosedError(
                "the Runtime is not started (use `async with Runtime.open(...)`) or was closed"
            )
        return self._stores

    @property
    def block_store(self) -> BlockStore:
        """Where core memory blocks persist (same database as the records)."""
        blocks = self.stores.blocks
        assert blocks is not None  # both factories build one
        return blocks

    async def blocks(
        self, namespace: str = "default", config: CoreMemoryConfig | None = None
    ) -> CoreMemory:
        """The core memory blocks of ``namespace``, loaded from :attr:`block_store`."""
        return await CoreMemory.load(self.block_store, namespace, config)

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def start(self) -> Self:
        if self._closed:
            raise StoreClosedError("this Runtime was closed; open a new one")
        if self._controller is not None:
            return self
        try:
            await self._build()
        except EmbeddingModelMismatchError as exc:
            await self._close_all()
            # The store's own advice (reembed=True empties it) is not a Runtime option.
            what = str(exc).split(";")[0]
            raise EmbeddingModelMismatchError(
                f"{what}; open it with that model, or move it to {self.embedder.model_name!r} "
                f"keeping every memory: `remem reembed --dir {self.config.path} --model "
                f"{self._provider_name()}` (a snapshot first, then a validated switch)"
            ) from exc
        except BaseException:
            await self._close_all()
            raise
        return self

    async def _opened(self, store: Any) -> Any:
        await store.open()
        self._closers.append(store)
        return store

    async def _build(self) -> None:
        cfg = self.config
        try:
            cfg.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file in the way, no permission, a read-only disk
            raise ConfigError(
                f"path {str(cfg.path)!r} cannot be a memory directory ({exc.strerror}); "
                "pass a directory path (it is created if missing)"
            ) from exc
        stores = self._gate_direct_writes(self._new_stores())
        await self._opened(stores)  # in order; closed in reverse after everything built on them
        self._stores = stores
        vectors, records, graph = stores.vectors, stores.records, stores.graph
        # `remem reembed` switches the generation (remem.staging.generation).
        prefix = self._generation or read_generation(cfg.path).prefix
        await self._keep_stored_model(vectors, prefix)
        collections = CollectionManager(
            vectors,
            self.embedder,
            config=StagingConfig(prefix=prefix),
            journal=FileMoveJournal(cfg.path / "moves.journal"),
        )
        await self._opened(collections)
        direct = DirectWrites(
            transcript_store=stores.transcript,
            episodic_store=stores.episodic,
            record_store=records,
            collection_manager=collections,
            failures=FailureLog(),
            now=self.clock.now,
        )
        writes: WritePort = direct
        if cfg.uses_write_behind:
            writes = JournaledWrites(
                JournalFile(cfg.path / "writebehind.db", durability=cfg.durability),
                direct,
                dimension=self.embedder.dimension,
            )
        # The quiescence token's write gate (rt.quiesce()); barrier and failures pass through.
        writes = self._gated = GatedWrites(writes)
        # Closed after the controller (whose extraction drain may still remember) and before the
        # stores it writes; opening replays what a crash left journaled. Every reader below
        # awaits its barrier before reading (no store is wrapped).
        await self._opened(writes)
        decay = DecayCalculator(cfg.controller.decay)
        tracker = AccessTracker(
            graph, records, rescore=decay_rescore(records, decay), clock=self.clock
        )
        self._controller = MemoryController(
            stores,
            collections,
            writes=writes,
            graph=GraphServices(
                resolver=EntityResolver(graph, clock=self.clock),
                scorer=GraphScorer(graph, clock=self.clock),
                access=tracker,
            ),
            extractor=self.extractor,
            # RuntimeConfig.priming ([memory.priming]) is the controller's; a multi-scope
            # runtime makes its controller refuse unscoped reads and writes.
            config=dataclasses.replace(
                cfg.controller,
                priming=cfg.priming,
                scopes="multi" if cfg.scopes != "single" else cfg.controller.scopes,
            ),
            clock=self.clock,
        )
        self._closers.append(self._controller)
        if self.extractor is not None and cfg.controller.extraction.supersede:
            # A new keyed fact ends the one it contradicts as soon as its batch is applied.
            consolidator = MemoryConsolidator(
                self._controller, timezone=self._controller.timezone or "UTC"
            )
            self._controller.after_extraction(consolidator.supersede_contradictions)
        self._tracker = tracker
        await self._attach_lifecycle(records, collections, writes)

    async def _attach_lifecycle(
        self, records: RecordStore, collections: CollectionManager, writes: WritePort
    ) -> None:
        """Open the lifecycle manager (completing any plan a crash interrupted).

        Nothing runs in the background: the application previews and executes plans, or calls
        ``rt.lifecycle.start_maintenance(interval)`` itself.
        """
        manager = LifecycleManager(
            records,
            collections,
            decay=self.config.controller.decay,
            clock=self.clock,
            journal=FilePlanJournal(self.config.path / "lifecycle.journal"),
            barrier=writes,
        )
        self.lifecycle = await self._opened(manager)

    def _gate_direct_writes(self, stores: Stores) -> Stores:
        """The bundle with its block, graph and record stores behind the quiescence gates:
        every consumer (controller, extraction, consolidation, lifecycle, companion, service,
        LangGraph store) gets its stores from this bundle, so no block commit, graph write or
        record update (``forget``, ``supersede``) or new session escapes a held token."""
        assert stores.blocks is not None  # both factories build one
        assert stores.transcript is not None
        return dataclasses.replace(
            stores,
            transcript=GatedTranscriptStore(stores.transcript, self._session_gate.passage),  # type: ignore[arg-type]
            records=GatedRecordStore(stores.records, self._record_gate.passage),  # type: ignore[arg-type]
            graph=GatedGraphStore(stores.graph, self._graph_gate.passage),  # type: ignore[arg-type]
            blocks=GatedBlockStore(stores.blocks, self._block_gate.passage),  # type: ignore[arg-type]
        )

    def _new_stores(self) -> Stores:
        cfg = self.config
        if cfg.backend == "postgres":
            assert cfg.dsn is not None  # RuntimeConfig checks it
            return Stores.postgres(cfg.dsn, timezone=cfg.timezone, full_text=cfg.full_text)
        return Stores.embedded(
            cfg.path, timezone=cfg.timezone, durability=cfg.durability, full_text=cfg.full_text
        )

    async def aclose(self) -> None:
        """Close the controller, then every store in reverse opening order; idempotent."""
        if self._closed:
            return
        self._closed = True
        await self._close_all()

    async def _close_all(self) -> None:
        errors: list[BaseException] = []
        while self._closers:
            item = self._closers.pop()
            try:
                await item.aclose()
            except Exception as exc:
                errors.append(exc)
        self._controller = None
        self._stores = None
        if errors:
            raise errors[0]

    def quiesce(
        self, *, pause_timeout: float = 30.0
    ) -> contextlib.AbstractAsyncContextManager[QuiescenceToken]:
        """Hold the memory still — compaction stopped, extraction drained, writes held at the
        gate (port writes, core block commits, graph writes, record updates), access counts
        flushed and held —
        for an ``async with`` block; released on every path (see
        :mod:`remem.recovery.quiescence`). The token names this memory (``token.memory``: the
        directory, or the DSN's host/port/database/schema); a recovery operation given it for
        another memory refuses with ``ForeignTokenError``::

            async with rt.quiesce() as token:
                ...  # nothing writes the stores here
        """
        controller = self.controller  # StoreClosedError before start / after close
        return quiesce(
            runtime_participants(
                lifecycle=self.lifecycle,
                drain_extraction=controller.flush_extraction,
                writes=self._gated,
                blocks=self._block_gate,
                graph=self._graph_gate,
                access=self._tracker,
                records=self._record_gate,
                sessions=self._session_gate,
            ),
            memory=self._identity_location(),
            pause_timeout=pause_timeout,
        )

    def _identity_location(self) -> str | Path:
        """Where this memory lives, as its quiescence token names it: the DSN or the path."""
        cfg = self.config
        return cfg.dsn if cfg.backend == "postgres" and cfg.dsn is not None else cfg.path

    # -- inspection -----------------------------------------------------------------------------

    def describe(self) -> str:
        """The effective configuration, including the embedder actually in use."""
        lines = self.config.describe().splitlines()
        lines.insert(
            lines.index(f"embeddings.provider = {self.config.embedding_provider}"),
            f"embeddings.model = {self.embedder.model_name}",
        )
        return "\n".join(lines)


def _fields(config: RuntimeConfig) -> dict[str, Any]:
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
