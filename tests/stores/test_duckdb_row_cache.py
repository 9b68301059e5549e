"""DuckDBRecordStore's row cache: reads served from it always equal what DuckDB holds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from remem.errors import DuplicateIdError, NotFoundError
from remem.models import MemoryStage
from remem.stores.duckdb import DuckDBDatabase, DuckDBRecordStore
from remem.stores.duckdb.row_cache import RowCache
from remem.stores.record_rows import row_to_record
from tests.stores.factories import T0, record, rich_record


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[DuckDBRecordStore]:
    async with DuckDBRecordStore(DuckDBDatabase(tmp_path / "memory.duckdb")) as s:
        yield s


async def _uncached(store: DuckDBRecordStore, ids: list[str]) -> list[object]:
    store.database.record_rows.invalidate(ids)
    return list(await store.get(ids))


async def test_batched_supersession_is_seen_by_the_next_get(store: DuckDBRecordStore) -> None:
    await store.put([record(i) for i in range(3)])
    ids = [record(i).id for i in range(3)]
    await store.get(ids)  # warm
    later = T0 + timedelta(hours=1)
    await store.supersede_many([(ids[0], ids[2], later), (ids[1], ids[2], later)])
    got = await store.get(ids)
    assert got == await _uncached(store, ids)
    assert [r.superseded_by for r in got] == [ids[2], ids[2], None]


async def test_rich_rows_round_trip_through_the_cache(store: DuckDBRecordStore) -> None:
    recs = [rich_record(i) for i in range(5)]
    await store.put(recs)
    ids = [r.id for r in recs]
    first = await store.get(ids)  # fills the cache
    assert len(store.database.record_rows) == 5
    assert await store.get(ids) == first == recs
    again = await store.get(ids)
    assert again[0].metadata is not first[0].metadata  # no shared mutable state


async def test_every_write_is_seen_by_the_next_get(store: DuckDBRecordStore) -> None:
    await store.put([record(i) for i in range(4)])
    ids = [record(i).id for i in range(4)]
    await store.get(ids)
    later = T0 + timedelta(hours=1)
    await store.upsert([record(0, text="changed")])
    await store.update_lifecycle(
        [(ids[1], record(1).lifecycle.model_copy(update={"stage": MemoryStage.LONG_TERM}))]
    )
    await store.record_accesses([ids[2]], [0.5], later)
    await store.supersede(ids[3], ids[0], at=later)
    got = await store.get(ids)
    assert got == await _uncached(store, ids)
    assert got[0].text == "changed"
    assert got[1].lifecycle.stage is MemoryStage.LONG_TERM
    assert got[2].lifecycle.access_count == 1
    assert got[3].superseded_by == ids[0]
    await store.get(ids)
    assert await store.delete([ids[0]]) == 1
    with pytest.raises(NotFoundError):
        await store.get([ids[0]])


async def test_a_failed_write_leaves_reads_correct(store: DuckDBRecordStore) -> None:
    await store.put([record(0)])
    await store.get([record(0).id])
    with pytest.raises(DuplicateIdError):
        await store.put([record(0, text="dup")])
    assert (await store.get([record(0).id]))[0].text == "memory 0"


async def test_reads_racing_writes_never_keep_stale_rows(store: DuckDBRecordStore) -> None:
    await store.put([record(i) for i in range(20)])
    ids = [record(i).id for i in range(20)]
    for round_ in range(10):
        # Reads and writes queued together (writes group-commit): afterwards the cache must
        # hold nothing older than DuckDB.
        # The last read is queued before the writes, so it reads the old rows and returns
        # after the writes ran: it must not store them.
        store.database.record_rows.invalidate(ids)
        await asyncio.gather(
            store.get(ids),
            store.record_accesses(ids[::2], [0.5] * 10, T0 + timedelta(minutes=round_ + 1)),
            store.upsert([record(1, text=f"round {round_}")]),
        )
        assert await store.get(ids) == await _uncached(store, ids)


def test_store_skips_rows_read_across_a_write_and_evicts_oldest() -> None:
    cache = RowCache(limit=3)
    row = tuple(range(26))
    since = cache.generation
    cache.invalidate(["x"])
    cache.store({"a": row}, since=since)
    assert cache.lookup(["a"]) is None
    since = cache.generation
    cache.store({k: row for k in "abcd"}, since=since)
    assert len(cache) == 3
    assert cache.lookup(["a"]) is None
    assert cache.lookup(["b", "d"]) == [row, row]


def test_row_to_record_builds_equal_records() -> None:
    from remem.stores.duckdb.records import _db_row

    rec = rich_record(3)
    assert row_to_record(_db_row(rec)) == rec
