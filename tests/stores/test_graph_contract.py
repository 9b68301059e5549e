"""GraphStore parity suite: every backend (DuckDB file, real PostgreSQL) behaves identically."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remem.errors import (
    DuplicateIdError,
    InvalidArgumentError,
    NaiveDatetimeError,
    NotFoundError,
    StoreClosedError,
)
from remem.models import Entity, ProvenanceMetadata, Relationship
from remem.stores import GraphStore
from remem.stores.duckdb import DuckDBGraphStore
from remem.stores.postgres.graph import PostgresGraphStore
from tests.stores.factories import T0, entity, rel

BACKENDS = ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
async def graph(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[GraphStore]:
    if request.param == "duckdb":
        async with DuckDBGraphStore(tmp_path / "memory.duckdb") as store:
            yield store
    else:
        async with PostgresGraphStore(request.getfixturevalue("pg_dsn")) as store:
            yield store


async def state(g: GraphStore) -> tuple[list[Entity], list[list[Relationship]]]:
    ents = await g.list_entities()
    rels = [await g.relationships(e.id, include_superseded=True) for e in ents]
    return ents, rels


async def test_entity_round_trip_with_provenance(graph: GraphStore) -> None:
    assert isinstance(graph, GraphStore)
    e = Entity(
        id="ent-日本-😀",
        name="Zoë  Ångström  שלום",
        entity_type="person",
        aliases=("Zo", "Z. Å."),
        attributes={"age": 41, "h": 1.5, "ok": True, "none": None, "s": "✓"},
        namespace="ns",
        access_count=3,
        provenance=ProvenanceMetadata(
            source_id="turn-1",
            source_type="extraction",
            author_id="bot",
            confidence=0.75,
            created_at=datetime(2024, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
            parent_ids=("a", "b"),
        ),
        created_at=T0,
        updated_at=T0 + timedelta(microseconds=1),
    )
    await graph.upsert_entities([e, entity("Other")])
    assert await graph.get_entities(["other", e.id]) == [entity("Other"), e]
    with pytest.raises(NotFoundError, match="ghost"):
        await graph.get_entities([e.id, "ghost"])


async def test_upsert_keeps_usage_and_replaces_aliases(graph: GraphStore) -> None:
    await graph.upsert_entities([entity("Alice", aliases=("Ally",))])
    await graph.record_access({"alice": 4})
    later = T0 + timedelta(days=1)
    await graph.upsert_entities(
        [entity("Alice", aliases=("Al",), created_at=later, updated_at=later, access_count=0)]
    )
    (got,) = await graph.get_entities(["alice"])
    assert (got.access_count, got.created_at, got.updated_at) == (4, T0, later)
    assert await graph.find_entities("ally") == []
    assert [x.id for x in await graph.find_entities("AL")] == ["alice"]


async def test_find_by_normalised_name_or_alias(graph: GraphStore) -> None:
    await graph.upsert_entities(
        [
            entity("New  York", id="ny", aliases=("The Big Apple", "NYC")),
            entity("new york", id="ny2", namespace="other"),
            entity("İstanbul", id="ist"),
        ]
    )
    assert [e.id for e in await graph.find_entities("  NEW\tyork ")] == ["ny", "ny2"]
    assert [e.id for e in await graph.find_entities("new york", namespace="other")] == ["ny2"]
    assert [e.id for e in await graph.find_entities("the big   apple")] == ["ny"]
    assert [e.id for e in await graph.find_entities("nyc")] == ["ny"]
    assert [e.id for e in await graph.find_entities("İSTANBUL".casefold())] == ["ist"]
    assert await graph.find_entities("   ") == []
    assert [e.id for e in await graph.list_entities(namespace="other")] == ["ny2"]


async def test_add_relationships_all_or_nothing(graph: GraphStore) -> None:
    await graph.upsert_entities([entity("A"), entity("B")])
    await graph.add_relationships([rel("r1", "a", "b")])
    before = await state(graph)
    with pytest.raises(DuplicateIdError, match="r1"):
        await graph.add_relationships([rel("r2", "a", "b"), rel("r1", "b", "a")])
    with pytest.raises(DuplicateIdError, match="r3"):
        await graph.add_relationships([rel("r3", "a", "b"), rel("r3", "a", "b")])
    with pytest.raises(NotFoundError, match="ghost"):
        await graph.add_relationships([rel("r4", "a", "b"), rel("r5", "a", "ghost")])
    with pytest.raises(InvalidArgumentError):
        await graph.add_relationships([rel("r6", "a", "b"), "x"])  # type: ignore[list-item]
    assert await state(graph) == before


async def test_relationship_round_trip_direction_and_validity(graph: GraphStore) -> None:
    await graph.upsert_entities([entity("A"), entity("B"), entity("C")])
    t1, t2, t3 = (T0 + timedelta(days=d, microseconds=d) for d in (1, 2, 3))
    rich = rel(
        "r1",
        "a",
        "b",
        relation_type="works_at",
        attributes={"role": "CTO ✓", "since": 2020},
        valid_from=t1,
        valid_to=t3,
        provenance=ProvenanceMetadata(source_id="turn-9", confidence=0.5, parent_ids=("x",)),
        created_at=T0 + timedelta(microseconds=5),
    )
    await graph.add_relationships([rich, rel("r2", "c", "a"), rel("r3", "a", "c", valid_to=t1)])
    assert [r.id for r in await graph.relationships("a")] == ["r2", "r3", "r1"]
    assert await graph.relationships("a", direction="out", at=t2) == [rich]
    assert [r.id for r in await graph.relationships("a", direction="in")] == ["r2"]
    assert [r.id for r in await graph.relationships("a", at=t1)] == ["r2", "r1"]  # r3 ended at t1
    assert [r.id for r in await graph.relationships("a", at=T0)] == ["r2", "r3"]
    assert [r.id for r in await graph.relationships("a", at=t3)] == ["r2"]  # valid_to exclusive
    with pytest.raises(InvalidArgumentError):
        await graph.relationships("a", direction="sideways")  # type: ignore[arg-type]
    with pytest.raises(NaiveDatetimeError):
        await graph.relationships("a", at=datetime(2024, 1, 1))


async def test_supersede_relationship_closes_and_hides(graph: GraphStore) -> None:
    await graph.upsert_entities([entity("A"), entity("B")])
    await graph.add_relationships([rel("r1", "a", "b"), rel("r2", "a", "b", relation_type="x")])
    at = T0 + timedelta(days=1)
    with pytest.raises(InvalidArgumentError, match="itself"):
        await graph.supersede_relationship("r1", "r1", at=at)
    with pytest.raises(NotFoundError, match="ghost"):
        await graph.supersede_relationship("r1", "ghost", at=at)
    await graph.supersede_relationship("r1", "r2", at=at)
    assert [r.id for r in await graph.relationships("a")] == ["r2"]
    old = [r for r in await graph.relationships("a", include_superseded=True) if r.id == "r1"]
    assert (old[0].superseded_by, old[0].valid_to) == ("r2", at)
    assert await graph.relationship_counts(["a", "b", "ghost"]) == {"a": 1, "b": 1, "ghost": 0}


async def test_end_relationship_closes_without_a_successor(graph: GraphStore) -> None:
    await graph.upsert_entities([entity("A"), entity("B"), entity("C")])
    await graph.add_relationships([rel("r1", "a", "b"), rel("r2", "a", "c"), rel("r3", "a", "c")])
    at = T0 + timedelta(days=3)
    with pytest.raises(NotFoundError, match="ghost"):
        await graph.end_relationship("ghost", at=at)
    await graph.supersede_relationship("r2", "r3", at=at)
    with pytest.raises(InvalidArgumentError, match="superseded by 'r3'"):
        await graph.end_relationship("r2", at=at)
    await graph.end_relationship("r1", at=at)
    await graph.end_relationship("r1", at=at + timedelta(days=1))  # an earlier end is kept
    ended = [r for r in await graph.relationships("a") if r.id == "r1"]
    assert (ended[0].superseded_by, ended[0].valid_to) == (None, at)
    assert [r.id for r in await graph.relationships("a", at=at)] == ["r3"]
    before = await graph.relationships("a", at=at - timedelta(days=1))
    assert "r1" in [r.id for r in before]  # history keeps it
    assert [n.entity.id for n in await graph.neighbours(["a"], at=at)] == ["c"]


async def test_neighbours_depth_ties_and_exclusions(graph: GraphStore) -> None:
    # a - b - d - f   (a-c-d is a second path to d of the same length; ties by rel id)
    #  \- c -/        e only via a superseded edge; g only valid from t2
    await graph.upsert_entities([entity(x) for x in "ABCDEFG"])
    t2 = T0 + timedelta(days=2)
    await graph.add_relationships(
        [
            rel("r-ab", "a", "b"),
            rel("r-ca", "c", "a"),
            rel("r-bd", "b", "d"),
            rel("r-cd", "d", "c"),
            rel("r-df", "d", "f"),
            rel("r-ae", "a", "e"),
            rel("r-ae2", "a", "b"),
            rel("r-ag", "a", "g", valid_from=t2),
            rel("r-aa", "a", "a"),
        ]
    )
    await graph.supersede_relationship("r-ae", "r-ae2", at=T0 + timedelta(days=1))
    one = await graph.neighbours(["a"], depth=1)
    assert [(n.entity.id, n.depth, n.path) for n in one] == [
        ("b", 1, ("r-ab",)),
        ("c", 1, ("r-ca",)),
        ("g", 1, ("r-ag",)),
    ]
    two = await graph.neighbours(["a"], depth=2, at=T0 + timedelta(days=1))
    assert [(n.entity.id, n.depth, n.path) for n in two] == [
        ("b", 1, ("r-ab",)),
        ("c", 1, ("r-ca",)),
        ("d", 2, ("r-ab", "r-bd")),
    ]
    three = await graph.neighbours(["a", "d"], depth=3)
    assert [(n.entity.id, n.depth) for n in three] == [("b", 1), ("c", 1), ("f", 1), ("g", 1)]
    assert three[0].entity == (await graph.get_entities(["b"]))[0]
    with pytest.raises(NotFoundError, match="ghost"):
        await graph.neighbours(["ghost"])
    with pytest.raises(InvalidArgumentError):
        await graph.neighbours(["a"], depth=0)
    assert await graph.neighbours([]) == []


async def test_record_access_batched_and_checked(graph: GraphStore) -> None:
    await graph.upsert_entities([entity("A"), entity("B")])
    await graph.record_access({"a": 2, "b": 1})
    await graph.record_access({"a": 3, "b": 0})
    before = await state(graph)
    with pytest.raises(NotFoundError, match="ghost"):
        await graph.record_access({"a": 1, "ghost": 1})
    with pytest.raises(InvalidArgumentError):
        await graph.record_access({"a": -1})
    assert await state(graph) == before
    assert [e.access_count for e in await graph.get_entities(["a", "b"])] == [5, 1]


async def test_eight_concurrent_writers(graph: GraphStore) -> None:
    await graph.upsert_entities([entity("Hub")])

    async def writer(w: int) -> None:
        for b in range(5):
            ents = [entity(f"E{w}-{b}-{k}") for k in range(4)]
            await graph.upsert_entities(ents)
            await graph.add_relationships([rel(f"r{e.id}", "hub", e.id) for e in ents])
            await graph.record_access({"hub": 1})

    await asyncio.gather(*(writer(w) for w in range(8)))
    assert len(await graph.list_entities()) == 161
    assert (await graph.relationship_counts(["hub"]))["hub"] == 160
    assert (await graph.get_entities(["hub"]))[0].access_count == 40
    assert len(await graph.neighbours(["hub"])) == 160


async def test_use_after_close(graph: GraphStore) -> None:
    await graph.aclose()
    with pytest.raises(StoreClosedError):
        await graph.list_entities()
