"""EntityResolver against the real DuckDB graph store (and PostgreSQL for index loading)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remem.errors import ConfigError, InvalidArgumentError
from remem.graph import EntityResolver, ResolvedEntity, entity_id_for
from remem.models import ManualClock
from remem.stores import GraphStore
from remem.stores.duckdb import DuckDBGraphStore
from remem.stores.postgres.graph import PostgresGraphStore
from tests.stores.factories import T0, entity


async def seeded(resolver: EntityResolver, *names: tuple[str, str]) -> list[str]:
    found = [await resolver.resolve(n, t) for n, t in names]
    return [e.id for e in await resolver.upsert_resolved(found)]


async def test_version_guard_and_case(graph: GraphStore, clock: ManualClock) -> None:
    r = EntityResolver(graph, clock=clock)
    (py311,) = await seeded(r, ("Python 3.11", "language"))
    same = await r.resolve("python  3.11", "language")
    assert (same.entity_id, same.how, same.score) == (py311, "name", 100.0)
    other = await r.resolve("Python 3.12", "language")
    assert other.is_new
    assert other.entity_id != py311
    assert (await r.resolve("Pyhton 3.11", "language")).how == "fuzzy"  # typo, same version
    assert (await r.resolve("Python", "language")).is_new  # a number present on one side only


async def test_short_names_and_threshold(graph: GraphStore, clock: ManualClock) -> None:
    r = EntityResolver(graph, clock=clock)
    ana, jonathan, maria = await seeded(
        r, ("Ana", "person"), ("Jonathan Smith", "person"), ("Maria", "person")
    )
    # "Ana" vs "Anna": 3 characters, exact only, whatever the threshold.
    assert (await r.resolve("Anna", "person")).is_new
    assert (await EntityResolver(graph, threshold=50).resolve("Anna", "person")).is_new
    fuzzy = await r.resolve("Johnathan Smith", "person")
    assert (fuzzy.entity_id, fuzzy.how) == (jonathan, "fuzzy")
    assert 90 <= fuzzy.score < 100
    assert (await r.resolve("Smith, Jonathan", "person")).entity_id == jonathan  # word order
    assert (await r.resolve("Mario", "person")).is_new  # token_sort_ratio 80 < 90
    assert (await EntityResolver(graph, threshold=80).resolve("Mario", "person")).entity_id == maria
    assert (await r.resolve("ANA", "person")).entity_id == ana


async def test_types_never_merge(graph: GraphStore, clock: ManualClock) -> None:
    r = EntityResolver(graph, clock=clock)
    (jaguar,) = await seeded(r, ("Jaguar", "animal"))
    car = await r.resolve("Jaguar", "company")
    assert car.is_new
    assert car.entity_id != jaguar
    assert car.entity_type == "company"
    assert (await r.resolve("Jaguars", "company")).is_new  # no fuzzy hop across types either
    assert (await r.resolve("Jaguar")).entity_id == jaguar  # untyped query: any type


async def test_upsert_merges_alias_and_creates_deterministic_ids(
    graph: GraphStore, clock: ManualClock
) -> None:
    r = EntityResolver(graph, clock=clock)
    first = await r.resolve("The Beatles", "band")
    assert first.entity_id == entity_id_for("default", "band", "beatles")
    await r.upsert_resolved([first])
    again = await r.resolve("Beatles!", "band")
    assert (again.entity_id, again.how) == (first.entity_id, "name")
    typo = await r.resolve("The Beattles", "band")
    assert typo.how == "fuzzy"
    (merged,) = await r.upsert_resolved([typo, again])  # same entity twice: one write
    assert merged.aliases == ("The Beattles",)  # "Beatles!" normalises to the name: no alias
    assert (await graph.find_entities("the beattles"))[0].id == first.entity_id
    alias = await r.resolve("beattles", "band")
    assert (alias.entity_id, alias.how) == (first.entity_id, "alias")
    # A fresh resolver loads the same index from the store.
    fresh = await EntityResolver(graph).resolve("THE BEATTLES", "band")
    assert (fresh.entity_id, fresh.how) == (first.entity_id, "alias")


async def test_upsert_keeps_access_counts_and_attributes(
    graph: GraphStore, clock: ManualClock
) -> None:
    await graph.upsert_entities(
        [entity("Ada Lovelace", entity_type="person", attributes={"b": 1815})]
    )
    await graph.record_access({"ada lovelace": 5})
    r = EntityResolver(graph, clock=clock)
    found = await r.resolve("Ada Lovelace.", "person")
    assert found.entity_id == "ada lovelace"
    typo = await r.resolve("Ada Lovelac", "person")
    assert (typo.entity_id, typo.how) == ("ada lovelace", "fuzzy")
    clock.advance(timedelta(hours=1))
    (got,) = await r.upsert_resolved([typo, found])
    (stored,) = await graph.get_entities(["ada lovelace"])
    assert stored == got
    assert (stored.access_count, stored.attributes, stored.aliases) == (
        5,
        {"b": 1815},
        ("Ada Lovelac",),
    )
    assert (stored.created_at, stored.updated_at) == (T0, T0 + timedelta(hours=1))


async def test_new_names_in_one_batch_collapse(graph: GraphStore, clock: ManualClock) -> None:
    r = EntityResolver(graph, clock=clock)
    a, b = await r.resolve("Acme Corp", "org"), await r.resolve("acme corp.", "org")
    assert a.entity_id == b.entity_id
    assert a.is_new
    assert b.is_new
    written = await r.upsert_resolved([a, b])
    assert [(e.name, e.aliases, e.created_at) for e in written] == [("Acme Corp", (), T0)]
    assert len(await graph.list_entities()) == 1


async def test_namespaces_are_separate(graph: GraphStore, clock: ManualClock) -> None:
    r = EntityResolver(graph, clock=clock)
    a = await r.resolve("Ana Lima", "person", namespace="agent-a")
    await r.upsert_resolved([a])
    b = await r.resolve("Ana Lima", "person", namespace="agent-b")
    assert b.is_new
    assert b.entity_id != a.entity_id


async def test_bad_input(graph: GraphStore) -> None:
    r = EntityResolver(graph)
    for bad in ("", "  ?! ", "a\x00b", "\ud800x"):
        with pytest.raises(InvalidArgumentError):
            await r.resolve(bad)
    with pytest.raises(InvalidArgumentError):
        await r.resolve(3)  # type: ignore[arg-type]
    for threshold in (0, 101, True):
        with pytest.raises(ConfigError):
            EntityResolver(graph, threshold=threshold)
    assert await graph.list_entities() == []


names = st.text(alphabet=st.sampled_from("abcdeABCDE 123.,!-"), min_size=1, max_size=16).filter(
    lambda s: any(c.isalnum() for c in s)
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batch=st.lists(names, min_size=1, max_size=6), probe=names)
def test_resolve_is_idempotent_and_stable_after_upsert(
    tmp_path: Path, batch: list[str], probe: str
) -> None:
    async def run() -> None:
        async with DuckDBGraphStore(tmp_path / f"h{abs(hash((*batch, probe)))}.duckdb") as g:
            r = EntityResolver(g, clock=ManualClock(T0))
            await r.upsert_resolved([await r.resolve(n, "t") for n in batch])
            before = await g.list_entities()
            first, second = await r.resolve(probe, "t"), await r.resolve(probe, "t")
            assert first == second
            assert await g.list_entities() == before
            await r.upsert_resolved([first])
            after = await r.resolve(probe, "t")
            assert after.entity_id == first.entity_id
            assert after.how in ("name", "alias")
            # The version guard holds whatever else matched.
            if not first.is_new:
                assert _numbers(first.key) == _numbers(first.normalised)

    asyncio.run(run())


def _numbers(s: str) -> list[str]:
    from remem.graph import number_tokens

    return sorted(number_tokens(s))


BACKENDS = ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
async def any_graph(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[GraphStore]:
    if request.param == "duckdb":
        async with DuckDBGraphStore(tmp_path / "memory.duckdb") as store:
            yield store
    else:
        async with PostgresGraphStore(request.getfixturevalue("pg_dsn")) as store:
            yield store


async def test_index_loads_from_every_backend(any_graph: GraphStore) -> None:
    await any_graph.upsert_entities(
        [
            entity("Python 3.11", entity_type="language", aliases=("CPython 3.11",)),
            entity("Zoë Ångström", entity_type="person", namespace="other"),
            entity("東京", entity_type="place"),
        ]
    )
    r = EntityResolver(any_graph)
    alias = await r.resolve("cpython 3.11", "language")
    assert (alias.entity_id, alias.how) == ("python 3.11", "alias")
    assert (await r.resolve("東京")).entity_id == "東京"
    assert (await r.resolve("zoë ångström", "person")).is_new  # another namespace
    found = await r.resolve("ZOË ÅNGSTRÖM", "person", namespace="other")
    assert (found.entity_id, found.how) == ("zoë ångström", "name")
    assert len(await r.index()) == 2
    assert len(await r.index("other")) == 1
    # Writes by someone else show after refresh().
    await any_graph.upsert_entities([entity("Rust 1.80", entity_type="language")])
    assert (await r.resolve("rust 1.80", "language")).is_new
    await r.refresh()
    assert (await r.resolve("rust 1.80", "language")).entity_id == "rust 1.80"
    assert isinstance(found, ResolvedEntity)
