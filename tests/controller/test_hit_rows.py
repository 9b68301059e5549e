"""The lazily built full-text hits (``remem.stores.sqlite.hit_rows.HitRows``, the embedded
store's memory-index results) change nothing: recall answers exactly what it answers with every
hit built by the store (records, order, bit-equal scores, signals, sources, explanation), with
the candidate depth small enough that the prior cut runs; the store's rows equal its hits; and
the propagation and cut over the columns equal the reference ``prior_cut(propagate_neighbours
(...))``, transcript neighbours appended or not. PostgreSQL keeps the object path (its store
builds hits from its own rows), so these run on the embedded stores only."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import remem
from remem.controller.recall_options import recall_options
from remem.controller.stages import cut_texts, prior_cut, propagate_neighbours
from remem.embeddings import embed_queries
from remem.models import EpisodeKind, EpisodicHit, ManualClock
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.sqlite.hit_rows import HitRows
from tests.controller.test_columnar_rank import NAMES, WORDS, _fill, _full, options, queries
from tests.recovery.memory_dirs import T0


async def _fill_speakers(rt: remem.Runtime, clock: ManualClock) -> None:
    """``_fill``'s world plus turns that name their speaker in metadata (the speaker cue of the
    prior cut reads it) and share words, so the deep full-text lists are longer than the cut."""
    await _fill(rt, clock)
    c = rt.controller
    for i in range(24):
        name = NAMES[i % 5]
        await c.record_turn(
            f"s{i % 4}",
            f"{name} said the {WORDS[i % 9]} was near the {WORDS[(i * 5 + 2) % 9]}",
            "ok",
            metadata={"speaker": name},
        )
        clock.advance(timedelta(hours=7))
    await c.writes.barrier()


def test_recall_with_hit_rows_equals_recall_with_built_hits(tmp_path: Path) -> None:
    loop = asyncio.new_event_loop()
    clock = ManualClock(T0)
    rt = remem.Runtime.open(tmp_path / "m", clock=clock, embedding_provider="hashing")
    try:
        loop.run_until_complete(rt.start())
        loop.run_until_complete(_fill_speakers(rt, clock))
        c = rt.controller
        pipeline = c._recall
        assert isinstance(pipeline.retrieval.episodic, SQLiteEpisodicStore)
        base = pipeline.config
        now = clock.now() + timedelta(days=1)

        @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(qs=queries, o=options, candidates=st.sampled_from([3, 6, 30]))
        def check(qs: list[str], o: dict[str, Any], candidates: int) -> None:
            pipeline.config = dataclasses.replace(base, candidates=candidates)
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
            for lazy in (True, False):
                pipeline.retrieval.hit_rows = lazy
                got[lazy] = loop.run_until_complete(pipeline.run(qs, vectors, ro, now))
            pipeline.retrieval.hit_rows = True
            assert _full(got[True]) == _full(got[False])
            assert len(got[True]) == len(qs)

        check()
    finally:
        loop.run_until_complete(rt.aclose())
        loop.close()


def test_hit_rows_columns_and_cut_equal_the_built_hits(tmp_path: Path) -> None:
    loop = asyncio.new_event_loop()
    clock = ManualClock(T0)
    rt = remem.Runtime.open(tmp_path / "m", clock=clock, embedding_provider="hashing")
    try:
        loop.run_until_complete(rt.start())
        loop.run_until_complete(_fill_speakers(rt, clock))
        pipeline = rt.controller._recall
        store = pipeline.retrieval.episodic
        assert isinstance(store, SQLiteEpisodicStore)
        stages, inclusion = pipeline.config.stages, pipeline.config.inclusion
        now = clock.now() + timedelta(days=1)
        # A neighbour read from the transcript (score 0), as expand_neighbours appends it.
        extra = EpisodicHit(
            id="x1",
            kind=EpisodeKind.TURN,
            session_id="s1",
            turn_number=2,
            text="Ana went by train last week",
            score=0.0,
            created_at=datetime(2024, 3, 1, tzinfo=UTC),
            metadata={"speaker": "Ana"},
        )

        @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(qs=queries, depth=st.integers(1, 12), extended=st.booleans())
        def check(qs: list[str], depth: int, extended: bool) -> None:
            lazy = loop.run_until_complete(store.search_many_rows(qs, limit=40))
            built = loop.run_until_complete(store.search_many(qs, limit=40))
            assert [list(h) for h in lazy] == built
            for q, hits in zip(qs, lazy, strict=True):
                if extended and isinstance(hits, HitRows):
                    hits = hits.extended([extra])
                if isinstance(hits, HitRows):
                    fresh = loop.run_until_complete(store.search_many_rows([q], limit=40))[0]
                    assert isinstance(fresh, HitRows)
                    ref = fresh.extended([extra]) if extended else fresh
                    # The columns, read before any hit is built, equal the built hits' fields.
                    cols = [
                        (ref.position(i), ref.score(i), ref.speaker(i), ref.cue(i), ref.text(i))
                        for i in range(len(ref))
                    ]
                    unbuilt = ref.speakers()
                    objs = [
                        (
                            (h.session_id, h.turn_number) if h.kind is EpisodeKind.TURN else None,
                            h.score,
                            h.metadata.get("speaker"),
                            (h.created_at, h.text),
                            h.text,
                        )
                        for h in ref
                    ]
                    assert cols == objs
                    assert ref.positions() == [c[0] for c in cols]
                    assert ref.scores() == [c[1] for c in cols]
                    assert unbuilt == ref.speakers() == [c[2] for c in cols]
                reference = prior_cut(
                    q,
                    propagate_neighbours(list(hits), stages.neighbours),
                    depth,
                    now,
                    stages,
                    inclusion,
                )
                assert cut_texts(q, hits, depth, now, stages, inclusion) == reference

        check()
    finally:
        loop.run_until_complete(rt.aclose())
        loop.close()
