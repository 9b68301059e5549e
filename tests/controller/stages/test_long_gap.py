"""Recency never buries relevance: a fact stated on day 0, then 500 unrelated turns spread over
180 days, then the question on day 180 — the fact is in the top 5, on SQLite/DuckDB and on
PostgreSQL, with remem's defaults (recency rate 0.005/h, usage weight 0.1).

The filler is drawn per seed and deliberately shares words with the question ("sister",
"live", "Lisbon"), so that under the old unbounded ``exp(-0.005 h)`` factor (4e-10 after 180
days) the fresh filler takes every place of the top 5 — which the last test shows.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.controller import ControllerConfig
from remem.controller.stages import RecallStagesConfig, RecencyPriorConfig
from remem.models import ManualClock
from remem.runtime_config import RuntimeConfig

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
DAYS = 180
TURNS = 500
QUESTION = "Where does my sister Ana live?"
_TOPICS = [
    "I love live music on Fridays",
    "my sister called about the weekend",
    "we booked a trip to Lisbon for the conference",
    "the dog needs a walk before dinner",
    "work was busy, lots of meetings",
    "I tried a new pasta recipe",
    "the garden needs watering again",
    "we watched a documentary about whales",
    "my neighbour fixed his bike",
    "the train to the city was late",
]


async def _run(rt: Any, clock: ManualClock, seed: int) -> tuple[str, list[str], list[str]]:
    c = rt.controller
    rng = random.Random(seed)
    fact_memory = await c.remember("My sister Ana lives in Lisbon, near the river")
    fact_turn = await c.record_turn("chat", "My sister Ana lives in Lisbon now", "How lovely!")
    offsets = sorted(rng.uniform(0.5, DAYS) for _ in range(TURNS))
    for i, day in enumerate(offsets):
        clock.set(T0 + timedelta(days=day))
        text = f"{rng.choice(_TOPICS)} ({rng.choice(['ok', 'fine', 'great', 'meh'])} {i})"
        await c.record_turn("chat", text, rng.choice(["Nice.", "I see.", "Tell me more!"]))
    clock.set(T0 + timedelta(days=DAYS))
    hits = await c.recall(QUESTION, k=5)
    ids = [h.record.id for h in hits]
    many = await c.recall_many([QUESTION], k=5)
    return fact_memory.id + "|" + fact_turn.id, ids, [h.record.id for h in many[0]]


def _check(facts: str, ids: list[str], many: list[str]) -> None:
    memory_id, turn_id = facts.split("|")
    assert memory_id in ids, ids
    assert turn_id in ids, ids
    assert many == ids


@pytest.mark.parametrize("seed", [0, 1, 2])
async def test_a_months_old_fact_beats_fresh_small_talk_embedded(tmp_path: Path, seed: int) -> None:
    clock = ManualClock(T0)
    async with remem.Runtime.open(tmp_path / "memory", clock=clock) as rt:
        _check(*await _run(rt, clock, seed))


@pytest.mark.postgres
async def test_a_months_old_fact_beats_fresh_small_talk_postgres(
    pg_dsn: str, tmp_path: Path
) -> None:
    clock = ManualClock(T0)
    async with remem.Runtime.open(tmp_path, backend="postgres", dsn=pg_dsn, clock=clock) as rt:
        _check(*await _run(rt, clock, 0))


async def test_the_old_unbounded_recency_buried_it(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    old = RecallStagesConfig(recency=RecencyPriorConfig(weight=1.0, bounded_usage=False))
    config = RuntimeConfig(path=tmp_path / "memory", controller=ControllerConfig(stages=old))
    async with remem.Runtime.open(tmp_path / "memory", clock=clock, config=config) as rt:
        facts, ids, _ = await _run(rt, clock, 0)
    assert not set(facts.split("|")) & set(ids)
