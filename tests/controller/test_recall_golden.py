"""Recall output is pinned: a fixed dataset's results equal a stored golden file, exactly.

Performance work on the recall path (caches, batched fetches, trusted model construction) must
not change a single id, score, signal or explanation. The dataset covers the three retrievers
(vector, full text over notes and turns, graph paths), supersession, forgetting, access
reinforcement, session-scoped turns, filters and decayed stages; every query runs twice (cold
and warm caches), through ``recall`` and through ``recall_many``.

Regenerate (only when a behaviour change is intended): ``REMEM_WRITE_GOLDEN=1 python -m pytest
tests/controller/test_recall_golden.py``.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import remem
from remem.models import Entity, ManualClock, Relationship, ScoredMemory
from tests.controller import eval_set
from tests.controller.conftest import T0

GOLDEN = Path(__file__).parent / "data" / "recall_golden.json"

CASES: list[dict[str, Any]] = [
    {},
    {"k": 3},
    {"session_id": "chat"},
    {"filters": {"kind": "fact"}},
    {"stages": ["long_term", "short_term"]},
    {"include_decayed": True, "k": 20},
]


def _hit(h: ScoredMemory) -> dict[str, Any]:
    r = h.record
    return {
        "id": r.id,
        "score": repr(round(h.score, 12)),
        "sources": list(h.sources),
        "signals": {k: repr(round(v, 10)) for k, v in sorted(h.signals.items())},
        "explanation": h.explanation,
        "text": r.text,
        "stage": r.lifecycle.stage.value,
        "kind": r.kind.value,
        "session_id": r.session_id,
        "metadata": r.metadata,
        "entity_ids": list(r.entity_ids),
        "access_count": r.lifecycle.access_count,
    }


async def _world(rt: remem.Runtime, clock: ManualClock) -> list[str]:
    c = rt.controller
    data = eval_set.build(seed=11, people=12)
    for i, (mid, text) in enumerate(data.memories):
        await c.remember(text, memory_id=mid, kind="fact" if i % 3 else "preference")
    for i, (user, assistant) in enumerate(data.turns[:40]):
        session = "chat" if i % 2 else "other"
        await c.record_turn(session, user, assistant, entry_id=f"t{i}")
        clock.advance(timedelta(minutes=7))
    ids = [mid for mid, _ in data.memories]
    await c.supersede(ids[0], ids[1])
    await c.forget([ids[2], ids[3]])
    # Graph: entities with fixed ids and relationships, so graph hits have stable keys.
    g = (await c.settled()).graph
    people = sorted({q.question.split()[-1].strip("?") for q in data.questions})[:3]
    await g.upsert_entities(
        [Entity(id=f"e{i}", name=name, entity_type="person") for i, name in enumerate(people)]
        + [Entity(id="city", name="Lisbon", entity_type="place")]
    )
    await g.add_relationships(
        [
            Relationship(id=f"r{i}", source_id=f"e{i}", target_id="city", relation_type="lives_in")
            for i in range(len(people))
        ]
    )
    # Reinforce some by recalling (access counts change ranks), then let the lifecycle promote
    # and decay, so every stage is represented.
    lc = rt.lifecycle
    assert lc is not None
    clock.advance(timedelta(days=3))
    for q in data.questions[:10]:
        for _ in range(4):
            await c.recall(q.question)
        await c.access_tracker.flush()  # type: ignore[union-attr]
    clock.advance(timedelta(days=6))
    report = await lc.execute(await lc.preview())
    assert report is not None
    clock.advance(timedelta(hours=5))
    # The flush timer restarts here; the manual clock no longer moves, so no automatic flush
    # changes access counts (and ranks) between the runs compared below.
    await c.recall(data.questions[11].question)
    await c.access_tracker.flush()  # type: ignore[union-attr]
    return [q.question for q in data.questions[::3]] + [f"where does {p} live?" for p in people]


async def _run(rt: remem.Runtime, questions: list[str]) -> list[Any]:
    c = rt.controller
    out: list[Any] = []
    for case in CASES:
        single = [[_hit(h) for h in await c.recall(q, **case)] for q in questions]
        again = [[_hit(h) for h in await c.recall(q, **case)] for q in questions]
        many = [[_hit(h) for h in r] for r in await c.recall_many(questions, **case)]
        assert again == single, f"a repeated recall differs ({case})"
        assert many == single, f"recall_many differs from recall ({case})"
        out.append({"case": case, "results": single})
    return out


async def test_recall_output_matches_golden(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    async with remem.Runtime.open(
        tmp_path / "mem",
        clock=clock,
        embedding_provider="hashing",  # the golden file is lexical
    ) as rt:
        questions = await _world(rt, clock)
        got = await _run(rt, questions)
    if os.environ.get("REMEM_WRITE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    expected = json.loads(GOLDEN.read_text())
    assert len(expected) == len(got)
    for want, have in zip(expected, got, strict=True):
        assert want["case"] == have["case"]
        for i, (w, h) in enumerate(zip(want["results"], have["results"], strict=True)):
            assert w == h, f"case {have['case']}, question {i}: recall output changed"
