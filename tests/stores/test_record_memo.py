"""DecodedRecords and detached: a memoised decode equals row_to_record, and results own their
metadata."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from remem.stores.duckdb import DuckDBDatabase, DuckDBRecordStore
from remem.stores.shared.record_memo import DecodedRecords, detached
from remem.stores.shared.record_rows import (
    ACCESS_COLUMNS,
    RECORD_COLUMNS,
    reaccessed,
    record_to_row,
    row_to_record,
)
from tests.stores.factories import record, rich_record


def _row(i: int, **changes: object) -> tuple[object, ...]:
    return tuple(record_to_row(rich_record(i).model_copy(update=changes)))


def test_same_row_object_is_decoded_once_and_a_new_row_again() -> None:
    memo = DecodedRecords()
    row = _row(1)
    key = str(row[0])
    first = memo.records({key: row})[key]
    assert first == row_to_record(row)
    assert memo.records({key: row})[key] is first
    # An equal row that is another object (a re-read, a packed row unpacked): the same record.
    again = memo.records({key: tuple(list(row))})[key]
    assert again is first
    # A changed row: decoded anew.
    changed_row = _row(1, text="changed")
    changed = memo.records({key: changed_row})[key]
    assert changed == row_to_record(changed_row)
    assert changed.text == "changed"


def test_a_row_changed_only_by_an_access_note_is_derived_not_decoded() -> None:
    memo = DecodedRecords()
    row = _row(2)
    key = str(row[0])
    first = memo.records({key: row})[key]
    at = datetime(2031, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    after = list(row)
    for name, value in (
        ("base_score", 0.25),
        ("score_reference_time", at),
        ("accessed_at", at),
        ("access_count", first.lifecycle.access_count + 1),
    ):
        after[RECORD_COLUMNS.index(name)] = value
    got = memo.records({key: tuple(after)})[key]
    assert got == row_to_record(tuple(after))
    assert got.lifecycle.access_count == first.lifecycle.access_count + 1
    assert got.lifecycle.accessed_at == at
    assert got.lifecycle.base_score == 0.25
    assert first == row_to_record(row)  # the record handed out before is not changed
    assert got.metadata is first.metadata  # derived: nothing else decoded again


def test_reaccessed_refuses_a_row_that_differs_outside_the_access_columns() -> None:
    row = _row(3)
    rec = row_to_record(row)
    for i, name in enumerate(RECORD_COLUMNS):
        if name in ACCESS_COLUMNS:
            continue
        other = list(row)
        other[i] = None if other[i] is not None else "x"
        assert reaccessed(rec, row, tuple(other)) is None, name
    assert reaccessed(rec, row, row[:-1]) is None  # another layout
    assert reaccessed(rec, row, tuple(list(row))) is rec


def test_order_is_kept_and_the_limit_bounds_what_is_held() -> None:
    memo = DecodedRecords(limit=3)
    rows = {str(r[0]): r for r in (_row(i) for i in range(5))}
    got = memo.records(rows)
    assert list(got) == list(rows)
    assert got == {k: row_to_record(r) for k, r in rows.items()}
    assert len(memo) <= 3
    assert memo.records(dict(list(rows.items())[:2])) == {
        k: row_to_record(r) for k, r in list(rows.items())[:2]
    }
    assert len(memo) <= 3
    assert DecodedRecords(limit=0).records(rows) == got


def test_detached_is_equal_and_owns_its_metadata() -> None:
    r = record(1, metadata={"speaker": "Ana", "n": 1.5, "ok": True, "none": None})
    copy = detached(r)
    assert copy == r
    assert type(copy) is type(r)
    assert copy.metadata is not r.metadata
    copy.metadata["speaker"] = "Rui"
    copy.metadata["new"] = 1
    assert r.metadata == {"speaker": "Ana", "n": 1.5, "ok": True, "none": None}
    assert copy.lifecycle is r.lifecycle  # immutable parts are shared
    assert detached(record(2, metadata={})) == record(2, metadata={})


async def test_duckdb_get_shared_decodes_a_cached_row_once(tmp_path: Path) -> None:
    async with DuckDBRecordStore(DuckDBDatabase(tmp_path / "memory.duckdb")) as store:
        recs = [rich_record(i) for i in range(4)]
        await store.put(recs)
        ids = [r.id for r in recs]
        first = await store.get_shared(ids)
        second = await store.get_shared(ids)
        assert all(second[i] is first[i] for i in ids)  # the row cache's rows: one decode
        assert list(second.values()) == recs == await store.get(ids)
        await store.upsert([rich_record(0).model_copy(update={"text": "v2"})])
        third = await store.get_shared(ids)
        assert third[ids[0]].text == "v2"
        assert third[ids[0]] is not first[ids[0]]
        assert third[ids[1]] is first[ids[1]]


async def test_duckdb_get_shared_after_an_access_note_equals_get(tmp_path: Path) -> None:
    async with DuckDBRecordStore(DuckDBDatabase(tmp_path / "memory.duckdb")) as store:
        recs = [rich_record(i) for i in range(3)]
        await store.put(recs)
        ids = [r.id for r in recs]
        first = await store.get_shared(ids)
        at = max(r.lifecycle.created_at for r in recs) + timedelta(days=3)
        await store.record_accesses(ids[:2], [0.5, 0.75], at)
        after = await store.get_shared(ids)
        assert list(after.values()) == await store.get(ids)
        assert [after[i].lifecycle.access_count for i in ids] == [
            first[i].lifecycle.access_count + (1 if i in ids[:2] else 0) for i in ids
        ]
        assert after[ids[0]].lifecycle.base_score == 0.5
        assert after[ids[2]] is first[ids[2]]
