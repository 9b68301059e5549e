"""Transcript appends and reads, and episodic search: SQLite vs PostgreSQL vs the naive baseline.

``naive`` is the obvious store: open a connection, insert, commit (rollback journal,
synchronous=FULL, SQLite's defaults), close, per append. ``sqlite`` is SQLiteTranscriptStore with
its default durability ("normal"), ``sqlite-full`` the power-loss-safe setting.

Run: pytest benches/bench_transcripts.py --benchmark-group-by=group
"""

from __future__ import annotations

import asyncio
import itertools
import random
import sqlite3
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import pytest

from remem.models import TranscriptEntry, TranscriptSession
from remem.stores.postgres.episodic import PostgresEpisodicStore
from remem.stores.postgres.transcript import PostgresTranscriptStore
from remem.stores.sqlite.codec import to_micros
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.sqlite.transcript import SQLiteTranscriptStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SINGLE_APPENDS = 200
BATCHES, BATCH_SIZE = 10, 100
READ_TURNS = 10_000
SEARCH_TURNS = 10_000
APPENDERS = ["sqlite", "sqlite-full", "naive", pytest.param("postgres", marks=pytest.mark.postgres)]
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


class Appender(Protocol):
    async def append_entry(self, entry: TranscriptEntry) -> None: ...
    async def append_entries(self, entries: Sequence[TranscriptEntry]) -> None: ...
    async def get_entries(self, session_id: str) -> list[TranscriptEntry]: ...


