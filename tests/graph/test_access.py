"""AccessTracker with the real DuckDB graph and record stores."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from remem.errors import ConfigError, InvalidArgumentError, NotFoundError, StoreClosedError
from remem.graph import AccessTracker
from remem.models import ManualClock
from remem.stores import GraphStore
from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
from tests.stores.factories import entity, record


class CountingGraph:
    """Wraps the real store to count record_access calls (the batching claim)."""

    def __init__(self, inner: GraphStore) -> None:
        self.inner = inner
        self.calls = 0

    async def record_access(self, counts: dict[str, int]) -> None:
        self.calls += 1
        await self.inner.record_access(counts)


async def counts(graph: GraphStore, *ids: str) -> list[int]:
    return [e.access_count for e in await graph.get_entities(list(ids))]


async def test_n_notes_then_one_flush(graph: GraphStore, clock: ManualClock) -> None:
    await graph.upsert_entities([entity("A"), entity("B")])
    spy = CountingGraph(graph)
    tracker = AccessTracker(spy, clock=clock, max_buffer=100)  # type: ignore[arg-type]
    for _ in range(25):
        await tracker.note(entity_ids=["a"])
    await tracker.note(entity_ids=["a", "b", "b"])
    assert (spy.calls, await counts(graph, "a", "b")) == (0, [0, 0])
    await tracker.flush()
    assert (spy.calls, await counts(graph, "a", "b")) == (1, [26, 2])
    await tracker.flush()  # empty buffer: no write
    assert spy.calls == 1
    assert tracker.failures() == []


async def test_auto_flush_on_size_and_time(graph: GraphStore, clock: ManualClock) -> None:
    await graph.upsert_entities([entity(f"E{i}") for i in range(5)])
    tracker = AccessTracker(graph, clock=clock, max_buffer=3, flush_every=timedelta(seconds=30))
    await tracker.note(entity_ids=["e0", "e1"])
    assert tracker.pending_entities == {"e0": 1, "e1": 1}
    await tracker.note(entity_ids=["e2"])  # third distinct id: flushed
    assert (tracker.pending_entities, await counts(graph, "e0", "e2")) == ({}, [1, 1])
    await tracker.note(entity_ids=["e3"])
    clock.advance(timedelta(seconds=31))
    await tracker.note(entity_ids=["e4"])  # flush_every elapsed
    assert (tracker.pending_entities, await counts(graph, "e3", "e4")) == ({}, [1, 1])


async def test_failed_flush_keeps_counts_and_reports(tmp_path: Path, clock: ManualClock) -> None:
    graph = DuckDBGraphStore(tmp_path / "m.duckdb")
    await graph.upsert_entities([entity("A")])
    tracker = AccessTracker(graph, clock=clock)
    await tracker.note(entity_ids=["a", "a", "a"])
    await graph.aclose()
    with pytest.raises(StoreClosedError):
        await tracker.flush()
    assert tracker.pending_entities == {"a": 3}
    (failure,) = tracker.failures()
    assert (failure.target, failure.pending, failure.at) == ("entities", 1, clock.now())
    assert isinstance(failure.error, StoreClosedError)
    # An automatic flush failing inside note() is recorded, not raised, and still loses nothing.
    tracker.max_buffer = 1
    await tracker.note(entity_ids=["a"])
    assert (tracker.pending_entities, len(tracker.failures())) == ({"a": 4}, 2)
    async with DuckDBGraphStore(tmp_path / "m.duckdb") as reopened:
        tracker._graph = reopened  # the store came back: the next flush delivers everything
        await tracker.aclose()
        assert await counts(reopened, "a") == [4]
    await tracker.aclose()  # idempotent
    with pytest.raises(StoreClosedError):
        await tracker.note(entity_ids=["a"])


async def test_unknown_entity_stays_visible_until_discarded(
    graph: GraphStore, clock: ManualClock
) -> None:
    await graph.upsert_entities([entity("A")])
    tracker = AccessTracker(graph, clock=clock)
    await tracker.note(entity_ids=["a", "ghost"])
    with pytest.raises(NotFoundError):
        await tracker.flush()
    assert await counts(graph, "a") == [0]  # the batch is all-or-nothing
    tracker.discard(["ghost"])
    await tracker.flush()
    assert await counts(graph, "a") == [1]


async def test_records_reinforced_once_per_flush(tmp_path: Path, clock: ManualClock) -> None:
    db = DuckDBDatabase(tmp_path / "m.duckdb")
    async with DuckDBGraphStore(db) as graph, DuckDBRecordStore(db) as records:
        await records.put([record(1), record(2)])
        seen: list[tuple[list[str], datetime]] = []

        async def rescore(ids: Sequence[str], at: datetime) -> list[float]:
            seen.append((list(ids), at))
            return [0.9] * len(ids)

        tracker = AccessTracker(graph, records, rescore=rescore, clock=clock)
        await tracker.note(record_ids=[record(2).id, record(1).id, record(2).id])
        clock.advance(timedelta(seconds=5))
        await tracker.flush()
        got = {r.id: r.lifecycle for r in await records.get([record(1).id, record(2).id])}
        assert seen == [(sorted([record(1).id, record(2).id]), clock.now())]
        assert {i: (lc.access_count, lc.base_score, lc.accessed_at) for i, lc in got.items()} == {
            record(1).id: (1, 0.9, clock.now()),
            record(2).id: (1, 0.9, clock.now()),
        }


async def test_bad_config_and_ids(graph: GraphStore) -> None:
    with pytest.raises(ConfigError):
        AccessTracker(graph, max_buffer=0)
    with pytest.raises(ConfigError):
        AccessTracker(graph, flush_every=timedelta(0))
    with pytest.raises(ConfigError):
        AccessTracker(graph, DuckDBRecordStore.__new__(DuckDBRecordStore))  # no rescore
    tracker = AccessTracker(graph)
    with pytest.raises(InvalidArgumentError):
        await tracker.note(entity_ids="abc")
    with pytest.raises(InvalidArgumentError):
        await tracker.note(entity_ids=["a", ""])
    assert tracker.pending_entities == {}
