"""Every SQL backend refuses the same bad input with the same typed error, and writes nothing.

The record, graph and block stores check their arguments once, in their base classes
(:mod:`remem.stores.base`); these tests hold that on real backends (a DuckDB file and a real
PostgreSQL): each bad call raises the listed :class:`~remem.errors.RememError` subclass on every
backend, with the same message, before anything stored changes. Lone surrogates, wrong types,
non-finite and out-of-range numbers were the inputs that escaped as UnicodeEncodeError,
OverflowError, TypeError or a backend-specific error before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from remem.blocks.edits import BlockChange
from remem.errors import (
    InvalidArgumentError,
    NaiveDatetimeError,
    NonFiniteError,
    RememError,
    ShapeError,
)
from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
from remem.stores.duckdb.blocks import DuckDBBlockStore
from remem.stores.postgres.blocks import PostgresBlockStore
from remem.stores.postgres.graph import PostgresGraphStore
from remem.stores.postgres.records import PostgresRecordStore
from tests.stores.factories import T0, entity, record, rel

BACKENDS = ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]
SURROGATE = "\ud800"
NAIVE = datetime(2024, 1, 1)
IAE = InvalidArgumentError


@dataclass(frozen=True)
class Stores:
    records: Any
    graph: Any
    blocks: Any


@dataclass(frozen=True)
class Case:
    name: str
    call: Callable[[Stores], Awaitable[object]]
    error: type[RememError]
    match: str


CASES = [
    # RecordStore
    Case("get None", lambda s: s.records.get(None), IAE, "sequence of ids"),
    Case("get surrogate id", lambda s: s.records.get([SURROGATE]), IAE, "surrogate"),
    Case("get int id", lambda s: s.records.get([1]), IAE, "non-empty strings"),
    Case("put None", lambda s: s.records.put(None), IAE, "MemoryRecord"),
    Case("put a non-record", lambda s: s.records.put([1]), IAE, "MemoryRecord"),
    Case("scan stages str", lambda s: s.records.scan(stages="x"), IAE, "list"),
    Case("scan unknown stage", lambda s: s.records.scan(stages=["x"]), IAE, "unknown"),
    Case(
        "scan namespace surrogate", lambda s: s.records.scan(namespace=SURROGATE), IAE, "surrogate"
    ),
    Case("scan namespace int", lambda s: s.records.scan(namespace=3), IAE, "namespace"),
    Case("count bad stage", lambda s: s.records.count(stages=[1]), IAE, "MemoryStage"),
    Case("keyed_facts subjects str", lambda s: s.records.keyed_facts(subjects="x"), IAE, "list"),
    Case(
        "keyed_facts subject surrogate",
        lambda s: s.records.keyed_facts(subjects=[SURROGATE]),
        IAE,
        "surrogate",
    ),
    Case(
        "keyed_facts attribute surrogate",
        lambda s: s.records.keyed_facts(attributes=[SURROGATE]),
        IAE,
        "surrogate",
    ),
    Case("supersede int ids", lambda s: s.records.supersede(1, 2, at=T0), IAE, "strings"),
    Case(
        "supersede itself",
        lambda s: s.records.supersede("rec-00001", "rec-00001", at=T0),
        IAE,
        "itself",
    ),
    Case("supersede at str", lambda s: s.records.supersede("a", "b", at="x"), IAE, "datetime"),
    Case(
        "supersede naive at",
        lambda s: s.records.supersede("a", "b", at=NAIVE),
        NaiveDatetimeError,
        "timezone",
    ),
    Case(
        "record_accesses nan",
        lambda s: s.records.record_accesses(["rec-00001"], [float("nan")], T0),
        NonFiniteError,
        "finite",
    ),
    Case(
        "record_accesses lengths",
        lambda s: s.records.record_accesses(["rec-00001"], [], T0),
        ShapeError,
        "one per id",
    ),
    Case("update_lifecycle None", lambda s: s.records.update_lifecycle(None), IAE, "pairs"),
    Case(
        "update_lifecycle bad pair",
        lambda s: s.records.update_lifecycle([("rec-00001", 1)]),
        IAE,
        "pair",
    ),
    Case("supersede_many None", lambda s: s.records.supersede_many(None), IAE, "sequence"),
    Case("supersede_many short item", lambda s: s.records.supersede_many([("a",)]), IAE, "triple"),
    Case("delete None", lambda s: s.records.delete(None), IAE, "sequence of ids"),
    Case("delete surrogate", lambda s: s.records.delete([SURROGATE]), IAE, "surrogate"),
    Case(
        "lifecycle_columns stages str",
        lambda s: s.records.lifecycle_columns(stages="x"),
        IAE,
        "list",
    ),
    # GraphStore
    Case("get_entities None", lambda s: s.graph.get_entities(None), IAE, "sequence of ids"),
    Case("find_entities None", lambda s: s.graph.find_entities(None), IAE, "name string"),
    Case("find_entities surrogate", lambda s: s.graph.find_entities(SURROGATE), IAE, "surrogate"),
    Case(
        "find_entities namespace surrogate",
        lambda s: s.graph.find_entities("ada", namespace=SURROGATE),
        IAE,
        "surrogate",
    ),
    Case(
        "find_entities namespace int",
        lambda s: s.graph.find_entities("ada", namespace=3),
        IAE,
        "namespace",
    ),
    Case(
        "list_entities namespace int",
        lambda s: s.graph.list_entities(namespace=3),
        IAE,
        "namespace",
    ),
    Case(
        "list_entities namespace surrogate",
        lambda s: s.graph.list_entities(namespace=SURROGATE),
        IAE,
        "surrogate",
    ),
    Case("upsert_entities None", lambda s: s.graph.upsert_entities(None), IAE, "Entity"),
    Case(
        "add_relationships a non-relationship",
        lambda s: s.graph.add_relationships([1]),
        IAE,
        "Relationship",
    ),
    Case(
        "relationships direction",
        lambda s: s.graph.relationships("ada", direction="x"),
        IAE,
        "direction",
    ),
    Case("relationships int id", lambda s: s.graph.relationships(3), IAE, "strings"),
    Case("relationships at str", lambda s: s.graph.relationships("ada", at="x"), IAE, "datetime"),
    Case("neighbours depth bool", lambda s: s.graph.neighbours(["ada"], depth=True), IAE, "depth"),
    Case("neighbours depth 0", lambda s: s.graph.neighbours(["ada"], depth=0), IAE, "depth"),
    Case("neighbours None", lambda s: s.graph.neighbours(None), IAE, "sequence of ids"),
    Case("record_access negative", lambda s: s.graph.record_access({"ada": -1}), IAE, "count"),
    Case("record_access 2**64", lambda s: s.graph.record_access({"ada": 2**64}), IAE, "count"),
    Case("record_access list", lambda s: s.graph.record_access([]), IAE, "mapping"),
    Case(
        "relationship_counts None",
        lambda s: s.graph.relationship_counts(None),
        IAE,
        "sequence of ids",
    ),
    Case(
        "supersede_relationship itself",
        lambda s: s.graph.supersede_relationship("r1", "r1", at=T0),
        IAE,
        "itself",
    ),
    Case(
        "supersede_relationship at None",
        lambda s: s.graph.supersede_relationship("r1", "r2", at=None),
        IAE,
        "at",
    ),
    # BlockStore
    Case("load empty namespace", lambda s: s.blocks.load("", "persona"), IAE, "namespace"),
    Case(
        "load surrogate namespace", lambda s: s.blocks.load(SURROGATE, "persona"), IAE, "surrogate"
    ),
    Case("labels None", lambda s: s.blocks.labels(None), IAE, "namespace"),
    Case("history limit -1", lambda s: s.blocks.history("ada", "persona", limit=-1), IAE, "limit"),
    Case(
        "history limit str", lambda s: s.blocks.history("ada", "persona", limit="3"), IAE, "limit"
    ),
    Case(
        "commit entries None",
        lambda s: s.blocks.commit(
            "ada", "persona", None, [], expected_revision=1, actor="a", at=T0
        ),
        IAE,
        "entries",
    ),
    Case(
        "commit changes None",
        lambda s: s.blocks.commit(
            "ada", "persona", [], None, expected_revision=1, actor="a", at=T0
        ),
        IAE,
        "changes",
    ),
    Case(
        "commit revision bool",
        lambda s: s.blocks.commit(
            "ada", "persona", ["x"], [_change("x")], expected_revision=True, actor="a", at=T0
        ),
        IAE,
        "expected_revision",
    ),
]


def _change(text: str) -> BlockChange:
    return BlockChange("add", None, text, 0, len(text))


async def _seed(s: Stores) -> None:
    await s.records.put([record(1), record(2)])
    await s.graph.upsert_entities([entity("Ada"), entity("Grace")])
    await s.graph.add_relationships([rel("r1", "ada", "grace"), rel("r2", "grace", "ada")])
    await s.blocks.commit(
        "ada", "persona", ["x"], [_change("x")], expected_revision=0, actor="a", at=T0
    )


async def _snapshot(s: Stores) -> tuple[object, ...]:
    return (
        await s.records.scan(include_superseded=True),
        await s.graph.list_entities(),
        await s.graph.relationships("ada", include_superseded=True),
        await s.blocks.load("ada", "persona"),
        await s.blocks.history("ada", "persona"),
    )


async def _open(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Stores:
    if backend == "duckdb":
        db = DuckDBDatabase(tmp_path / "memory.duckdb")
        stores = Stores(DuckDBRecordStore(db), DuckDBGraphStore(db), DuckDBBlockStore(db))
    else:
        dsn = request.getfixturevalue("pg_dsn")
        stores = Stores(PostgresRecordStore(dsn), PostgresGraphStore(dsn), PostgresBlockStore(dsn))
    for store in (stores.records, stores.graph, stores.blocks):
        await store.open()
    await _seed(stores)
    return stores


async def _close(s: Stores) -> None:
    for store in (s.blocks, s.graph, s.records):
        await store.aclose()


@pytest.fixture(params=BACKENDS)
async def stores(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Stores]:
    s = await _open(request.param, tmp_path, request)
    try:
        yield s
    finally:
        await _close(s)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_bad_input_raises_the_typed_error_and_writes_nothing(
    stores: Stores, case: Case
) -> None:
    before = await _snapshot(stores)
    with pytest.raises(case.error, match=case.match):
        await case.call(stores)
    assert await _snapshot(stores) == before


@pytest.mark.postgres
async def test_every_backend_says_the_same_thing(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    said: dict[str, list[tuple[str, str]]] = {}
    for backend in ("duckdb", "postgres"):
        s = await _open(backend, tmp_path, request)
        try:
            said[backend] = []
            for case in CASES:
                with pytest.raises(RememError) as caught:
                    await case.call(s)
                said[backend].append((type(caught.value).__name__, str(caught.value)))
        finally:
            await _close(s)
    assert said["duckdb"] == said["postgres"]
    assert len(said["duckdb"]) == len(CASES)


async def test_a_depth_beyond_any_walk_is_walked_like_a_deep_one(stores: Stores) -> None:
    deep = await stores.graph.neighbours(["ada"], depth=50)
    assert deep  # grace, one hop away
    assert await stores.graph.neighbours(["ada"], depth=2**64) == deep


async def test_a_history_limit_beyond_the_rows_reads_them_all(stores: Stores) -> None:
    at = T0 + timedelta(hours=1)
    await stores.blocks.commit(
        "ada", "persona", ["x", "y"], [_change("y")], expected_revision=1, actor="a", at=at
    )
    everything = await stores.blocks.history("ada", "persona")
    assert len(everything) == 2
    assert await stores.blocks.history("ada", "persona", limit=2**64) == everything
    assert (await stores.blocks.history("ada", "persona", limit=1))[0].at == at.astimezone(UTC)
