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
such a directory to MiniLM, re-embed it explicitly (``create_collection(..., reembed=True)``).
A directory built with MiniLM and opened where MiniLM is missing fails with the store's
model-mismatch error instead of silently switching.

Stores open in order (transcript, episodic, records, graph, blocks, vectors, collections) and
close in reverse; a failure while opening closes what was opened. The lifecycle manager (no
background work unless the application starts it) is ``rt.lifecycle``, opened last.

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
from remem.controller import Extractor, MemoryController, decay_rescore
from remem.embeddings import EmbeddingService, HashingEmbedder, SentenceTransformerEmbedder
from remem.errors import ConfigError, StoreClosedError
from remem.failures import FailureLog
from remem.graph import AccessTracker, EntityResolver, GraphScorer
from remem.lifecycle import DecayCalculator, FilePlanJournal, LifecycleManager
from remem.models import Clock, SystemClock
from remem.recovery.quiescence import GatedWrites, QuiescenceToken, quiesce, runtime_participants
from remem.runtime_config import RuntimeConfig
from remem.staging import CollectionManager, FileMoveJournal
from remem.stores.episodic import EpisodicStore
from remem.stores.graph import GraphStore
from remem.stores.records import RecordStore
from remem.stores.transcript import TranscriptStore
from remem.stores.vector import VectorStore
from remem.writebehind import DirectWrites, JournaledWrites, JournalFile, WritePort, behind

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
    ) -> None:
        self.config = config
        self.clock: Clock = clock if clock is not None else SystemClock()
        # `auto` may still fall back to hashing once the stored collections are seen (_build).
        self._auto_embedder = embedder is None and config.embedding_provider == "auto"
        self.embedder: EmbeddingService = embedder or self._default_embedder()
        self.extractor = extractor
        self._controller: MemoryController | None = None
        self._block_store: BlockStore | None = None
        self._closers: list[Any] = []
        self.lifecycle: LifecycleManager | None = None
        self._gated: GatedWrites | None = None
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

    def _default_embedder(self) -> EmbeddingService:
        return provider_embedder(self.config.embedding_provider, self.config.embedding_dimension)

    async def _keep_stored_model(self, vectors: VectorStore) -> None:
        """Under ``auto``: reopen collections built by the hashing embedder with it."""
        if not self._auto_embedder or isinstance(self.embedder, HashingEmbedder):
            return
        hashing = HashingEmbedder(dimension=self.config.embedding_dimension)
        stored = {info.model_name for info in await vectors.list_collections()}
        if hashing.model_name in stored and self.embedder.model_name not in stored:
            self.embedder = hashing

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def controller(self) -> MemoryController:
        if self._controller is None:
            raise StoreClosedError(
                "the Runtime is not started (use `async with Runtime.open(...)`) or was closed"
            )
        return self._controller

    @property
    def block_store(self) -> BlockStore:
        """Where core memory blocks persist (same database as the records)."""
        if self._block_store is None:
            raise StoreClosedError(
                "the Runtime is not started (use `async with Runtime.open(...)`) or was closed"
            )
        return self._block_store

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
        transcript, episodic, records, graph, blocks, vectors = self._stores()
        for store in (transcript, episodic, records, graph, blocks, vectors):
            await self._opened(store)
        await self._keep_stored_model(vectors)
        self._block_store = blocks
        collections = CollectionManager(
            vectors, self.embedder, journal=FileMoveJournal(cfg.path / "moves.journal")
        )
        await self._opened(collections)
        direct = DirectWrites(
            transcript_store=transcript,
            episodic_store=episodic,
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
            # The port writes the bare stores; every reader below gets them through its barrier.
            transcript, episodic = behind(transcript, writes), behind(episodic, writes)
            records, collections = behind(records, writes), behind(collections, writes)
        # The quiescence token's write gate (rt.quiesce()); barrier and failures pass through.
        writes = self._gated = GatedWrites(writes)
        # Closed after the controller (whose extraction drain may still remember) and before the
        # stores it writes; opening replays what a crash left journaled.
        await self._opened(writes)
        decay = DecayCalculator(cfg.controller.decay)
        tracker = AccessTracker(
            graph, records, rescore=decay_rescore(records, decay), clock=self.clock
        )
        self._controller = MemoryController(
            vectors,
            graph,
            episodic,
            collections,
            record_store=records,
            access_tracker=tracker,
            graph_scorer=GraphScorer(graph, clock=self.clock),
            transcript_store=transcript,
            entity_resolver=EntityResolver(graph, clock=self.clock),
            extractor=self.extractor,
            config=cfg.controller,
            priming=cfg.priming,
            clock=self.clock,
            writes=writes,
        )
        self._closers.append(self._controller)
        self._tracker = tracker
        await self._attach_lifecycle(records, collections)

    async def _attach_lifecycle(self, records: RecordStore, collections: CollectionManager) -> None:
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
        )
        self.lifecycle = await self._opened(manager)

    def _stores(
        self,
    ) -> tuple[TranscriptStore, EpisodicStore, RecordStore, GraphStore, BlockStore, VectorStore]:
        cfg = self.config
        if cfg.backend == "postgres":
            from remem.stores.postgres.blocks import PostgresBlockStore
            from remem.stores.postgres.episodic import PostgresEpisodicStore
            from remem.stores.postgres.graph import PostgresGraphStore
            from remem.stores.postgres.records import PostgresRecordStore
            from remem.stores.postgres.transcript import PostgresTranscriptStore
            from remem.stores.postgres.vector import PgVectorStore

            dsn = cfg.dsn
            assert dsn is not None  # RuntimeConfig checks it
            return (
                PostgresTranscriptStore(dsn),
                PostgresEpisodicStore(dsn, timezone=cfg.timezone, full_text=cfg.full_text),
                PostgresRecordStore(dsn),
                PostgresGraphStore(dsn),
                PostgresBlockStore(dsn),
                PgVectorStore(dsn),
            )
        from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
        from remem.stores.duckdb.blocks import DuckDBBlockStore
        from remem.stores.hnsw import HnswVectorStore
        from remem.stores.sqlite.episodic import SQLiteEpisodicStore
        from remem.stores.sqlite.transcript import SQLiteTranscriptStore

        db = DuckDBDatabase(cfg.path / "memory.duckdb")
        return (
            SQLiteTranscriptStore(cfg.path / "transcript.db", durability=cfg.durability),
            SQLiteEpisodicStore(
                cfg.path / "episodic.db",
                timezone=cfg.timezone,
                durability=cfg.durability,
                full_text=cfg.full_text,
            ),
            DuckDBRecordStore(db),
            DuckDBGraphStore(db),
            DuckDBBlockStore(db),
            HnswVectorStore(cfg.path / "vectors"),
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
        self._block_store = None
        if errors:
            raise errors[0]

    def quiesce(
        self, *, pause_timeout: float = 30.0
    ) -> contextlib.AbstractAsyncContextManager[QuiescenceToken]:
        """Hold the memory still — compaction stopped, extraction drained, writes held at the
        gate, access counts flushed and held — for an ``async with`` block; released on every
        path (see :mod:`remem.recovery.quiescence`)::

            async with rt.quiesce() as token:
                ...  # nothing writes the stores here
        """
        controller = self.controller  # StoreClosedError before start / after close
        return quiesce(
            runtime_participants(
                lifecycle=self.lifecycle,
                drain_extraction=controller.flush_extraction,
                writes=self._gated,
                access=self._tracker,
            ),
            pause_timeout=pause_timeout,
        )

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
