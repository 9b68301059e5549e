"""Stores built before stemming (or with another language) are re-indexed from their stored texts
on open, on both backends, and nothing stored is lost."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from remem.errors import ConfigError
from remem.models import TranscriptEntry
from remem.stores import EpisodicStore
from remem.stores.postgres.episodic import PostgresEpisodicStore
from remem.stores.shared.search_text import DEFAULT_FULL_TEXT, FullTextConfig
from remem.stores.sqlite.episodic import SQLiteEpisodicStore

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
UNSTEMMED = FullTextConfig(language=None)

# The episodic schema remem shipped before stemming (schema version 1, no identity table):
# what a user's existing episodic.db holds.
_LEGACY_SQLITE = (
    "CREATE TABLE remem_schema (component TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL)",
    "INSERT INTO remem_schema VALUES ('episodic', 1)",
    """CREATE TABLE episodic_items (
        seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, session_id TEXT,
        turn_number INTEGER, user_message TEXT, assistant_message TEXT, text TEXT NOT NULL,
        created_at_us INTEGER NOT NULL, metadata TEXT NOT NULL, search_text TEXT NOT NULL)""",
    """CREATE UNIQUE INDEX episodic_items_turn ON episodic_items (session_id, turn_number)
        WHERE kind = 'turn'""",
    """CREATE VIRTUAL TABLE episodic_fts USING fts5(search_text, content='episodic_items',
        content_rowid='seq', tokenize='unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER episodic_items_indexed AFTER INSERT ON episodic_items BEGIN
        INSERT INTO episodic_fts (rowid, search_text) VALUES (new.seq, new.search_text); END""",
    """CREATE TRIGGER episodic_items_immutable BEFORE UPDATE ON episodic_items
        BEGIN SELECT RAISE(ABORT, 'episodes are immutable'); END""",
)
_TEXTS = [
    "Caroline: we went hiking near the lake",
    "Melanie: I painted a sunrise last week",
    "Caroline: the adoption agencies called back",
]


def _turns() -> list[TranscriptEntry]:
    return [
        TranscriptEntry(
            id=f"s1-{n}",
            session_id="s1",
            turn_number=n,
            user_message=text,
            assistant_message="",
            created_at=T0 + timedelta(minutes=n),
            metadata={"n": n},
        )
        for n, text in enumerate(_TEXTS, 1)
    ]


def _legacy_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    for statement in _LEGACY_SQLITE:
        conn.execute(statement)
    for entry in _turns():
        micros = int(entry.created_at.timestamp() * 1_000_000)
        conn.execute(
            "INSERT INTO episodic_items (id, kind, session_id, turn_number, user_message, "
            "assistant_message, text, created_at_us, metadata, search_text) "
            "VALUES (?, 'turn', ?, ?, ?, '', ?, ?, ?, ?)",
            (
                entry.id,
                entry.session_id,
                entry.turn_number,
                entry.user_message,
                entry.user_message,
                micros,
                f'{{"n": {entry.turn_number}}}',
                UNSTEMMED.search_text(entry.user_message),  # exactly remem's v1 normalisation
            ),
        )
    conn.execute(
        "INSERT INTO episodic_items (id, kind, text, created_at_us, metadata, search_text) "
        "VALUES ('n1', 'note', 'Painting classes every Sunday', ?, '{}', ?)",
        (int(T0.timestamp() * 1_000_000), UNSTEMMED.search_text("Painting classes every Sunday")),
    )
    conn.commit()
    conn.close()


async def _ids(store: EpisodicStore, query: str) -> list[str]:
    return [hit.id for hit in await store.search(query)]


@pytest.mark.parametrize("search_index", ["memory", "fts5"])
async def test_an_old_sqlite_store_is_reindexed_with_stems(
    tmp_path: Path, search_index: str
) -> None:
    path = tmp_path / "episodic.db"
    _legacy_sqlite(path)
    async with SQLiteEpisodicStore(path, search_index=search_index) as store:  # type: ignore[arg-type]
        assert await _ids(store, "hikes") == ["s1-1"]  # "hiking" was indexed, "hikes" asked
        assert sorted(await _ids(store, "painters paint")) == ["n1", "s1-2"]
        assert await _ids(store, "adopted") == ["s1-3"]
        days = await store.days("s1")
    # Nothing stored is lost: every turn comes back whole, with its metadata.
    assert [e for day in days.values() for e in day] == _turns()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT identity FROM episodic_search_identity").fetchall() == [
            (DEFAULT_FULL_TEXT.identity,)
        ]
        assert conn.execute("SELECT count(*) FROM episodic_items").fetchone() == (4,)
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):  # the trigger is back
            conn.execute("UPDATE episodic_items SET text = 'x'")
    finally:
        conn.close()


async def test_a_language_change_reindexes_and_a_reopen_does_not(tmp_path: Path) -> None:
    path = tmp_path / "episodic.db"
    async with SQLiteEpisodicStore(path) as store:
        await store.index_turns(_turns())
        assert await _ids(store, "hikes") == ["s1-1"]
    async with SQLiteEpisodicStore(path, full_text=UNSTEMMED) as store:
        assert await _ids(store, "hikes") == []  # unstemmed again: only the written word
        assert await _ids(store, "hiking") == ["s1-1"]
    conn = sqlite3.connect(path)
    before = conn.execute("SELECT seq, search_text FROM episodic_items").fetchall()
    conn.close()
    async with SQLiteEpisodicStore(path, full_text=UNSTEMMED) as store:
        assert await _ids(store, "hiking") == ["s1-1"]
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT seq, search_text FROM episodic_items").fetchall() == before
    conn.close()


def test_a_store_rejects_what_is_not_a_full_text_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="FullTextConfig"):
        SQLiteEpisodicStore(tmp_path / "e.db", full_text="english")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="FullTextConfig"):
        PostgresEpisodicStore("postgresql://x/y", full_text="english")  # type: ignore[arg-type]


async def _make_legacy_postgres(dsn: str) -> None:
    """A database as remem left it before stemming: migration 1 only, unstemmed search text."""
    async with PostgresEpisodicStore(dsn) as store:
        await store.index_turns(_turns())
        await store.add_note("n1", "Painting classes every Sunday", created_at=T0)
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute("DROP TABLE remem_episodes_search_identity")
        await conn.execute(
            "DELETE FROM remem_schema_migrations WHERE component = 'episodic' AND version = 2"
        )
        cur = await conn.execute("SELECT seq, text FROM remem_episodes")
        for seq, text in await cur.fetchall():
            await conn.execute(
                "UPDATE remem_episodes SET search_text = %s WHERE seq = %s",
                (UNSTEMMED.search_text(text), seq),
            )


@pytest.mark.postgres
async def test_an_old_postgres_store_is_reindexed_with_stems(pg_dsn: str) -> None:
    await _make_legacy_postgres(pg_dsn)
    async with PostgresEpisodicStore(pg_dsn, full_text=UNSTEMMED) as unstemmed:
        assert await _ids(unstemmed, "hikes") == []  # the legacy index: written words only
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        # Opening with the unstemmed config recorded it; make the file legacy again.
        await conn.execute("DELETE FROM remem_episodes_search_identity")
    async with PostgresEpisodicStore(pg_dsn) as store:
        assert await _ids(store, "hikes") == ["s1-1"]
        assert sorted(await _ids(store, "painters paint")) == ["n1", "s1-2"]
        assert await _ids(store, "adopted") == ["s1-3"]
        days = await store.days("s1")
    assert [e for day in days.values() for e in day] == _turns()
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        cur = await conn.execute("SELECT identity FROM remem_episodes_search_identity")
        assert await cur.fetchall() == [(DEFAULT_FULL_TEXT.identity,)]
        cur = await conn.execute("SELECT count(*) FROM remem_episodes")
        assert await cur.fetchone() == (4,)


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
async def test_backends_return_the_same_stemmed_hits(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    make: Callable[[], EpisodicStore]
    if backend == "sqlite":
        make = lambda: SQLiteEpisodicStore(tmp_path / "e.db")  # noqa: E731
    else:
        dsn = request.getfixturevalue("pg_dsn")
        make = lambda: PostgresEpisodicStore(dsn)  # noqa: E731
    async with make() as store:
        await store.index_turns(_turns())
        await store.add_note("n1", "Painting classes every Sunday", created_at=T0)
        # Question words are planned out, inflections meet: the same hits on every backend.
        assert await _ids(store, "What kind of hikes would Caroline likely enjoy?") == [
            "s1-1",
            "s1-3",
        ]
        assert await _ids(store, "Did Melanie paint?") == ["s1-2", "n1"]