class NaiveTranscriptStore:
    """The baseline: a fresh connection and a synced commit for every append."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with sqlite3.connect(path) as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS entries (id TEXT PRIMARY KEY, session_id TEXT, "
                "turn_number INTEGER, user_message TEXT, assistant_message TEXT, "
                "created_at_us INTEGER, UNIQUE (session_id, turn_number))"
            )
        conn.close()

    def _write(self, entries: Sequence[TranscriptEntry]) -> None:
        conn = sqlite3.connect(self.path)
        try:
            with conn:
                conn.executemany(
                    "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (
                            e.id,
                            e.session_id,
                            e.turn_number,
                            e.user_message,
                            e.assistant_message,
                            to_micros(e.created_at),
                        )
                        for e in entries
                    ],
                )
        finally:
            conn.close()

    async def append_entry(self, entry: TranscriptEntry) -> None:
        await asyncio.to_thread(self._write, [entry])

    async def append_entries(self, entries: Sequence[TranscriptEntry]) -> None:
        await asyncio.to_thread(self._write, entries)

    async def get_entries(self, session_id: str) -> list[TranscriptEntry]:
        def read() -> list[TranscriptEntry]:
            conn = sqlite3.connect(self.path)
            try:
                rows = conn.execute(
                    "SELECT id, session_id, turn_number, user_message, assistant_message, "
                    "created_at_us FROM entries WHERE session_id = ? ORDER BY turn_number",
                    (session_id,),
                ).fetchall()
            finally:
                conn.close()
            return [
                TranscriptEntry(
                    id=r[0],
                    session_id=r[1],
                    turn_number=r[2],
                    user_message=r[3],
                    assistant_message=r[4],
                    created_at=T0 + timedelta(microseconds=r[5] - to_micros(T0)),
                )
                for r in rows
            ]

        return await asyncio.to_thread(read)


_ids = itertools.count()


def _turns(count: int, words: Sequence[str] = ()) -> list[TranscriptEntry]:
    rng = random.Random(7)
    out = []
    for _ in range(count):
        n = next(_ids) + 1
        text = " ".join(rng.choice(words) for _ in range(20)) if words else f"question {n}"
        out.append(
            TranscriptEntry(
                id=f"e{n}",
                session_id="s",
                turn_number=n,
                user_message=text,
                assistant_message="an answer of moderate length " * 4,
                created_at=T0 + timedelta(seconds=n),
            )
        )
    return out


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


@pytest.fixture
def appender(
    request: pytest.FixtureRequest, tmp_path: Path, loop: asyncio.AbstractEventLoop
) -> Iterator[Appender]:
    store: Any
    if request.param == "naive":
        yield NaiveTranscriptStore(tmp_path / "naive.db")
        return
    if request.param == "postgres":
        store = PostgresTranscriptStore(request.getfixturevalue("pg_dsn"))
    else:
        durability = "full" if request.param == "sqlite-full" else "normal"
        store = SQLiteTranscriptStore(tmp_path / "t.db", durability=durability)
    loop.run_until_complete(store.create_session(TranscriptSession(session_id="s")))
    yield store
    loop.run_until_complete(store.aclose())


def _timed(
    benchmark: Any,
    loop: asyncio.AbstractEventLoop,
    make: Callable[[], Awaitable[object]],
    rounds: int = 3,
) -> None:
    benchmark.pedantic(lambda: loop.run_until_complete(make()), rounds=rounds, iterations=1)


@pytest.mark.parametrize("appender", APPENDERS, indirect=True)
def test_append_single(benchmark: Any, appender: Appender, loop: asyncio.AbstractEventLoop) -> None:
    benchmark.group = f"transcript append single x{SINGLE_APPENDS}"
    written: list[TranscriptEntry] = []

    async def run() -> None:
        turns = _turns(SINGLE_APPENDS)
        written.extend(turns)
        for turn in turns:
            await appender.append_entry(turn)

    _timed(benchmark, loop, run)
    stored = loop.run_until_complete(appender.get_entries("s"))
    benchmark.extra_info["correct"] = [e.id for e in stored] == [e.id for e in written]


@pytest.mark.parametrize("appender", APPENDERS, indirect=True)
def test_append_concurrent(
    benchmark: Any, appender: Appender, loop: asyncio.AbstractEventLoop
) -> None:
    benchmark.group = f"transcript append 8 tasks x{SINGLE_APPENDS // 8}"
    written: list[TranscriptEntry] = []

    async def run() -> None:
        turns = _turns(SINGLE_APPENDS)
        written.extend(turns)

        async def task(share: list[TranscriptEntry]) -> None:
            for turn in share:
                await appender.append_entry(turn)

        await asyncio.gather(*(task(turns[i::8]) for i in range(8)))

    _timed(benchmark, loop, run)
    stored = loop.run_until_complete(appender.get_entries("s"))
    benchmark.extra_info["correct"] = sorted(e.id for e in stored) == sorted(e.id for e in written)


@pytest.mark.parametrize("appender", APPENDERS, indirect=True)
def test_append_batches(
    benchmark: Any, appender: Appender, loop: asyncio.AbstractEventLoop
) -> None:
    benchmark.group = f"transcript append batch {BATCH_SIZE} x{BATCHES}"
    written: list[TranscriptEntry] = []

    async def run() -> None:
        for _ in range(BATCHES):
            batch = _turns(BATCH_SIZE)
            written.extend(batch)
            await appender.append_entries(batch)

    _timed(benchmark, loop, run)
    stored = loop.run_until_complete(appender.get_entries("s"))
    benchmark.extra_info["correct"] = [e.id for e in stored] == [e.id for e in written]


@pytest.mark.parametrize("appender", APPENDERS, indirect=True)
def test_read_entries(benchmark: Any, appender: Appender, loop: asyncio.AbstractEventLoop) -> None:
    benchmark.group = f"transcript get_entries {READ_TURNS}"
    turns = _turns(READ_TURNS)
    for start in range(0, READ_TURNS, 1000):
        loop.run_until_complete(appender.append_entries(turns[start : start + 1000]))
    result: list[list[TranscriptEntry]] = []
    _timed(benchmark, loop, lambda: _collect(result, appender.get_entries("s")))
    benchmark.extra_info["correct"] = [e.id for e in result[-1]] == [e.id for e in turns]


async def _collect(into: list[Any], awaitable: Awaitable[Any]) -> None:
    into.append(await awaitable)


@pytest.mark.parametrize("backend", BACKENDS)
def test_episodic_search(
    benchmark: Any,
    backend: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    loop: asyncio.AbstractEventLoop,
) -> None:
    benchmark.group = f"episodic search {SEARCH_TURNS} turns"
    rng = random.Random(3)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)) for _ in range(3000)
    ]
    store: Any = (
        SQLiteEpisodicStore(tmp_path / "episodic.db")
        if backend == "sqlite"
        else PostgresEpisodicStore(request.getfixturevalue("pg_dsn"))
    )
    turns = _turns(SEARCH_TURNS, words)
    for start in range(0, SEARCH_TURNS, 1000):
        loop.run_until_complete(store.index_turns(turns[start : start + 1000]))
    queries = [" ".join(rng.sample(words, 3)) for _ in range(20)]
    result: list[Any] = []

    async def run() -> None:
        result.clear()
        for query in queries:
            result.append(await store.search(query, limit=10))

    _timed(benchmark, loop, run, rounds=5)
    loop.run_until_complete(store.aclose())
    benchmark.extra_info["correct"] = all(
        hits and any(w in hits[0].text for w in q.split())
        for q, hits in zip(queries, result, strict=True)
    )
