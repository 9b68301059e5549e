"""Entity resolution hot path: resolve 1,000 names against a 10k-entity DuckDB graph.

Run: ``pytest benches/bench_graph.py --benchmark-only`` (``--benchmark-disable`` for a quick
correctness pass) or ``python -m benches.report benches/bench_graph.py``.

``indexed`` is :class:`EntityResolver` (exact dict lookup, then rapidfuzz over one blocking
group); ``naive`` is the obvious baseline: the same scorers through
``rapidfuzz.process.extractOne`` over every normalised name of the type, per call (no exact-key
dict, no blocking, no guards). The queries are a third exact names, a third one-letter typos and
a third unseen names; ``correct`` checks every typo resolves to its source entity and every
unseen name to a new one. ``index_kib`` is the index's tracemalloc size.
"""

from __future__ import annotations

import asyncio
import random
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rapidfuzz import fuzz, process
from tests.stores.factories import T0

from remem.graph import EntityResolver, normalise
from remem.models import Entity
from remem.stores.duckdb import DuckDBGraphStore

ENTITIES = 10_000
QUERIES = 1_000
TYPES = ("person", "org", "tool")
_FIRST = ("ana", "maria", "joao", "pedro", "lucia", "tomas", "ines", "rui", "carla", "bruno")
_LAST = ("silva", "santos", "costa", "pereira", "oliveira", "rodrigues", "martins", "gomes")


def _name(rng: random.Random, i: int) -> str:
    kind = i % 3
    if kind == 0:
        return f"{rng.choice(_FIRST).title()} {rng.choice(_LAST).title()} {i}"
    if kind == 1:
        return f"Project {rng.choice(_LAST).title()}{rng.choice(_FIRST)} v{i}"
    return f"Toolkit{i} {i % 13}.{i % 7}"


def _typo(rng: random.Random, name: str) -> str:
    letters = [k for k, c in enumerate(name) if c.isalpha() and k > 2]
    k = rng.choice(letters)
    return name[:k] + name[k + 1 :]  # drop one letter, far from the blocking prefix


@pytest.fixture(scope="module")
def world() -> tuple[list[Entity], list[tuple[str, str, str | None]]]:
    rng = random.Random(7)
    entities = [
        Entity(
            id=f"e{i:05d}",
            name=_name(rng, i),
            entity_type=TYPES[i % 3],
            created_at=T0,
            updated_at=T0,
        )
        for i in range(ENTITIES)
    ]
    queries: list[tuple[str, str, str | None]] = []
    for q in range(QUERIES):
        e = entities[rng.randrange(ENTITIES)]
        if q % 3 == 0:
            queries.append((e.name, e.entity_type, e.id))
        elif q % 3 == 1:
            queries.append((_typo(rng, e.name), e.entity_type, e.id))
        else:
            queries.append((f"Unseen {q} {rng.choice(_LAST)}", e.entity_type, None))
    return entities, queries


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


@pytest.mark.parametrize("impl", ["indexed", "naive"])
def test_resolve_1k_of_10k(
    benchmark: Any,
    tmp_path: Path,
    loop: asyncio.AbstractEventLoop,
    world: tuple[list[Entity], list[tuple[str, str, str | None]]],
    impl: str,
) -> None:
    entities, queries = world
    store = DuckDBGraphStore(tmp_path / "bench.duckdb")
    loop.run_until_complete(store.upsert_entities(entities))
    resolver = EntityResolver(store)
    tracemalloc.start()
    loop.run_until_complete(resolver.index())
    benchmark.extra_info["index_kib"] = round(tracemalloc.get_traced_memory()[0] / 1024)
    tracemalloc.stop()
    by_type: dict[str, tuple[list[str], list[str]]] = {t: ([], []) for t in TYPES}
    for e in entities:
        by_type[e.entity_type][0].append(normalise(e.name))
        by_type[e.entity_type][1].append(e.id)

    def indexed() -> list[str | None]:
        async def run() -> list[str | None]:
            out: list[str | None] = []
            for name, etype, _ in queries:
                got = await resolver.resolve(name, etype)
                out.append(None if got.is_new else got.entity_id)
            return out

        return loop.run_until_complete(run())

    def naive() -> list[str | None]:
        out: list[str | None] = []
        for name, etype, _ in queries:
            keys, ids = by_type[etype]
            key = normalise(name)
            hits = [
                process.extractOne(key, keys, scorer=scorer, processor=None, score_cutoff=90)
                for scorer in (fuzz.token_sort_ratio, fuzz.ratio)
            ]
            best = max((h for h in hits if h is not None), key=lambda h: h[1], default=None)
            out.append(None if best is None else ids[best[2]])
        return out

    benchmark.group = "graph resolve 1k of 10k"
    benchmark.extra_info["queries"] = QUERIES
    got = benchmark.pedantic(
        indexed if impl == "indexed" else naive, rounds=3 if impl == "indexed" else 1
    )
    benchmark.extra_info["correct"] = bool(got == [want for _, _, want in queries])
    loop.run_until_complete(store.aclose())
