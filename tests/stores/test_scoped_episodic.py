"""Scopes in the episodic and transcript stores: every backend stores the namespace, pushes it
into its query (the best ``limit`` hits *of the scope*, not a filtered top-k), and migrates an
old database to the default scope."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remem.errors import InvalidArgumentError
from remem.models import DaySummary, EpisodeKind, TranscriptEntry, TranscriptSession
from remem.stores import EpisodicStore
from remem.stores.episodic import NoteInput
from remem.stores.postgres.episodic import PostgresEpisodicStore
from remem.stores.postgres.transcript import PostgresTranscriptStore
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.sqlite.transcript import SQLiteTranscriptStore
from remem.stores.transcript import TranscriptStore

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)

BACKENDS = [
    "sqlite-memory",
    "sqlite-fts5",
    pytest.param("postgres", marks=pytest.mark.postgres),
]

# Names a naive implementation would splice into SQL or FTS syntax.
HOSTILE = [
    "B",
    "user:alice/agent:planner",
    "'; DROP TABLE episodic_items; --",
    'say "hi"',
    "it's",
    "NEAR(a b)",
    "*",
    "AND",
    "OR NOT",
    "ünïcødé 名前",
    "%_\\",
]


@pytest.fixture(params=BACKENDS)
def make_episodic(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], EpisodicStore]:
    count = iter(range(1_000_000))
    if request.param == "postgres":
        dsn = request.getfixturevalue("pg_dsn")

        def fresh() -> EpisodicStore:
            # One database per test: a hypothesis example starts from empty tables.
            with psycopg.connect(dsn, autocommit=True) as conn:
                if conn.execute("SELECT to_regclass('remem_episodes')").fetchone() != (None,):
                    conn.execute("TRUNCATE remem_episodes, remem_day_summaries")
            return PostgresEpisodicStore(dsn)

        return fresh
    index = "memory" if request.param == "sqlite-memory" else "fts5"
    return lambda: SQLiteEpisodicStore(
        tmp_path / f"episodic-{next(count)}.db",
        search_index=index,  # type: ignore[arg-type]
    )


@pytest.fixture
async def episodic(make_episodic: Callable[[], EpisodicStore]) -> AsyncIterator[EpisodicStore]:
    async with make_episodic() as store:
        yield store


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def transcript(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[TranscriptStore]:
    store: TranscriptStore
    if request.param == "postgres":
        store = PostgresTranscriptStore(request.getfixturevalue("pg_dsn"))
    else:
        store = SQLiteTranscriptStore(tmp_path / "transcript.db")
    async with store:
        yield store


def turn(session: str, n: int, text: str) -> TranscriptEntry:
    return TranscriptEntry(
        id=f"{session}-{n}",
        session_id=session,
        turn_number=n,
        user_message=text,
        created_at=T0 + timedelta(minutes=n),
    )


async def test_hits_carry_their_scope_and_search_sees_only_the_named_ones(
    episodic: EpisodicStore,
) -> None:
    await episodic.index_turns([turn("sa", 1, "the secret code is tulip")], namespace="A")
    await episodic.index_turns([turn("sb", 1, "my code is daisy")], namespace="B")
    await episodic.add_note("note-a", "tulip code note", created_at=T0, namespace="A")
    await episodic.add_notes(
        [NoteInput("note-d", "daisy code note", T0, None, {}, namespace="default")]
    )

    b = await episodic.search("code", namespace="B")
    assert [(h.id, h.namespace) for h in b] == [("sb-1", "B")]
    assert {h.id for h in await episodic.search("tulip", namespace=["B", "default"])} == set()
    both = await episodic.search("code", namespace=("A", "B"))
    assert {h.id for h in both} == {"sa-1", "sb-1", "note-a"}
    assert {h.namespace for h in both} == {"A", "B"}
    everything = await episodic.search("code", limit=10)
    assert {h.id for h in everything} == {"sa-1", "sb-1", "note-a", "note-d"}
    many = await episodic.search_many(["tulip", "daisy"], namespace="A")
    assert [sorted(h.id for h in hits) for hits in many] == [["note-a", "sa-1"], []]
    assert await episodic.search("tulip", namespace="nobody") == []


async def test_the_scope_is_pushed_down_not_cut_from_a_top_k(episodic: EpisodicStore) -> None:
    """50 notes of A match the query better than B's one; limit=1 in B still finds B's."""
    await episodic.add_notes(
        [
            NoteInput(f"a{i}", "apple apple apple orchard", T0, None, {}, namespace="A")
            for i in range(50)
        ]
    )
    await episodic.add_note(
        "b0",
        "one apple among many other unrelated words in a long note",
        created_at=T0,
        namespace="B",
    )
    hits = await episodic.search("apple", limit=1, namespace="B")
    assert [h.id for h in hits] == ["b0"]
    unscoped = await episodic.search("apple", limit=1)
    assert unscoped[0].namespace == "A"


async def test_days_and_day_summaries_are_scoped(episodic: EpisodicStore) -> None:
    await episodic.index_turns([turn("sa", 1, "hello"), turn("sa", 2, "again")], namespace="A")
    await episodic.put_day_summary(
        DaySummary(
            session_id="sa",
            day=T0.date(),
            text="A greeted",
            turn_count=2,
            created_at=T0,
        )
    )
    assert sum(len(d) for d in (await episodic.days("sa", namespace="A")).values()) == 2
    assert await episodic.days("sa", namespace="B") == {}
    assert [s.text for s in await episodic.get_day_summaries("sa", namespace="A")] == ["A greeted"]
    assert await episodic.get_day_summaries("sa", namespace=["B", "C"]) == []
    assert len(await episodic.get_day_summaries("sa")) == 1


async def test_a_bad_namespace_is_refused_before_anything_runs(episodic: EpisodicStore) -> None:
    bad_names: list[object] = [[], "", "x" * 513, "nul\x00", 3]
    for bad in bad_names:
        with pytest.raises(InvalidArgumentError):
            await episodic.search("code", namespace=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        await episodic.index_turns([turn("s", 1, "x")], namespace="")
    with pytest.raises(InvalidArgumentError):
        await episodic.add_note("n", "text", created_at=T0, namespace="\ud800")
    assert await episodic.search("x") == []


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    names=st.lists(
        st.one_of(
            st.sampled_from(HOSTILE),
            st.text(
                alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
                min_size=1,
                max_size=40,
            ).filter(str.strip),  # blank names are refused (remem.scopes.check_namespace)
        ),
        min_size=2,
        max_size=4,
        unique=True,
    )
)
async def test_hostile_scope_names_isolate_exactly(
    make_episodic: Callable[[], EpisodicStore], names: list[str]
) -> None:
    async with make_episodic() as store:
        for i, name in enumerate(names):
            await store.index_turns([turn(f"s{i}", 1, f"secret number {i}")], namespace=name)
            await store.add_note(f"n{i}", f"secret note {i}", created_at=T0, namespace=name)
        for i, name in enumerate(names):
            hits = await store.search("secret", limit=50, namespace=name)
            assert {h.id for h in hits} == {f"s{i}-1", f"n{i}"}
            assert {h.namespace for h in hits} == {name}
            [batch] = await store.search_many(["secret"], limit=50, namespace=[name])
            assert [h.id for h in batch] == [h.id for h in hits]
        everything = await store.search("secret", limit=50, namespace=names)
        assert len(everything) == 2 * len(names)


async def test_sessions_are_listed_by_scope(transcript: TranscriptStore) -> None:
    for i, name in enumerate(["A", "B", "'; DROP TABLE x; --", "A"]):
        await transcript.create_session(
            TranscriptSession(
                session_id=f"s{i}", namespace=name, created_at=T0 + timedelta(seconds=i)
            )
        )
    await transcript.create_session(TranscriptSession(session_id="plain", created_at=T0))
    assert [s.session_id for s in await transcript.list_sessions(namespace="A")] == ["s0", "s3"]
    assert [s.session_id for s in await transcript.list_sessions(namespace=["B", "default"])] == [
        "plain",
        "s1",
    ]
    listed = await transcript.list_sessions(namespace="'; DROP TABLE x; --")
    assert [(s.session_id, s.namespace) for s in listed] == [("s2", "'; DROP TABLE x; --")]
    assert len(await transcript.list_sessions()) == 5
    assert (await transcript.get_session("s1")).namespace == "B"
    with pytest.raises(InvalidArgumentError):
        await transcript.list_sessions(namespace=[])


# -- migrations of databases written before scopes ---------------------------------------------

_V1_TRANSCRIPT = (
    """CREATE TABLE transcript_sessions (
        session_id TEXT PRIMARY KEY NOT NULL, model_name TEXT, title TEXT,
        created_at_us INTEGER NOT NULL, metadata TEXT NOT NULL)""",
    "CREATE TABLE remem_schema (component TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL)",
    "INSERT INTO remem_schema VALUES ('transcript', 1)",
    "INSERT INTO transcript_sessions VALUES ('old', NULL, NULL, 0, '{}')",
)


async def test_an_old_sqlite_transcript_is_migrated_to_the_default_scope(tmp_path: Path) -> None:
    path = tmp_path / "transcript.db"
    with sqlite3.connect(path) as conn:
        for statement in _V1_TRANSCRIPT:
            conn.execute(statement)
    async with SQLiteTranscriptStore(path) as store:
        [old] = await store.list_sessions(namespace="default")
        assert (old.session_id, old.namespace) == ("old", "default")
        await store.create_session(TranscriptSession(session_id="new", namespace="B"))
        assert [s.session_id for s in await store.list_sessions(namespace="B")] == ["new"]
    with sqlite3.connect(path) as conn:
        version = conn.execute(
            "SELECT version FROM remem_schema WHERE component = 'transcript'"
        ).fetchone()
    assert version == (2,)


async def test_an_old_sqlite_episodic_file_is_migrated_notes_keep_their_memory_scope(
    tmp_path: Path,
) -> None:
    path = tmp_path / "episodic.db"
    async with SQLiteEpisodicStore(path) as store:
        await store.index_turns([turn("s", 1, "old turn about tulips")])
        await store.add_note(
            "m1", "old memory about tulips", created_at=T0, metadata={"namespace": "B"}
        )
    # Make it the v1 file an older remem wrote: no namespace column.
    with sqlite3.connect(path) as conn:
        conn.execute("DROP INDEX episodic_items_namespace")
        conn.execute("ALTER TABLE episodic_items DROP COLUMN namespace")
        conn.execute("UPDATE remem_schema SET version = 1 WHERE component = 'episodic'")
    async with SQLiteEpisodicStore(path) as store:
        hits = await store.search("tulips", limit=10)
        assert {(h.id, h.namespace) for h in hits} == {("s-1", "default"), ("m1", "B")}
        assert [h.id for h in await store.search("tulips", namespace="B")] == ["m1"]
        assert [h.kind for h in await store.search("tulips", namespace="default")] == [
            EpisodeKind.TURN
        ]


@pytest.mark.postgres
async def test_an_old_postgres_database_is_migrated_to_the_default_scope(pg_dsn: str) -> None:
    """The episodic and transcript tables as the migrations before scopes left them, with rows;
    the current stores open them: old rows land in 'default', a memory's note in its memory's
    namespace."""
    from remem.stores.postgres import episodic as pg_episodic
    from remem.stores.postgres import transcript as pg_transcript
    from remem.stores.postgres.migrations import migrate

    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        await migrate(conn, "episodic", pg_episodic.MIGRATIONS[:2])
        await migrate(conn, "transcript", pg_transcript.MIGRATIONS[:1])
        await conn.execute(
            "INSERT INTO remem_transcript_sessions (session_id, created_at, metadata) "
            "VALUES ('old', now(), '{}')"
        )
        await conn.execute(
            "INSERT INTO remem_episodes (id, kind, text, created_at, metadata, search_text) "
            "VALUES ('m1', 'note', 'tulip', now(), '{\"namespace\": \"B\"}', 'tulip'), "
            "('n0', 'note', 'tulip', now(), '{}', 'tulip')"
        )
    async with PostgresTranscriptStore(pg_dsn) as transcripts:
        [old] = await transcripts.list_sessions(namespace="default")
        assert old.namespace == "default"
    async with PostgresEpisodicStore(pg_dsn) as store:
        found = await store.search("tulip", limit=10)
        assert {(h.id, h.namespace) for h in found} == {("m1", "B"), ("n0", "default")}
