"""Record and graph store hot paths: bulk ingest, lifecycle columns, graph neighbourhoods.

Run: ``pytest benches/bench_records.py --benchmark-only`` (``--benchmark-disable`` for a quick
correctness pass). ``naive`` is per-row ``executemany`` INSERT on DuckDB, the obvious baseline the
numpy-scan bulk path replaces; it ingests only NAIVE_N records, so compare per-record times
(``extra_info["records"]``).
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from tests.stores.factories import entity, record, rel

from remem.models import Entity, MemoryRecord, Relationship
from remem.stores import GraphStore, RecordStore
from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
from remem.stores.duckdb.records import _db_row
from remem.stores.postgres.graph import PostgresGraphStore
from remem.stores.postgres.records import PostgresRecordStore
from remem.stores.shared.record_rows import RECORD_COLUMNS

N = 100_000
BATCH = 10_000
NAIVE_N = 500
ENTITIES = 10_000
EDGES = 30_000

BACKENDS = ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(scope="module")
def records_100k() -> list[MemoryRecord]:
    return [record(i, entity_ids=(f"e{i % ENTITIES}",)) for i in range(N)]


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


def _record_store(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> RecordStore:
    if kind == "duckdb":
        return DuckDBRecordStore(DuckDBDatabase(tmp_path / "bench.duckdb"))
    return PostgresRecordStore(request.getfixturevalue("pg_dsn"))


def _clear(store: RecordStore, loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    def setup() -> None:
        ids = loop.run_until_complete(store.lifecycle_columns()).ids
        loop.run_until_complete(store.delete(ids))

    return setup


@pytest.mark.parametrize("store_kind", BACKENDS)
def test_ingest_100k(
    benchmark: Any,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    store_kind: str,
    records_100k: list[MemoryRecord],
    loop: asyncio.AbstractEventLoop,
) -> None:
    store = _record_store(store_kind, request, tmp_path)
    loop.run_until_complete(store.open())  # type: ignore[attr-defined]

    def ingest() -> None:
        for start in range(0, N, BATCH):
            loop.run_until_complete(store.put(records_100k[start : start + BATCH]))

    benchmark.group = "records ingest 100k"
    benchmark.extra_info["records"] = N
    benchmark.pedantic(ingest, setup=_clear(store, loop), rounds=2, iterations=1)
    benchmark.extra_info["correct"] = bool(loop.run_until_complete(store.count()) == N)
    loop.run_until_complete(store.aclose())


def test_ingest_naive(benchmark: Any, tmp_path: Path, records_100k: list[MemoryRecord]) -> None:
    """Baseline: the same table, one bound INSERT per row through executemany."""
    db = DuckDBDatabase(tmp_path / "naive.duckdb")
    loop = asyncio.new_event_loop()
    store = DuckDBRecordStore(db)
    loop.run_until_complete(store.open())
    rows = [_db_row(r) for r in records_100k[:NAIVE_N]]
    sql = f"INSERT INTO memory_records ({', '.join(RECORD_COLUMNS)}) VALUES "
    sql += f"({', '.join('?' * len(RECORD_COLUMNS))})"

    def ingest(conn: duckdb.DuckDBPyConnection) -> None:
        conn.execute("DELETE FROM memory_records")
        conn.executemany(sql, rows)

    benchmark.group = "records ingest 100k"
    benchmark.extra_info["records"] = NAIVE_N
    benchmark.pedantic(lambda: loop.run_until_complete(db.run(ingest)), rounds=1, iterations=1)
    benchmark.extra_info["correct"] = bool(loop.run_until_complete(store.count()) == NAIVE_N)
    loop.run_until_complete(store.aclose())
    loop.close()


@pytest.mark.parametrize("store_kind", BACKENDS)
def test_lifecycle_columns_100k(
    benchmark: Any,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    store_kind: str,
    records_100k: list[MemoryRecord],
    loop: asyncio.AbstractEventLoop,
) -> None:
    store = _record_store(store_kind, request, tmp_path)
    for start in range(0, N, BATCH):
        loop.run_until_complete(store.put(records_100k[start : start + BATCH]))
    benchmark.group = "lifecycle_columns 100k"
    cols = benchmark.pedantic(
        lambda: loop.run_until_complete(store.lifecycle_columns()), rounds=3, iterations=1
    )
    benchmark.extra_info["correct"] = bool(
        len(cols.ids) == N and cols.ids[0] == records_100k[0].id and cols.base_score.sum() == N
    )
    loop.run_until_complete(store.aclose())


def _graph(rng: random.Random) -> tuple[list[Entity], list[Relationship]]:
    ents = [entity(f"E{i}", id=f"e{i:05d}") for i in range(ENTITIES)]
    rels = [
        rel(f"r{j:06d}", f"e{rng.randrange(ENTITIES):05d}", f"e{rng.randrange(ENTITIES):05d}")
        for j in range(EDGES)
    ]
    return ents, rels


def _bfs(rels: list[Relationship], starts: list[str], depth: int) -> list[tuple[int, str]]:
    adj: dict[str, set[str]] = {}
    for r in rels:
        adj.setdefault(r.source_id, set()).add(r.target_id)
        adj.setdefault(r.target_id, set()).add(r.source_id)
    seen = {s: 0 for s in starts}
    queue = deque(starts)
    while queue:
        node = queue.popleft()
        if seen[node] == depth:
            continue
        for nxt in adj.get(node, ()):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return sorted((d, e) for e, d in seen.items() if d > 0)


@pytest.mark.parametrize("store_kind", BACKENDS)
def test_neighbours_depth2_10k(
    benchmark: Any,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    store_kind: str,
    loop: asyncio.AbstractEventLoop,
) -> None:
    graph: GraphStore
    if store_kind == "duckdb":
        graph = DuckDBGraphStore(tmp_path / "graph.duckdb")
    else:
        graph = PostgresGraphStore(request.getfixturevalue("pg_dsn"))
    ents, rels = _graph(random.Random(7))
    loop.run_until_complete(graph.upsert_entities(ents))
    loop.run_until_complete(graph.add_relationships(rels))
    starts = ["e00001", "e04242"]
    benchmark.group = "graph neighbours depth2 10k"
    found = benchmark.pedantic(
        lambda: loop.run_until_complete(graph.neighbours(starts, depth=2)), rounds=5, iterations=1
    )
    expected = _bfs(rels, starts, 2)
    benchmark.extra_info["correct"] = bool(
        [(n.depth, n.entity.id) for n in found] == expected and len(expected) > 20
    )
    loop.run_until_complete(graph.aclose())
