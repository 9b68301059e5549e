"""SQLite search — the two-step FTS5 bm25 plan and the in-memory index — returns exactly what
the direct join-then-sort form does."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remem.stores.shared.search_text import fts5_match, query_terms
from remem.stores.sqlite.codec import to_micros
from remem.stores.sqlite.episodic import SearchIndex, SQLiteEpisodicStore

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
WORDS = ["otter", "walrus", "beach", "kelp", "tide", "shell"]

_DIRECT = (
    "SELECT i.id, -bm25(episodic_fts) AS score FROM episodic_fts JOIN episodic_items AS i "
    "ON i.seq = episodic_fts.rowid WHERE episodic_fts MATCH ?{filter} "
    "ORDER BY score DESC, i.created_at_us DESC, i.id LIMIT ?"
)


def _direct(
    path: Path, query: str, limit: int, session: str | None, since: datetime | None
) -> list[tuple[object, ...]]:
    where = ""
    params: list[object] = [fts5_match(query_terms(query))]
    if session is not None:
        where += " AND i.session_id = ?"
        params.append(session)
    if since is not None:
        where += " AND i.created_at_us >= ?"
        params.append(to_micros(since))
    with sqlite3.connect(path) as conn:
        rows = conn.execute(_DIRECT.format(filter=where), [*params, limit]).fetchall()
    return [(r[0], r[1]) for r in rows]


@pytest.mark.parametrize("search_index", ["fts5", "memory"])
async def test_ties_at_the_cut_and_filters_match_the_direct_plan(
    tmp_path: Path, search_index: SearchIndex
) -> None:
    path = tmp_path / "episodic.db"
    rng = random.Random(7)
    async with SQLiteEpisodicStore(path, search_index=search_index) as store:
        for i in range(300):
            # Few distinct texts and few timestamps: many exact bm25 ties across the cut.
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
            at = T0 + timedelta(minutes=rng.randrange(5))
            await store.add_note(f"n{i:03d}", text, created_at=at, session_id=f"s{i % 3}")
        checked = 0
        for query in ("otter", "walrus beach", "kelp tide shell", "nothing here"):
            for limit in (1, 7, 30, 500):
                for session, since in (
                    (None, None),
                    ("s1", None),
                    (None, T0 + timedelta(minutes=2)),
                ):
                    got = await store.search(query, limit=limit, session_id=session, since=since)
                    want = _direct(path, query, limit, session, since)
                    assert [(h.id, h.score) for h in got] == want
                    checked += bool(want)
        assert checked > 30
