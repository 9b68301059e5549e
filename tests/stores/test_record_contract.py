"""RecordStore parity suite: every backend (DuckDB file, real PostgreSQL) behaves identically."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from remem.errors import (
    DuplicateIdError,
    InvalidArgumentError,
    NaiveDatetimeError,
    NonFiniteError,
    NotFoundError,
    ShapeError,
    StoreClosedError,
)
from remem.models import MemoryKind, MemoryRecord, MemoryStage
from remem.stores import GraphStore, RecordStore
from remem.stores.base.records import RecordStoreBase
from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
from remem.stores.postgres.graph import PostgresGraphStore
from remem.stores.postgres.records import PostgresRecordStore
from tests.stores.factories import T0, entity, lifecycle, record, rel, rich_record

BACKENDS = ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]
Pair = tuple[RecordStore, GraphStore]


@pytest.fixture(params=BACKENDS)
async def stores(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Pair]:
    if request.param == "duckdb":
        db = DuckDBDatabase(tmp_path / "memory.duckdb")
        async with DuckDBRecordStore(db) as records, DuckDBGraphStore(db) as graph:
            yield records, graph
    else:
        dsn = request.getfixturevalue("pg_dsn")
        async with PostgresRecordStore(dsn) as records, PostgresGraphStore(dsn) as graph:
            yield records, graph


@pytest.fixture
def store(stores: Pair) -> RecordStore:
    return stores[0]


@contextlib.asynccontextmanager
async def record_store_of(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[RecordStore]:
    """The record store alone of a fixture parametrised by :data:`BACKENDS`."""
    if request.param == "duckdb":
        async with DuckDBRecordStore(DuckDBDatabase(tmp_path / "memory.duckdb")) as records:
            yield records
    else:
        async with PostgresRecordStore(request.getfixturevalue("pg_dsn")) as records:
            yield records


async def snapshot(store: RecordStore) -> list[MemoryRecord]:
    return await store.scan(include_superseded=True)


async def test_protocol_and_exact_round_trip(store: RecordStore) -> None:
    assert isinstance(store, RecordStore)
    rich = [rich_record(i) for i in range(3)]
    big = record(1, text="大" * (1 << 20))  # 1 M characters, 3 MB of UTF-8
    await store.put([*rich, big])
    got = await store.get([r.id for r in rich] + [big.id])
    assert got == [*rich, big]
    assert got[0].lifecycle.created_at.tzinfo is not None
    assert got[0].lifecycle.created_at.utcoffset() == timedelta(0)
    assert got[0].lifecycle.accessed_at == rich[0].lifecycle.accessed_at  # microseconds kept


async def test_get_shared_equals_get_after_every_write(store: RecordStore) -> None:
    assert isinstance(store, RecordStoreBase)
    recs = [rich_record(i) for i in range(4)]
    await store.put(recs)
    ids = [r.id for r in recs]
    assert await store.get_shared([]) == {}
    with pytest.raises(InvalidArgumentError):
        await store.get_shared(ids[0])
    got = await store.get_shared([ids[2], "gone", *ids, ids[1]])
    assert list(got) == [ids[2], *ids[:2], ids[3]]  # first asked order, missing left out
    assert list(got.values()) == await store.get(list(got))
    later = T0 + timedelta(hours=1)
    await store.upsert([rich_record(0).model_copy(update={"text": "changed"})])
    await store.record_accesses([ids[1]], [0.5], later)
    await store.supersede(ids[3], ids[0], at=later)
    await store.delete([ids[2]])
    got = await store.get_shared(ids)
    assert list(got) == [ids[0], ids[1], ids[3]]
    assert list(got.values()) == await store.get(list(got))
    count = recs[1].lifecycle.access_count
    assert got[ids[0]].text == "changed"
    assert got[ids[1]].lifecycle.access_count == count + 1
    assert got[ids[3]].superseded_by == ids[0]


async def test_small_and_bulk_puts_store_the_same_rows(store: RecordStore) -> None:
    # DuckDB binds parameters for a few rows and scans a numpy view for a bulk batch: both
    # must store exactly the same values (lists, JSON, unicode, microseconds, None).
    rich = [rich_record(i) for i in range(20)]
    plain = record(99, session_id=None, entity_ids=(), metadata={})
    await store.put(rich[:1])
    await store.put([*rich[1:3], plain])
    await store.put(rich[3:])
    assert await store.get([r.id for r in rich] + [plain.id]) == [*rich, plain]
    with pytest.raises(DuplicateIdError, match="rich-19"):
        await store.put([record(100), rich[19]])
    assert await store.count() == 21


async def test_non_utc_input_comes_back_as_the_same_instant_in_utc(store: RecordStore) -> None:
    tz = timezone(timedelta(hours=5, minutes=30))
    local = datetime(2024, 1, 1, 12, 0, 0, 654321, tzinfo=tz)
    r = record(1, lifecycle=lifecycle(created_at=local, score_reference_time=local))
    await store.put([r])
    (got,) = await store.get([r.id])
    assert got.lifecycle.created_at == local
    assert got.lifecycle.created_at.utcoffset() == timedelta(0)
    assert got.lifecycle.created_at.microsecond == 654321


async def test_put_duplicate_writes_nothing(store: RecordStore) -> None:
    await store.put([record(1), record(2)])
    before = await snapshot(store)
    with pytest.raises(DuplicateIdError, match="rec-00002"):
        await store.put([record(3), record(2, text="changed")])
    with pytest.raises(DuplicateIdError, match="rec-00004"):
        await store.put([record(4), record(4)])
    assert await snapshot(store) == before
    await store.put([])
    assert await store.count() == 2


async def test_bad_input_is_typed_and_changes_nothing(store: RecordStore) -> None:
    await store.put([record(1)])
    before = await snapshot(store)
    with pytest.raises(InvalidArgumentError):
        await store.put([record(2), "not a record"])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError):
        await store.get("rec-00001")
    with pytest.raises(NaiveDatetimeError):
        await store.record_accesses(["rec-00001"], [0.5], datetime(2025, 1, 1))
    with pytest.raises(NonFiniteError):
        await store.record_accesses(["rec-00001"], [math.nan], T0 + timedelta(days=1))
    with pytest.raises(InvalidArgumentError):
        await store.record_accesses(["rec-00001"], [1.5], T0 + timedelta(days=1))
    with pytest.raises(ShapeError):
        await store.record_accesses(["rec-00001"], [0.5, 0.5], T0 + timedelta(days=1))
    with pytest.raises(InvalidArgumentError, match="before the creation"):
        await store.record_accesses(["rec-00001"], [0.5], T0 - timedelta(days=1))
    with pytest.raises(InvalidArgumentError, match="unknown MemoryStage"):
        await store.scan(stages=["nope"])  # type: ignore[list-item]
    assert await snapshot(store) == before


async def test_upsert_replaces_and_last_in_batch_wins(store: RecordStore) -> None:
    await store.put([record(1), record(2)])
    await store.upsert([record(2, text="v2"), record(3), record(2, text="v3")])
    got = await store.get(["rec-00001", "rec-00002", "rec-00003"])
    assert [r.text for r in got] == ["memory 1", "v3", "memory 3"]


async def test_get_keeps_order_and_names_missing(store: RecordStore) -> None:
    await store.put([record(i) for i in range(5)])
    got = await store.get(["rec-00003", "rec-00000", "rec-00003"])
    assert [r.id for r in got] == ["rec-00003", "rec-00000", "rec-00003"]
    with pytest.raises(NotFoundError, match=r"nope-1.*nope-2"):
        await store.get(["rec-00001", "nope-1", "nope-2"])
    assert await store.get([]) == []


async def test_scan_filters_and_order(store: RecordStore) -> None:
    recs = [
        record(3, kind=MemoryKind.EVENT),
        record(1, namespace="other"),
        record(2, lifecycle=lifecycle(2, stage=MemoryStage.LONG_TERM)),
        record(0),
    ]
    await store.put(recs)
    await store.supersede("rec-00000", "rec-00003", at=T0 + timedelta(days=1))
    ids = [r.id for r in await store.scan()]
    assert ids == ["rec-00001", "rec-00002", "rec-00003"]  # created order, superseded hidden
    all_ids = [r.id for r in await store.scan(include_superseded=True)]
    assert all_ids == ["rec-00000", "rec-00001", "rec-00002", "rec-00003"]
    assert [r.id for r in await store.scan(stages=[MemoryStage.LONG_TERM])] == ["rec-00002"]
    assert [r.id for r in await store.scan(kinds=[MemoryKind.EVENT])] == ["rec-00003"]
    assert [r.id for r in await store.scan(namespace="other")] == ["rec-00001"]
    assert await store.scan(stages=[]) == []
    assert await store.count() == 4
    assert await store.count(stages=[MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM]) == 4
    assert await store.count(stages=[MemoryStage.DECAYED]) == 0


async def test_update_lifecycle_is_atomic(store: RecordStore) -> None:
    await store.put([record(i) for i in range(3)])
    before = await snapshot(store)
    new = lifecycle(0, stage=MemoryStage.DECAYED, base_score=0.25, protected=True)
    with pytest.raises(NotFoundError, match="ghost"):
        await store.update_lifecycle([("rec-00000", new), ("ghost", new)])
    assert await snapshot(store) == before
    with pytest.raises(InvalidArgumentError, match="more than once"):
        await store.update_lifecycle([("rec-00000", new), ("rec-00000", new)])
    await store.update_lifecycle([("rec-00000", new), ("rec-00001", lifecycle(1, access_count=9))])
    got = await store.get(["rec-00000", "rec-00001", "rec-00002"])
    assert got[0].lifecycle == new
    assert got[1].lifecycle.access_count == 9
    assert got[2] == before[2]


async def test_record_accesses_is_set_based(store: RecordStore) -> None:
    await store.put([record(i) for i in range(3)])
    at = T0 + timedelta(days=3, microseconds=17)
    before = await snapshot(store)
    with pytest.raises(NotFoundError):
        await store.record_accesses(["rec-00000", "ghost"], [0.1, 0.2], at)
    assert await snapshot(store) == before
    await store.record_accesses(["rec-00002", "rec-00000"], [0.9, 0.4], at)
    await store.record_accesses(["rec-00000"], [0.5], at + timedelta(seconds=1))
    a, b, c = await store.get(["rec-00000", "rec-00001", "rec-00002"])
    assert (a.lifecycle.access_count, a.lifecycle.base_score) == (2, 0.5)
    assert a.lifecycle.accessed_at == a.lifecycle.score_reference_time == at + timedelta(seconds=1)
    assert b == before[1]
    assert (c.lifecycle.access_count, c.lifecycle.base_score, c.lifecycle.accessed_at) == (
        1,
        0.9,
        at,
    )


async def test_supersede_rules(store: RecordStore) -> None:
    await store.put([record(1), record(2), record(3)])
    at = T0 + timedelta(days=1)
    with pytest.raises(NotFoundError, match="ghost"):
        await store.supersede("rec-00001", "ghost", at=at)
    with pytest.raises(InvalidArgumentError, match="itself"):
        await store.supersede("rec-00001", "rec-00001", at=at)
    await store.supersede("rec-00001", "rec-00002", at=at)
    await store.supersede("rec-00001", "rec-00002", at=at)  # idempotent
    with pytest.raises(InvalidArgumentError, match="already superseded"):
        await store.supersede("rec-00001", "rec-00003", at=at)
    (old,) = await store.get(["rec-00001"])
    assert (old.superseded_by, old.valid_to) == ("rec-00002", at)


async def test_delete(store: RecordStore) -> None:
    await store.put([record(i) for i in range(4)])
    assert await store.delete(["rec-00001", "rec-00003", "ghost", "rec-00001"]) == 2
    assert [r.id for r in await store.scan()] == ["rec-00000", "rec-00002"]
    assert await store.delete([]) == 0


async def test_lifecycle_columns_and_relationship_count(stores: Pair) -> None:
    store, graph = stores
    await graph.upsert_entities([entity("A"), entity("B"), entity("C")])
    await graph.add_relationships(
        [rel("r1", "a", "b"), rel("r2", "b", "c"), rel("r3", "a", "a"), rel("r4", "c", "a")]
    )
    await graph.supersede_relationship("r4", "r2", at=T0 + timedelta(days=1))
    recs = [
        record(0, entity_ids=("a", "b")),  # r1, r2, r3 (r1 touches both: counted once)
        record(1, entity_ids=("c",), lifecycle=lifecycle(1, stage=MemoryStage.LONG_TERM)),
        record(2),  # no entities
        record(3, entity_ids=("zzz",), lifecycle=lifecycle(3, access_count=4, protected=True)),
    ]
    await store.put(recs)
    cols = await store.lifecycle_columns()
    assert cols.ids == [r.id for r in recs]
    assert cols.relationship_count.tolist() == [3, 1, 0, 0]
    assert cols.stage == ["short_term", "long_term", "short_term", "short_term"]
    assert cols.access_count.tolist() == [0, 0, 0, 4]
    assert cols.protected.tolist() == [False, False, False, True]
    expected = [r.lifecycle.created_at.timestamp() for r in recs]
    assert cols.created_at.tolist() == expected
    for arr, dtype in [
        (cols.base_score, np.float64),
        (cols.score_reference_time, np.float64),
        (cols.created_at, np.float64),
        (cols.confidence, np.float64),
        (cols.access_count, np.int64),
        (cols.relationship_count, np.int64),
        (cols.protected, np.bool_),
    ]:
        assert arr.dtype == dtype
        assert arr.flags.c_contiguous
    long_only = await store.lifecycle_columns(stages=[MemoryStage.LONG_TERM])
    assert long_only.ids == ["rec-00001"]
    empty = await store.lifecycle_columns(stages=[MemoryStage.DELETED])
    assert empty.ids == []
    assert empty.base_score.shape == (0,)


async def test_lifecycle_columns_decayed_at_and_superseded(store: RecordStore) -> None:
    decayed_at = T0 + timedelta(days=2, microseconds=123457)
    recs = [
        record(0),
        record(1, lifecycle=lifecycle(1, stage=MemoryStage.DECAYED, decayed_at=decayed_at)),
        record(2),
    ]
    await store.put(recs)
    await store.supersede("rec-00000", "rec-00002", at=T0 + timedelta(days=1))
    cols = await store.lifecycle_columns()
    assert cols.ids == ["rec-00000", "rec-00001", "rec-00002"]
    assert cols.superseded.tolist() == [True, False, False]
    assert math.isnan(cols.decayed_at[0])
    assert math.isnan(cols.decayed_at[2])
    assert round(cols.decayed_at[1] * 1e6) == round(decayed_at.timestamp() * 1e6)
    assert cols.decayed_at.dtype == np.float64
    assert cols.superseded.dtype == np.bool_
    empty = await store.lifecycle_columns(stages=[MemoryStage.DELETED])
    assert empty.decayed_at.shape == (0,)
    assert empty.superseded.shape == (0,)


async def test_many_records_no_caps(store: RecordStore) -> None:
    n = 12_000
    await store.put([record(i) for i in range(n)])
    assert await store.count() == n
    cols = await store.lifecycle_columns()
    assert len(cols.ids) == n
    await store.record_accesses(cols.ids, [0.5] * n, T0 + timedelta(days=30))
    await store.update_lifecycle(
        [(f"rec-{i:05d}", lifecycle(i, stage=MemoryStage.LONG_TERM)) for i in range(0, n, 2)]
    )
    cols = await store.lifecycle_columns()
    assert int(cols.access_count.sum()) == n // 2  # the update_lifecycle half was reset to 0
    assert await store.count(stages=[MemoryStage.LONG_TERM]) == n // 2


async def test_eight_concurrent_writers_lose_nothing(store: RecordStore) -> None:
    async def writer(w: int) -> None:
        for b in range(5):
            await store.put([record(w * 1000 + b * 10 + k) for k in range(10)])
            await store.record_accesses([f"rec-{w * 1000:05d}"], [0.5], T0 + timedelta(days=1))

    await asyncio.gather(*(writer(w) for w in range(8)))
    assert await store.count() == 400
    ids = [r.id for r in await store.scan()]
    assert len(set(ids)) == 400
    firsts = await store.get([f"rec-{w * 1000:05d}" for w in range(8)])
    assert [r.lifecycle.access_count for r in firsts] == [5] * 8


async def test_use_after_close(store: RecordStore) -> None:
    await store.aclose()
    await store.aclose()  # idempotent
    with pytest.raises(StoreClosedError):
        await store.put([record(1)])
    with pytest.raises(StoreClosedError):
        await store.lifecycle_columns()


async def test_lazy_open_without_async_with(tmp_path: Path) -> None:
    store = DuckDBRecordStore(tmp_path / "lazy.duckdb")
    await store.put([record(1)])
    assert await store.count() == 1
    await store.aclose()
    assert datetime.now(UTC) > T0
