"""Stores: the stores one memory is built from, as one bundle, with a factory per backend.

A memory holds six stores: the transcript (source of truth for turns), the episodic full-text
index (turns and memory notes), the record store (source of truth for memories), the vector
store (under the collection manager), the graph and the core memory blocks. :class:`Stores`
carries them together so the controller, consolidation and the companion take ONE argument,
and :meth:`Stores.embedded` / :meth:`Stores.postgres` say in one place which class backs each
on each backend (:class:`remem.Runtime` picks one from its config).

The bundle is an async context manager: :meth:`open` opens the stores in order (transcript,
episodic, records, graph, blocks, vectors; a failure closes what was opened and re-raises) and
:meth:`aclose` closes them in reverse, each once. The bundle does not wait for a write-behind
journal: readers call the write port's barrier (:mod:`remem.writebehind.port`) themselves, or
get the bundle from ``await controller.settled()``.

Example::

    async with Stores.embedded(path) as stores:
        await stores.records.scan()

    stores = Stores.postgres("postgresql://localhost/remem", timezone="Europe/Lisbon")
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Self

from remem.stores.episodic import EpisodicStore, load_timezone
from remem.stores.graph import GraphStore
from remem.stores.records import RecordStore
from remem.stores.shared.search_text import DEFAULT_FULL_TEXT, FullTextConfig
from remem.stores.transcript import TranscriptStore
from remem.stores.vector import VectorStore

if TYPE_CHECKING:
    from remem.blocks import BlockStore

Durability = Literal["normal", "full"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Stores:
    """The stores of one memory (see the module docstring). ``transcript`` and ``blocks`` are
    optional for hand-built controllers (without a transcript, turn numbers come from the
    episodic index); the factories always fill every field."""

    episodic: EpisodicStore
    records: RecordStore
    graph: GraphStore
    vectors: VectorStore
    transcript: TranscriptStore | None = None
    blocks: BlockStore | None = None

    # -- factories --------------------------------------------------------------------------------

    @classmethod
    def embedded(
        cls,
        path: str | Path,
        *,
        timezone: str = "UTC",
        durability: Durability = "normal",
        full_text: FullTextConfig = DEFAULT_FULL_TEXT,
    ) -> Stores:
        """The embedded default in directory ``path`` (which must exist): SQLite
        ``transcript.db`` and ``episodic.db`` (FTS5), one DuckDB ``memory.duckdb`` for records,
        graph and blocks, hnswlib ``vectors/``. Nothing is opened yet."""
        from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
        from remem.stores.duckdb.blocks import DuckDBBlockStore
        from remem.stores.hnsw import HnswVectorStore
        from remem.stores.sqlite.episodic import SQLiteEpisodicStore
        from remem.stores.sqlite.transcript import SQLiteTranscriptStore

        load_timezone(timezone)  # a bad name fails here, before any store is built
        root = Path(path)
        db = DuckDBDatabase(root / "memory.duckdb")
        return cls(
            transcript=SQLiteTranscriptStore(root / "transcript.db", durability=durability),
            episodic=SQLiteEpisodicStore(
                root / "episodic.db",
                timezone=timezone,
                durability=durability,
                full_text=full_text,
            ),
            records=DuckDBRecordStore(db),
            graph=DuckDBGraphStore(db),
            blocks=DuckDBBlockStore(db),
            vectors=HnswVectorStore(root / "vectors"),
        )

    @classmethod
    def postgres(
        cls,
        dsn: str,
        *,
        timezone: str = "UTC",
        full_text: FullTextConfig = DEFAULT_FULL_TEXT,
    ) -> Stores:
        """Every store on the PostgreSQL database ``dsn`` (pgvector for the vectors). Nothing
        is opened (or connected) yet."""
        from remem.stores.postgres.blocks import PostgresBlockStore
        from remem.stores.postgres.episodic import PostgresEpisodicStore
        from remem.stores.postgres.graph import PostgresGraphStore
        from remem.stores.postgres.records import PostgresRecordStore
        from remem.stores.postgres.transcript import PostgresTranscriptStore
        from remem.stores.postgres.vector import PgVectorStore

        load_timezone(timezone)
        return cls(
            transcript=PostgresTranscriptStore(dsn),
            episodic=PostgresEpisodicStore(dsn, timezone=timezone, full_text=full_text),
            records=PostgresRecordStore(dsn),
            graph=PostgresGraphStore(dsn),
            blocks=PostgresBlockStore(dsn),
            vectors=PgVectorStore(dsn),
        )

    # -- lifecycle --------------------------------------------------------------------------------

    def in_opening_order(self) -> tuple[Any, ...]:
        """The stores present, in the order they open (they close in reverse). Every backend
        store has ``open()`` (the protocols only promise ``aclose()``: a store opens on first
        use when nobody opens it)."""
        stores = (
            self.transcript,
            self.episodic,
            self.records,
            self.graph,
            self.blocks,
            self.vectors,
        )
        return tuple(s for s in stores if s is not None)

    async def open(self) -> None:
        """Open every store in order; on a failure close the ones opened and re-raise."""
        opened: list[Any] = []
        try:
            for store in self.in_opening_order():
                await store.open()
                opened.append(store)
        except BaseException:
            await _close(opened)
            raise

    async def aclose(self) -> None:
        """Close every store in reverse opening order (each store's close is idempotent); the
        first failure is raised after all were tried."""
        await _close(list(self.in_opening_order()))

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


async def _close(stores: list[Any]) -> None:
    errors: list[BaseException] = []
    for store in reversed(stores):
        try:
            await store.aclose()
        except Exception as exc:
            errors.append(exc)
    if errors:
        raise errors[0]
