"""Stores bundle factories: each backend's real stores, opened in order, closed in reverse, and a
controller built on the bundle remembers, recalls and records turns through them."""

from __future__ import annotations

from pathlib import Path

import pytest

from remem.controller import MemoryController
from remem.embeddings import HashingEmbedder
from remem.errors import ConfigError, StoreClosedError
from remem.models import MemoryRecord
from remem.staging import CollectionManager
from remem.stores.bundle import Stores
from remem.stores.duckdb import DuckDBGraphStore, DuckDBRecordStore
from remem.stores.duckdb.blocks import DuckDBBlockStore
from remem.stores.hnsw import HnswVectorStore
from remem.stores.postgres.blocks import PostgresBlockStore
from remem.stores.postgres.episodic import PostgresEpisodicStore
from remem.stores.postgres.graph import PostgresGraphStore
from remem.stores.postgres.records import PostgresRecordStore
from remem.stores.postgres.transcript import PostgresTranscriptStore
from remem.stores.postgres.vector import PgVectorStore
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.sqlite.transcript import SQLiteTranscriptStore


async def _round_trip(stores: Stores) -> MemoryRecord:
    """A controller on the bundle: a memory and a turn written, recalled and read back."""
    async with (
        CollectionManager(stores.vectors, HashingEmbedder()) as collections,
        MemoryController(stores, collections) as c,
    ):
        memory = await c.remember("Ana keeps bees on her roof in Lisbon")
        turn = await c.record_turn("s1", "my bees swarmed today", "Oh no!")
        hits = await c.recall("who keeps bees?", k=5)
        assert memory.id in [h.record.id for h in hits]
        settled = await c.settled()
        assert settled is stores
        assert [r.id for r in await stores.records.scan()] == [memory.id]
        assert stores.transcript is not None
        assert [e.id for e in await stores.transcript.get_entries("s1")] == [turn.id]
        return memory


async def test_embedded_factory_builds_the_embedded_stores(tmp_path: Path) -> None:
    stores = Stores.embedded(tmp_path, timezone="Europe/Lisbon", durability="full")
    assert isinstance(stores.transcript, SQLiteTranscriptStore)
    assert isinstance(stores.episodic, SQLiteEpisodicStore)
    assert isinstance(stores.records, DuckDBRecordStore)
    assert isinstance(stores.graph, DuckDBGraphStore)
    assert isinstance(stores.blocks, DuckDBBlockStore)
    assert isinstance(stores.vectors, HnswVectorStore)
    assert stores.episodic.timezone == "Europe/Lisbon"
    assert stores.in_opening_order() == (
        stores.transcript,
        stores.episodic,
        stores.records,
        stores.graph,
        stores.blocks,
        stores.vectors,
    )
    async with stores:
        memory = await _round_trip(stores)
    for name in ("transcript.db", "episodic.db", "memory.duckdb", "vectors"):
        assert (tmp_path / name).exists(), name
    with pytest.raises(StoreClosedError):
        await stores.records.scan()
    async with Stores.embedded(tmp_path) as again:  # the files hold what was written
        assert [r.id for r in await again.records.scan()] == [memory.id]
        assert again.transcript is not None
        assert len(await again.transcript.get_entries("s1")) == 1


async def test_a_failed_open_closes_the_stores_already_opened(tmp_path: Path) -> None:
    (tmp_path / "vectors").write_text("a file where the vector directory should be")
    stores = Stores.embedded(tmp_path)
    with pytest.raises(OSError, match="File exists"):  # the vector store cannot make its dir
        await stores.open()
    for store in (stores.transcript, stores.records, stores.graph):
        assert store is not None
        with pytest.raises(StoreClosedError):
            await _use(store)


async def _use(store: object) -> None:
    if isinstance(store, SQLiteTranscriptStore):
        await store.list_sessions()
    elif isinstance(store, DuckDBRecordStore):
        await store.scan()
    elif isinstance(store, DuckDBGraphStore):
        await store.list_entities()


def test_a_bad_timezone_is_refused_before_any_store_is_built(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="IANA"):
        Stores.embedded(tmp_path, timezone="Mars/Olympus")
    with pytest.raises(ConfigError, match="IANA"):
        Stores.postgres("postgresql://localhost/none", timezone="Mars/Olympus")


async def test_the_controller_takes_a_bundle_and_its_vector_store(tmp_path: Path) -> None:
    stores = Stores.embedded(tmp_path)
    other = HnswVectorStore(tmp_path / "other")
    with pytest.raises(ConfigError, match=r"stores\.vectors"):
        MemoryController(stores, CollectionManager(other, HashingEmbedder()))
    with pytest.raises(ConfigError, match="from_parts"):
        MemoryController(
            stores.vectors,  # type: ignore[arg-type]  # the Friday positional signature
            CollectionManager(stores.vectors, HashingEmbedder()),
        )


@pytest.mark.postgres
async def test_postgres_factory_builds_the_postgres_stores(pg_dsn: str) -> None:
    stores = Stores.postgres(pg_dsn, timezone="Europe/Lisbon")
    assert isinstance(stores.transcript, PostgresTranscriptStore)
    assert isinstance(stores.episodic, PostgresEpisodicStore)
    assert isinstance(stores.records, PostgresRecordStore)
    assert isinstance(stores.graph, PostgresGraphStore)
    assert isinstance(stores.blocks, PostgresBlockStore)
    assert isinstance(stores.vectors, PgVectorStore)
    assert stores.episodic.timezone == "Europe/Lisbon"
    async with stores:
        memory = await _round_trip(stores)
    with pytest.raises(StoreClosedError):
        await stores.records.scan()
    async with Stores.postgres(pg_dsn) as again:
        assert [r.id for r in await again.records.scan()] == [memory.id]
