"""``recall_many`` is a batched pipeline; this checks it answers exactly what looped ``recall``
answers (ids, order and scores), on the embedded stores and on PostgreSQL, for generated query
batches and options. Access counting is paused during the comparison: every recall reinforces
its hits (the usage factor), so two passes would legitimately rank differently."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import remem
from remem.controller.gc_pause import gc_paused
from remem.models import ManualClock
from tests.recovery.memory_dirs import T0

NAMES = ["Ana", "Maria", "Joao", "Pedro", "Lucia"]
WORDS = ["coffee", "garden", "piano", "train", "recipe", "summer", "novel", "blue", "key", "dog"]


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


async def _fill(rt: remem.Runtime) -> None:
    c = rt.controller
    texts = [
        f"{NAMES[i % 5]} likes the {WORDS[i % 10]} and the {WORDS[(i * 3 + 1) % 10]} ({i})"
        for i in range(60)
    ]
    await c.remember_many(texts[:40])
    await c.remember_many(texts[40:], session_id="s1")
    for i in range(12):
        await c.record_turn(f"s{i % 3}", f"{NAMES[i % 5]} talked about the {WORDS[i % 10]}", "ok")
    await c.writes.barrier()


queries = st.lists(
    st.lists(st.sampled_from([*WORDS, *NAMES, "what", "about"]), min_size=1, max_size=4).map(
        " ".join
    ),
    min_size=1,
    max_size=8,
)
options = st.fixed_dictionaries(
    {
        "k": st.integers(1, 12),
        "sources": st.sampled_from([None, ["fulltext"], ["vector"], ["vector", "fulltext"]]),
        "session_id": st.sampled_from([None, "s1"]),
        "include_decayed": st.booleans(),
    }
)


def _key(results: list[list[Any]]) -> list[list[tuple[str, float]]]:
    return [[(h.record.id, h.score) for h in r] for r in results]


@pytest.mark.parametrize("provider", ["hashing", "minilm"])
def test_recall_many_equals_looped_recall(
    tmp_path: Path, backend: dict[str, str], provider: str
) -> None:
    """``minilm`` (the bundled model, the default where installed) encodes the batch's queries
    in one call (``embed_queries``), ``recall`` each alone: the rows must be the same bits."""
    loop = asyncio.new_event_loop()
    opts: dict[str, Any] = {"embedding_provider": provider, **backend}
    rt = remem.Runtime.open(tmp_path / "m", clock=ManualClock(T0), **opts)
    try:
        loop.run_until_complete(rt.start())
        loop.run_until_complete(_fill(rt))
        c = rt.controller
        tracker = c.access_tracker
        if tracker is not None:
            loop.run_until_complete(tracker.flush())
        c.access_tracker = None

        @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(qs=queries, opts=options)
        def check(qs: list[str], opts: dict[str, Any]) -> None:
            many = loop.run_until_complete(c.recall_many(qs, **opts))
            one = [loop.run_until_complete(c.recall(q, **opts)) for q in qs]
            assert _key(many) == _key(one)
            assert len(many) == len(qs)

        check()
        c.access_tracker = tracker
    finally:
        loop.run_until_complete(rt.aclose())
        loop.close()


def test_gc_paused_restores_the_collector_and_nests() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer batch is still running
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # an application's own disable is kept
    finally:
        gc.enable()
