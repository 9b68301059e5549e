"""Consolidation hot path: supersede contradicted keyed facts among 10k on a real Runtime.

Run: ``pytest benches/bench_consolidation.py --benchmark-only`` (``--benchmark-disable`` for a
quick correctness pass).

The memory holds 10,000 keyed ``city`` facts: 2,000 subjects × 5 values, each with a random
``valid_from`` (so insertion order is not validity order). Consolidation must leave, per
subject, only the fact with the latest validity time live: 8,000 supersessions.

* ``set_based`` — :meth:`MemoryConsolidator.supersede_contradictions`: one
  ``RecordStore.keyed_facts`` query, grouping in Python, one ``supersede_many`` batch and one
  vector removal per stage.
* ``naive`` — the obvious loop: scan the records, and for each keyed fact ask the store for the
  facts of its subject and attribute to find its successor, then ``controller.supersede`` it,
  one record at a time. It handles a NAIVE-record slice of the same 10k-fact memory (every
  per-record query still searches all 10k) in one round; ``extra_info["scaled_s"]`` is its
  time × FACTS / NAIVE, the estimate for all 10k (a full run took ~340 s a round).

Each round starts from a copy of the same prepared memory directory (the copy is not timed).
``correct`` checks that exactly the expected 2,000 facts are live and 8,000 were superseded,
each by its successor in validity order.
"""

from __future__ import annotations

import asyncio
import random
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.consolidation import MemoryConsolidator
from remem.consolidation.contradictions import fact_key, fact_validity
from remem.controller import MemorySpec
from remem.models import ManualClock, MemoryRecord

NAIVE = 1_000
SUBJECTS = 2_000
PER_SUBJECT = 5
FACTS = SUBJECTS * PER_SUBJECT
T0 = datetime(2024, 1, 1, tzinfo=UTC)
_CITIES = ("Lisbon", "Porto", "Faro", "Braga", "Evora", "Coimbra", "Aveiro")


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


async def _prepare(path: Path) -> dict[str, str]:
    """The memory directory with 10k facts; returns {record id: expected successor id | ""}."""
    rng = random.Random(11)
    specs = [
        MemorySpec(
            f"person {s} lives in {city}",
            metadata={"subject": f"person {s}", "attribute": "city", "value": city},
        )
        for s in range(SUBJECTS)
        for city in rng.sample(_CITIES, PER_SUBJECT)
    ]
    async with remem.Runtime.open(path, clock=ManualClock(T0)) as rt:
        records = await rt.controller.remember_many(specs)
        dated = [
            r.model_copy(update={"valid_from": T0 - timedelta(days=rng.randrange(5_000))})
            for r in records
        ]
        await (await rt.controller.settled()).records.upsert(dated)
    expected: dict[str, str] = {}
    groups: dict[object, list[MemoryRecord]] = {}
    for r in dated:
        groups.setdefault(fact_key(r), []).append(r)
    for group in groups.values():
        ordered = sorted(group, key=lambda r: (fact_validity(r), r.lifecycle.created_at, r.id))
        for a, b in zip(ordered, [*ordered[1:], None], strict=True):
            expected[a.id] = "" if b is None else b.id
    return expected


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("consolidation") / "memory"
    lp = asyncio.new_event_loop()
    try:
        expected = lp.run_until_complete(_prepare(path))
    finally:
        lp.close()
    return path, expected


def _order(r: MemoryRecord) -> tuple[datetime, datetime, str]:
    return (fact_validity(r), r.lifecycle.created_at, r.id)


async def _naive(rt: remem.Runtime) -> int:
    c = rt.controller
    plan: list[tuple[MemoryRecord, MemoryRecord]] = []
    for record in (await (await c.settled()).records.scan())[:NAIVE]:
        key = fact_key(record)
        if key is None or key[2] != "city":
            continue
        same = await (await c.settled()).records.keyed_facts(subjects=[key[1]], attributes=[key[2]])
        later = [r for r in same if _order(r) > _order(record)]
        if later:
            plan.append((record, min(later, key=_order)))
    # Oldest first, so a chain's successor is still live when its predecessor is superseded.
    for old, new in sorted(plan, key=lambda p: _order(p[0])):
        await c.supersede(old.id, new.id, at=fact_validity(new))
    return len(plan)


async def _set_based(rt: remem.Runtime) -> int:
    return len(await MemoryConsolidator(rt.controller).supersede_contradictions())


async def _check(rt: remem.Runtime, expected: dict[str, str], ids: set[str] | None) -> bool:
    """Every record (or those in ``ids``) superseded by exactly its expected successor."""
    stored = await (await rt.controller.settled()).records.scan(include_superseded=True)
    got = {r.id: r.superseded_by or "" for r in stored if ids is None or r.id in ids}
    return got == {k: v for k, v in expected.items() if ids is None or k in ids}


@pytest.mark.parametrize("method", ["set_based", "naive"])
def test_supersede_10k_facts(
    benchmark: Any,
    tmp_path: Path,
    loop: asyncio.AbstractEventLoop,
    prepared: tuple[Path, dict[str, str]],
    method: str,
) -> None:
    source, expected = prepared
    benchmark.group = "supersede 10k facts"
    run = _set_based if method == "set_based" else _naive
    state: dict[str, Any] = {}
    rounds = iter(range(1_000))

    def setup() -> tuple[tuple[()], dict[str, Any]]:
        if "rt" in state:  # the previous round's runtime
            loop.run_until_complete(state["rt"].aclose())
        target = tmp_path / f"round-{next(rounds)}"
        shutil.copytree(source, target)
        state["rt"] = loop.run_until_complete(
            remem.Runtime.open(target, clock=ManualClock(T0 + timedelta(days=1))).start()
        )
        return (), {}

    def consolidate() -> int:
        return loop.run_until_complete(run(state["rt"]))

    naive = method == "naive"
    superseded = benchmark.pedantic(
        consolidate, setup=setup, rounds=1 if naive else 3, iterations=1
    )
    rt = state["rt"]
    if naive:
        stores = loop.run_until_complete(rt.controller.settled())
        scanned = loop.run_until_complete(stores.records.scan(include_superseded=True))
        slice_ids = {r.id for r in scanned[:NAIVE]}
        want = sum(1 for i in slice_ids if expected[i])
        correct = superseded == want and loop.run_until_complete(_check(rt, expected, slice_ids))
    else:
        correct = superseded == FACTS - SUBJECTS and loop.run_until_complete(
            _check(rt, expected, None)
        )
    loop.run_until_complete(rt.aclose())
    benchmark.extra_info["facts"] = FACTS
    benchmark.extra_info["handled"] = NAIVE if naive else FACTS
    benchmark.extra_info["superseded"] = superseded
    benchmark.extra_info["correct"] = correct
    if naive and benchmark.stats is not None:
        benchmark.extra_info["scaled_s"] = benchmark.stats.stats.mean * FACTS / NAIVE
    assert correct
