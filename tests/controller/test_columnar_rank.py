"""The columnar batch ranking (``remem.controller.columnar``) answers exactly what the per-query
ranking answers: the same records in the same order, bit-equal scores, the same signals (in
the same order), sources and explanation — on the embedded stores and on PostgreSQL, for
generated query batches and options over a world with every kind of candidate (memories,
turns, a turn that copies a memory, graph paths, keyed facts in conflict, speakers, dated
turns) and ties (memories with equal texts)."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import remem
from remem.controller.columnar import supports
from remem.controller.config import FusionConfig
from remem.controller.recall_options import recall_options
from remem.controller.stages.config import RecallStagesConfig
from remem.controller.stages.diversity import DiversityConfig
from remem.controller.stages.rerank import RerankConfig
from remem.controller.stages.sessions import SessionConfig
from remem.embeddings import embed_queries
from remem.models import Entity, ManualClock, Relationship, ScoredMemory
from tests.recovery.memory_dirs import T0

NAMES = ["Ana", "Maria", "Joao", "Pedro", "Lucia"]
WORDS = ["coffee", "garden", "piano", "train", "Lisbon", "Porto", "city", "dog", "summer"]
CUES = [
    "when",
    "what",
    "yesterday",
    "last week",
    "in May",
    "did",
    "move",
    "lives",
    "which",
    "where did",
]


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


async def _fill(rt: remem.Runtime, clock: ManualClock) -> None:
    c = rt.controller
    for i in range(30):
        name, word = NAMES[i % 5], WORDS[i % 9]
        await c.remember(
            f"{name} talked about the {word} and the {WORDS[(i * 4 + 1) % 9]}",
            metadata={"speaker": name},
            session_id=f"s{i % 3}",
        )
        clock.advance(timedelta(hours=5))
    # Equal texts (ties broken by id) and keyed facts stating different values of one key.
    for _ in range(3):
        await c.remember("Ana likes the piano")
    for i, city in enumerate(["Porto", "Lisbon", "Faro"]):
        await c.remember(
            f"Maria lives in {city}",
            metadata={"subject": "Maria", "attribute": "city", "value": city},
            valid_from=T0 + timedelta(days=i),
        )
        clock.advance(timedelta(days=3))
    for i in range(12):
        name = NAMES[i % 5]
        when = " last week" if i % 2 else ""  # a stated time (the time-expression prior)
        await c.record_turn(f"s{i % 3}", f"{name} went by train to {WORDS[i % 9]}{when}", "nice")
        clock.advance(timedelta(days=2))
    # A turn that copies a memory's words (merged into the memory's candidate).
    await c.remember("Pedro walks the dog in the garden")
    await c.record_turn("s1", "Pedro walks the dog in the garden", "")
    await c.writes.barrier()
    g = (await c.settled()).graph
    await g.upsert_entities(
        [Entity(id=f"e{i}", name=n, entity_type="person") for i, n in enumerate(NAMES[:3])]
        + [Entity(id="city", name="Lisbon", entity_type="place")]
    )
    await g.add_relationships(
        [
            Relationship(id=f"r{i}", source_id=f"e{i}", target_id="city", relation_type="lives_in")
            for i in range(3)
        ]
    )


def _full(results: list[list[ScoredMemory]]) -> list[list[tuple[Any, ...]]]:
    return [
        [(h.record, h.score, list(h.signals.items()), h.sources, h.explanation) for h in hits]
        for hits in results
    ]


queries = st.lists(
    st.lists(st.sampled_from([*WORDS, *NAMES, *CUES]), min_size=1, max_size=5).map(" ".join),
    min_size=1,
    max_size=8,
)
options = st.fixed_dictionaries(
    {
        "k": st.integers(1, 15),
        "sources": st.sampled_from([None, ["fulltext"], ["vector"], ["graph", "fulltext"]]),
        "session_id": st.sampled_from([None, "s1"]),
        "include_decayed": st.booleans(),
        "filters": st.sampled_from([None, {"kind": "fact"}, {"session_id": "s2"}]),
    }
)


def test_columnar_rank_equals_the_per_query_rank(tmp_path: Path, backend: dict[str, str]) -> None:
    loop = asyncio.new_event_loop()
    clock = ManualClock(T0)
    opts: dict[str, Any] = {"embedding_provider": "hashing", **backend}
    rt = remem.Runtime.open(tmp_path / "m", clock=clock, **opts)
    try:
        loop.run_until_complete(rt.start())
        loop.run_until_complete(_fill(rt, clock))
        c = rt.controller
        pipeline = c._recall
        assert supports(pipeline.fusion, pipeline.config.stages)
        now = clock.now() + timedelta(days=1)

        @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(qs=queries, o=options)
        def check(qs: list[str], o: dict[str, Any]) -> None:
            ro = recall_options(
                c.config.max_k,
                o["k"],
                None,
                o["filters"],
                o["include_decayed"],
                o["session_id"],
                o["sources"],
                None,
            )
            vectors = loop.run_until_complete(embed_queries(c.collection_manager.embeddings, qs))
            got = {}
            for columnar in (True, False):
                pipeline.columnar = columnar
                got[columnar] = loop.run_until_complete(pipeline.run(qs, vectors, ro, now))
            pipeline.columnar = True
            assert _full(got[True]) == _full(got[False])
            assert len(got[True]) == len(qs)
            assert all(len(hits) <= o["k"] for hits in got[True])

        check()
    finally:
        loop.run_until_complete(rt.aclose())
        loop.close()


def test_columnar_rank_covers_the_default_stages_only() -> None:
    fusion = FusionConfig(method="linear", features={"vector": 1.0, "fulltext_rr": 0.5})
    stages = RecallStagesConfig()
    assert supports(fusion, stages)
    assert not supports(FusionConfig(method="rrf"), stages)
    assert not supports(FusionConfig(method="linear"), stages)  # weights not resolved yet
    for changed in (
        dataclasses.replace(stages, rerank=RerankConfig(enabled=True)),
        dataclasses.replace(stages, diversity=DiversityConfig(enabled=True)),
        dataclasses.replace(stages, sessions=SessionConfig(enabled=True)),
    ):
        assert not supports(fusion, changed)
