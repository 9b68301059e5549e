"""SQLiteEpisodicStore's in-memory index: the same hits, order and scores as the FTS5 path, and
it sees every committed write (its own, another store object's, a raw connection's)."""

from __future__ import annotations

import asyncio
import math
import random
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remem.errors import ConfigError
from remem.models import EpisodicHit, TranscriptEntry
from remem.stores.episodic import NoteInput
from remem.stores.sqlite.episode_index import EpisodeIndex, EpisodeQuery, HitRowCache, fetch_hits
from remem.stores.sqlite.episodic import SQLiteEpisodicStore

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
# Repeated English words, accents, CJK (bigrams), a Greek final sigma (FTS5 folds it), kana
# with a middle dot (FTS5 drops it) and a New Tai Lue word FTS5 splits (a phrase: FTS5 answers).
VOCAB = [
    *"otter walrus beach kelp tide shell reef gull harbour lighthouse".split(),  # noqa: SIM905
    "café",
    "Cafe",
    "東京",
    "京都に住む",
    "οδος",
    "ΟΔΟΣ",
    "ヴァイオリン・ソナタ",
    "ᦀᦰᦁ",
    "the",
    "is",
    "!!",
]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(VOCAB) for _ in range(rng.randint(0, 7)))


async def _fill(store: SQLiteEpisodicStore, rng: random.Random, n: int, start: int = 0) -> None:
    notes = []
    for i in range(start, start + n):
        # Few distinct timestamps and texts drawn from a small vocabulary: many exact ties.
        session = rng.choice(["s0", "s1", "s2", None])
        at = T0 + timedelta(minutes=rng.randrange(6))
        notes.append(NoteInput(f"n{i:04d}", _text(rng) or "!", at, session, {}))
    await store.add_notes(notes)
    turns = [
        TranscriptEntry(
            id=f"t{start}-{j}",
            session_id="s1",
            turn_number=start + j + 1,
            user_message=_text(rng) or "?",
            assistant_message=rng.choice(["", "ok", "kelp kelp kelp"]),
            created_at=T0 + timedelta(minutes=rng.randrange(6)),
        )
        for j in range(n // 10)
    ]
    await store.index_turns(turns)


def _same(got: list[EpisodicHit], want: list[EpisodicHit]) -> bool:
    return [h.id for h in got] == [h.id for h in want] and all(
        math.isclose(a.score, b.score, rel_tol=1e-9) for a, b in zip(got, want, strict=True)
    )


QUERIES = [
    "otter",
    "walrus beach kelp",
    "where is the lighthouse?",
    "cafe",
    "東京に住む",
    "京",
    "ὁδός",
    "ヴァイオリン・ソナタ",
    "ᦀᦰᦁ otter",
    "the is",
    "nothing matches",
    "gull gull reef",
]


async def test_memory_index_equals_fts5_on_a_tie_heavy_multilingual_corpus(
    tmp_path: Path,
) -> None:
    path = tmp_path / "episodic.db"
    rng = random.Random(5)
    async with (
        SQLiteEpisodicStore(path, search_index="memory") as memory,
        SQLiteEpisodicStore(path, search_index="fts5") as fts5,
    ):
        await _fill(memory, rng, 400)
        compared = 0
        for round_ in range(2):
            for query in QUERIES:
                for limit in (1, 3, 10, 1000):
                    for session, since, until in (
                        (None, None, None),
                        ("s1", None, None),
                        ("s2", T0 + timedelta(minutes=2), None),
                        (None, None, T0 + timedelta(minutes=3)),
                        ("nobody", None, None),
                    ):
                        kw = {"limit": limit, "session_id": session, "since": since}
                        got = await memory.search(query, **kw, until=until)  # type: ignore[arg-type]
                        want = await fts5.search(query, **kw, until=until)  # type: ignore[arg-type]
                        assert _same(got, want), (query, limit, session, since, until)
                        compared += bool(want)
            many = await memory.search_many(QUERIES, limit=5, session_id="s1")
            many_fts5 = await fts5.search_many(QUERIES, limit=5, session_id="s1")
            assert all(_same(a, b) for a, b in zip(many, many_fts5, strict=True))
            # Round 2: appended rows land in the tail segment of the already built index.
            await _fill(fts5, rng, 60, start=1000 * (round_ + 1))
        assert compared > 300


async def test_read_your_writes_and_lazy_build(tmp_path: Path) -> None:
    async with SQLiteEpisodicStore(tmp_path / "e.db") as store:
        assert store.search_index == "memory"
        await store.add_note("a", "walrus on the beach", created_at=T0)
        episodes = store._episodes
        assert episodes is not None
        assert episodes.view.last_seq == 0  # nothing built before the first search
        assert [h.id for h in await store.search("walrus")] == ["a"]
        assert episodes.view.last_seq == 1
        await store.add_note("b", "a walrus and an otter", created_at=T0)
        assert [h.id for h in await store.search("otter")] == ["b"]
        assert sorted(h.id for h in await store.search("walrus")) == ["a", "b"]
        assert [[h.id for h in hits] for hits in await store.search_many(["otter", "beach"])] == [
            ["b"],
            ["a"],
        ]


async def test_sees_writes_of_other_connections_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    async with SQLiteEpisodicStore(path) as reader, SQLiteEpisodicStore(path) as writer:
        await writer.add_note("a", "kelp forest", created_at=T0)
        assert [h.id for h in await reader.search("kelp")] == ["a"]
        await writer.add_note("b", "kelp and tide", created_at=T0 + timedelta(minutes=1))
        # Both hold "kelp" once; the shorter text ranks first (bm25's length normalisation).
        assert [h.id for h in await reader.search("kelp")] == ["a", "b"]
        # A raw connection (another process would look the same): the trigger feeds FTS5 and
        # the row is past the index's last seq.
        with sqlite3.connect(path) as conn:
            conn.execute(
                "INSERT INTO episodic_items (id, kind, text, created_at_us, metadata, "
                "search_text) VALUES ('c', 'note', 'tide pool', 0, '{}', 'tide pool')"
            )
        # Shorter first again: "tide pool" (2 tokens) before "kelp and tide" (3).
        assert [h.id for h in await reader.search("tide")] == ["c", "b"]
        before = [(h.id, h.score) for h in await reader.search("kelp tide pool", limit=5)]
    async with SQLiteEpisodicStore(path) as reopened:
        after = [(h.id, h.score) for h in await reopened.search("kelp tide pool", limit=5)]
    assert after == before


async def test_search_many_while_adding(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    rng = random.Random(9)
    async with SQLiteEpisodicStore(path) as store:
        await _fill(store, rng, 200)
        known = {f"n{i:04d}" for i in range(200)} | {f"t0-{j}" for j in range(20)}

        async def add() -> None:
            for i in range(200, 260):
                await store.add_note(f"n{i:04d}", _text(rng) or "!", created_at=T0)
                known.add(f"n{i:04d}")

        async def search() -> list[list[list[EpisodicHit]]]:
            return [await store.search_many(QUERIES, limit=20) for _ in range(15)]

        _, rounds = await asyncio.gather(add(), search())
        for batch in rounds:
            for hits in batch:
                assert {h.id for h in hits} <= known
                assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        async with SQLiteEpisodicStore(path, search_index="fts5") as fts5:
            final = await store.search_many(QUERIES, limit=20)
            want = await fts5.search_many(QUERIES, limit=20)
        assert all(_same(a, b) for a, b in zip(final, want, strict=True))


def test_rejects_an_unknown_search_index(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        SQLiteEpisodicStore(tmp_path / "e.db", search_index="bm25")  # type: ignore[arg-type]


async def test_index_rebuilds_when_rows_vanish(tmp_path: Path) -> None:
    # max(seq) below the last indexed seq: not the indexed table any more, so start over.
    for name, count in (("big.db", 5), ("small.db", 2)):
        async with SQLiteEpisodicStore(tmp_path / name) as store:
            for i in range(count):
                await store.add_note(f"{name}-{i}", f"kelp {i}", created_at=T0)
    index = EpisodeIndex()
    with (
        closing(sqlite3.connect(tmp_path / "big.db")) as big,
        closing(sqlite3.connect(tmp_path / "small.db")) as small,
    ):
        assert index.catch_up(big).last_seq == 5
        view = index.catch_up(small)
    assert (view.last_seq, view.terms.n_docs) == (2, 2)
    assert view.seqs.tolist() == [1, 2]


def test_hit_rows_come_from_the_cache_and_never_from_a_replaced_file(tmp_path: Path) -> None:
    index = EpisodeIndex()

    async def seed() -> None:
        for name, count in (("big.db", 5), ("small.db", 2)):
            async with SQLiteEpisodicStore(tmp_path / name) as store:
                for i in range(count):
                    await store.add_note(f"{name}-{i}", f"kelp {i}", created_at=T0)

    asyncio.run(seed())
    query = EpisodeQuery(terms=("kelp",), limit=10)
    with (
        closing(sqlite3.connect(tmp_path / "big.db")) as big,
        closing(sqlite3.connect(tmp_path / "small.db")) as small,
    ):
        view = index.catch_up(big)
        first = fetch_hits(big, [query], view.candidates_many([query]), index.hit_rows)
        assert len(index.hit_rows) == 5
        # the same rows again, now from the cache, while the table is gone from this connection
        big.execute("ALTER TABLE episodic_items RENAME TO hidden")
        again = fetch_hits(big, [query], view.candidates_many([query]), index.hit_rows)
        assert again == first
        big.execute("ALTER TABLE hidden RENAME TO episodic_items")
        # a replaced file (max(seq) went down) resets the index and its rows: seqs 1 and 2 are
        # other rows there
        view = index.catch_up(small)
        assert len(index.hit_rows) == 0
        rows = fetch_hits(small, [query], view.candidates_many([query]), index.hit_rows)[0]
        assert rows is not None
        assert sorted(r[0] for r in rows) == ["small.db-0", "small.db-1"]  # (id, kind, ...)


def test_the_hit_row_cache_holds_its_limit_newest_first_out() -> None:
    cache = HitRowCache(limit=3)
    cache.store({s: (s, f"row {s}") for s in range(1, 6)})
    assert len(cache) == 3
    assert cache.lookup([1, 3, 5, 9]) == ({3: (3, "row 3"), 5: (5, "row 5")}, [1, 9])
    cache.clear()
    assert cache.lookup([5]) == ({}, [5])
    HitRowCache(limit=0).store({1: (1,)})  # a zero limit holds nothing and does not fail
