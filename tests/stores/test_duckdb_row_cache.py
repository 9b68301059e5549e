"""DuckDBRecordStore's row cache: reads served from it always equal what DuckDB holds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path

import pytest

from remem.errors import DuplicateIdError, InvalidArgumentError, NotFoundError
from remem.models import MemoryStage
from remem.stores.duckdb import DuckDBDatabase, DuckDBRecordStore
from remem.stores.duckdb.row_cache import RowCache
from remem.stores.shared.record_rows import row_to_record
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


def test_store_skips_rows_a_write_named_since_the_read_and_evicts_oldest() -> None:
    cache = RowCache(limit=3)
    row = tuple(range(26))
    since = cache.generation
    cache.invalidate(["x"])
    cache.take(["b"])
    assert cache.store({"a": row, "b": row, "x": row}, since=since)
    # a write named x and b after the read began: only a, which no write changed, is kept
    assert cache.lookup(["a", "b", "x"]) == ({"a": row}, ["b", "x"])
    cache.invalidate(["a"])
    since = cache.generation
    cache.store({k: row for k in "abcd"}, since=since)
    assert len(cache) == 3
    assert cache.lookup(["a", "b", "d"]) == ({"b": row, "d": row}, ["a"])


def test_rows_beyond_the_hot_tier_are_served_packed_and_equal() -> None:
    cache = RowCache(limit=6, hot=2)
    rows = {k: (k, f"text {k}", 0.5, 17, None, True, ["e1", "e2"], '{"a": 1}') for k in "abcdef"}
    cache.store(rows, since=cache.generation)
    assert len(cache) == 6
    held, missing = cache.lookup(list("abcdef"))
    assert missing == []
    assert held == rows  # a, b, c, d unpacked from their packed copies
    assert held["f"] is rows["f"]  # stored last: still the same object, hot
    again, _ = cache.lookup(["e", "f"])
    assert again["f"] is held["f"]  # hot: the identity the memo keys on
    assert again["e"] is held["e"]
    generation, taken = cache.take(["a", "f"])  # "a" is no longer hot: unpacked to hand back
    assert taken == {"a": rows["a"], "f": rows["f"]}
    assert cache.lookup(["a", "f", "b"]) == ({"b": rows["b"]}, ["a", "f"])
    assert cache.put_back(taken, generation=generation)
    assert cache.lookup(["a"])[0] == {"a": rows["a"]}
    cache.store({"g": rows["a"]}, since=cache.generation)  # over the limit: oldest ("b") goes
    assert cache.lookup(["b", "g"])[1] == ["b"]


def test_put_back_only_when_no_write_body_ran_since_the_take() -> None:
    cache = RowCache()
    row = tuple(range(26))
    cache.store({"a": row, "b": row}, since=cache.generation)
    generation, taken = cache.take(["a", "z"])
    assert taken == {"a": row}
    assert cache.lookup(["a"]) == ({}, ["a"])
    assert cache.put_back(taken, generation=generation)
    assert cache.lookup(["a"]) == ({"a": row}, [])
    generation, taken = cache.take(["a"])
    cache.invalidate(["q"])  # another write body ran after the take, on another row
    assert cache.put_back(taken, generation=generation)
    assert cache.lookup(["a"]) == ({"a": row}, [])
    generation, taken = cache.take(["a"])
    cache.take(["a"])  # a second body of the group took it again (finding nothing)
    assert cache.put_back(taken, generation=generation)
    assert cache.lookup(["a"]) == ({}, ["a"])  # named since: not put back


def test_a_read_older_than_the_write_log_stores_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("remem.stores.duckdb.row_cache.LOG_IDS", 4)
    cache = RowCache()
    row = tuple(range(26))
    since = cache.generation
    for name in "pqrstu":  # six writes of one id each: the log keeps the last four
        cache.invalidate([name])
    assert not cache.store({"a": row}, since=since)
    assert cache.lookup(["a"]) == ({}, ["a"])
    recent = cache.generation - 2
    cache.invalidate(["v"])
    assert cache.store({"a": row, "v": row}, since=recent)  # still within the log
    assert cache.lookup(["a", "v"]) == ({"a": row}, ["v"])
    assert not cache.store({"a": row}, since=cache.generation + 1)  # a generation not yet seen


async def test_access_updates_are_written_through_equal_to_duckdb(
    store: DuckDBRecordStore,
) -> None:
    await store.put([record(i) for i in range(6)])
    ids = [record(i).id for i in range(6)]
    await store.get(ids)  # warm
    cache = store.database.record_rows
    for n in range(3):
        await store.record_accesses(ids[:3], [0.25 + n / 10] * 3, T0 + timedelta(hours=n + 1))
        assert cache.lookup(ids)[1] == []  # written through, not evicted
        got = await store.get(ids)
        assert got == await _uncached(store, ids)
        assert [r.lifecycle.access_count for r in got] == [n + 1] * 3 + [0] * 3
        await store.get(ids)  # re-warm (the uncached read dropped them)


async def test_rolled_back_access_write_leaves_no_row_in_the_cache(
    store: DuckDBRecordStore,
) -> None:
    await store.put([record(i) for i in range(3)])
    ids = [record(i).id for i in range(3)]
    await store.get(ids)
    before = await store.get(ids)
    # In one group with a failing put: the group rolls back and each call re-runs alone; the
    # access call then fails too (at is before creation), so nothing may be written through.
    failed = await asyncio.gather(
        store.record_accesses(ids, [0.9] * 3, T0 - timedelta(days=1)),
        store.put([record(0)]),
        return_exceptions=True,
    )
    assert isinstance(failed[0], InvalidArgumentError)
    assert isinstance(failed[1], DuplicateIdError)
    assert cache_rows(store, ids) == {}
    assert await store.get(ids) == before == await _uncached(store, ids)
    # A group rolled back by another call's error: the access call's re-run commits, and the
    # cache then equals DuckDB.
    await store.get(ids)
    results = await asyncio.gather(
        store.record_accesses(ids, [0.9] * 3, T0 + timedelta(hours=2)),
        store.put([record(1)]),
        return_exceptions=True,
    )
    assert results[0] is None
    assert isinstance(results[1], DuplicateIdError)
    got = await store.get(ids)
    assert got == await _uncached(store, ids)
    assert [r.lifecycle.access_count for r in got] == [1, 1, 1]


def cache_rows(store: DuckDBRecordStore, ids: list[str]) -> dict[str, object]:
    return dict(store.database.record_rows.lookup(ids)[0])


def test_row_to_record_builds_equal_records() -> None:
    from remem.stores.duckdb.records import _db_row

    rec = rich_record(3)
    assert row_to_record(_db_row(rec)) == rec


async def test_first_get_warms_the_cache_with_the_newest_live_records(tmp_path: Path) -> None:
    path = tmp_path / "memory.duckdb"
    live = [record(i) for i in range(6)]
    gone = record(6, lifecycle=record(6).lifecycle.replace(stage=MemoryStage.DELETED))
    async with DuckDBRecordStore(DuckDBDatabase(path)) as first:
        await first.put([*live, gone])
    db = DuckDBDatabase(path)
    db.record_rows.limit = 4  # room for the four newest live records only
    async with DuckDBRecordStore(db) as store:
        assert len(db.record_rows) == 0
        assert await store.get([live[0].id]) == [live[0]]  # read at once, the warm-up behind
        assert db.record_rows.warmed
        await store.warm_cache()
        held, missing = db.record_rows.lookup([r.id for r in [*live, gone]])
        # The one read was stored first; the warm-up's four newest live records (2-5, oldest
        # first) then evicted it; the deleted record never entered.
        assert set(held) == {live[2].id, live[3].id, live[4].id, live[5].id}
        assert set(missing) == {live[0].id, live[1].id, gone.id}
        # Every held row decodes to exactly the record DuckDB returns without the cache.
        for rid in held:
            (cached,) = await store.get([rid])
            assert [cached] == await _uncached(store, [rid])


async def test_a_tie_at_the_warm_up_threshold_is_capped_by_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "memory.duckdb"
    same = record(0).lifecycle.created_at
    tied = [record(i, lifecycle=record(i).lifecycle.replace(created_at=same)) for i in range(6)]
    async with DuckDBRecordStore(DuckDBDatabase(path)) as first:
        await first.put([*tied, record(9)])  # record 9 is newer than the six tied ones
    db = DuckDBDatabase(path)
    db.record_rows.limit = 4  # the 4th newest is one of the six created at the same instant
    async with DuckDBRecordStore(db) as store:
        await store.warm_cache()
        assert len(db.record_rows) == 4
        held = list(db.record_rows.lookup([r.id for r in [*tied, record(9)]])[0])
        assert await store.get(held) == await _uncached(store, held)


async def test_a_write_during_the_warm_up_keeps_its_rows_out(store: DuckDBRecordStore) -> None:
    await store.put([record(i) for i in range(3)])
    cache = store.database.record_rows
    ids = [record(i).id for i in range(3)]
    # Racing writes: the warm-up read must not store rows a write may have changed.
    await asyncio.gather(store.get(ids[:1]), store.upsert([record(1, text="changed")]))
    await store.warm_cache()
    got = await store.get(ids)
    assert got == await _uncached(store, ids)
    assert got[1].text == "changed"
    assert cache.warmed


async def test_the_warm_up_pages_skip_written_rows_and_never_block_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from remem.stores.duckdb import row_warm

    monkeypatch.setattr(row_warm, "WARM_PAGE", 3)  # seven pages for twenty records
    path = tmp_path / "memory.duckdb"
    records = [record(i) for i in range(20)]
    async with DuckDBRecordStore(DuckDBDatabase(path)) as first:
        await first.put(records)
    db = DuckDBDatabase(path)
    async with DuckDBRecordStore(db) as store:
        cache = db.record_rows
        # A write races the pages: whatever was stored is what DuckDB holds now.
        assert await store.get([records[0].id]) == [records[0]]
        await store.upsert([record(19, text="changed")])
        await store.warm_cache()
        held = list(cache.lookup([r.id for r in records])[0])
        assert await store.get(held) == await _uncached(store, held)
    for named, expected, log_ids in (([records[5].id], 19, 100), (["zz1", "zz2", "zz3"], 3, 2)):
        db = DuckDBDatabase(path)
        async with DuckDBRecordStore(db) as store:
            cache, real_store = db.record_rows, db.record_rows.store

            def store_then_write(
                rows: dict[str, tuple[object, ...]],
                *,
                since: int,
                ids: list[str] = named,
                cache: RowCache = cache,
                real_store: Callable[..., bool] = real_store,
            ) -> bool:
                kept = real_store(rows, since=since)
                cache.invalidate(ids)  # a write body runs right after each page
                return kept

            monkeypatch.setattr(cache, "store", store_then_write)
            # One id a write: the warm goes on, without that row. With a log of two ids, three
            # named at once no longer reach back to the warm's start: it stops after a page.
            monkeypatch.setattr("remem.stores.duckdb.row_cache.LOG_IDS", log_ids)
            await store.warm_cache()
            assert len(cache) == expected
            if expected == 19:
                assert cache.lookup([records[5].id])[1] == [records[5].id]
    db = DuckDBDatabase(path)
    async with DuckDBRecordStore(db) as store:
        await store.warm_cache()  # no write meanwhile: every page stored
        assert len(db.record_rows) == 20
        ids = [r.id for r in records]
        assert (await store.get(ids))[19].text == "changed"
    db = DuckDBDatabase(path)
    async with DuckDBRecordStore(db) as store:
        await store.get([records[0].id])  # closed while warming: cancelled cleanly
    async with DuckDBRecordStore(DuckDBDatabase(path)) as store:
        assert len(await store.get([r.id for r in records])) == 20


async def test_the_warm_up_keeps_filling_while_recall_writes_access_notes(tmp_path: Path) -> None:
    db = DuckDBDatabase(tmp_path / "memory.duckdb")
    async with DuckDBRecordStore(db) as writer:
        await writer.put([record(i) for i in range(5_000)])  # more than two warm-up pages
    db = DuckDBDatabase(tmp_path / "memory.duckdb")
    async with DuckDBRecordStore(db) as store:
        ids = [record(i).id for i in range(0, 5_000, 7)]
        accessed = ids[:40]
        # The first get starts the warm-up; access notes and an upsert run while it pages.
        await store.get(ids[:1])
        for n in range(5):
            await store.record_accesses(accessed, [0.5] * 40, T0 + timedelta(days=30, minutes=n))
            await asyncio.sleep(0)
        await store.upsert([record(3, text="rewritten")])
        await store.warm_cache()
        cache = db.record_rows
        held, missing = cache.lookup([record(i).id for i in range(5_000)])
        # every row is cached except possibly those the writes named; and each cached row is
        # what DuckDB holds
        named = set(accessed) | {record(3).id}
        assert set(missing) <= named
        assert len(held) >= 5_000 - len(named)
        assert await store.get(ids) == await _uncached(store, ids)
        assert (await store.get([record(3).id]))[0].text == "rewritten"
