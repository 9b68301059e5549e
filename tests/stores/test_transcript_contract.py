"""The TranscriptStore parity suite: every backend, identical observable behaviour."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from remem.errors import (
    DuplicateIdError,
    InputError,
    InvalidArgumentError,
    NotFoundError,
    StoreClosedError,
)
from remem.models import TranscriptEntry, TranscriptSession
from remem.stores import TranscriptStore
from remem.stores.postgres.transcript import PostgresTranscriptStore
from remem.stores.sqlite.transcript import SQLiteTranscriptStore

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: object) -> AsyncIterator[TranscriptStore]:
    backend: TranscriptStore
    if request.param == "sqlite":
        backend = SQLiteTranscriptStore(tmp_path / "transcript.db")  # type: ignore[operator]
    else:
        backend = PostgresTranscriptStore(request.getfixturevalue("pg_dsn"))
    async with backend:
        yield backend


def entry(n: int, session: str = "s1", **fields: Any) -> TranscriptEntry:
    values: dict[str, Any] = {
        "id": f"{session}-{n}",
        "session_id": session,
        "turn_number": n,
        "user_message": f"question {n}",
        "assistant_message": f"answer {n}",
    }
    values.update(fields)
    if "created_at" not in values:
        values["created_at"] = T0 + timedelta(minutes=n)
    return TranscriptEntry(**values)


async def snapshot(store: TranscriptStore) -> object:
    sessions = await store.list_sessions()
    return sessions, {s.session_id: await store.get_entries(s.session_id) for s in sessions}


async def seeded(store: TranscriptStore, turns: int = 3, session: str = "s1") -> None:
    await store.create_session(TranscriptSession(session_id=session, created_at=T0))
    await store.append_entries([entry(n, session) for n in range(1, turns + 1)])


async def test_satisfies_the_protocol(store: TranscriptStore) -> None:
    assert isinstance(store, TranscriptStore)


async def test_round_trip_keeps_every_field(store: TranscriptStore) -> None:
    session = TranscriptSession(
        session_id="s1",
        model_name="m",
        title="Planning",
        created_at=T0,
        metadata={"lang": "en", "n": 3, "x": 0.1, "ok": True, "none": None, "big": 2**62},
    )
    await store.create_session(session)
    first = entry(1, metadata={"tool": "calc", "score": 1.5, "flag": False})
    await store.append_entry(first)
    assert await store.get_session("s1") == session
    assert await store.get_entries("s1") == [first]
    assert await store.list_sessions() == [session]


async def test_entries_come_back_in_turn_order_with_no_cap(store: TranscriptStore) -> None:
    await store.create_session(TranscriptSession(session_id="s1"))
    turns = [entry(n) for n in range(1, 1201)]
    await store.append_entries(list(reversed(turns[:600])))
    for chunk in range(600, 1200, 100):
        await store.append_entries(turns[chunk : chunk + 100])
    assert await store.get_entries("s1") == turns
    assert await store.get_entries("s1", since_turn=1195) == turns[1195:]
    assert await store.get_entries("s1", since_turn=10, limit=3) == turns[10:13]
    assert await store.get_entries("s1", limit=0) == []
    assert await store.get_entries("s1", since_turn=5000) == []


async def test_turn_ranges_read_many_ranges_in_the_order_given(store: TranscriptStore) -> None:
    await seeded(store, turns=12, session="s1")
    await seeded(store, turns=3, session="s2")
    s1 = await store.get_entries("s1")
    ranges = [("s2", 2, 9), ("s1", 10, 20), ("gone", 1, 5), ("s1", 3, 3), ("s1", 1, 4)]
    assert (
        await store.get_turn_ranges(ranges)
        == [
            (await store.get_entries("s2"))[1:],  # past the last turn: what exists
            s1[9:],
            [],  # a session that does not exist reads as empty, not an error
            [s1[2]],
            s1[:4],  # ranges may overlap and come in any order
        ]
    )
    assert await store.get_turn_ranges([]) == []
    # each range equals get_entries over the same turns
    for first in range(1, 13):
        for last in (first, first + 2, 12):
            expected = await store.get_entries("s1", since_turn=first - 1, limit=last - first + 1)
            assert await store.get_turn_ranges([("s1", first, last)]) == [expected]


async def test_sessions_are_listed_by_creation_then_id(store: TranscriptStore) -> None:
    for sid, minutes in [("b", 0), ("a", 0), ("c", -5), ("Z", 0), ("é", 0)]:
        await store.create_session(
            TranscriptSession(session_id=sid, created_at=T0 + timedelta(minutes=minutes))
        )
    assert [s.session_id for s in await store.list_sessions()] == ["c", "Z", "a", "b", "é"]


async def test_duplicate_ids_change_nothing(store: TranscriptStore) -> None:
    await seeded(store)
    before = await snapshot(store)
    with pytest.raises(DuplicateIdError):
        await store.append_entry(entry(2))  # same id and turn
    with pytest.raises(DuplicateIdError):
        await store.append_entry(entry(9, id="s1-1"))  # same id, new turn
    with pytest.raises(DuplicateIdError):
        await store.append_entry(entry(2, id="fresh"))  # same (session, turn)
    with pytest.raises(DuplicateIdError):
        await store.append_entries([entry(4), entry(5), entry(3)])  # last one exists
    with pytest.raises(DuplicateIdError):
        await store.append_entries([entry(4), entry(4)])  # duplicate inside the batch
    with pytest.raises(DuplicateIdError):
        await store.create_session(TranscriptSession(session_id="s1"))
    assert await snapshot(store) == before


async def test_unknown_sessions_raise_not_found(store: TranscriptStore) -> None:
    await seeded(store)
    before = await snapshot(store)
    with pytest.raises(NotFoundError):
        await store.append_entry(entry(1, "nope"))
    with pytest.raises(NotFoundError):
        await store.append_entries([entry(4), entry(1, "nope")])
    with pytest.raises(NotFoundError):
        await store.get_entries("nope")
    with pytest.raises(NotFoundError):
        await store.get_session("nope")
    with pytest.raises(NotFoundError):
        await store.delete_session("nope")
    assert await snapshot(store) == before


async def test_delete_session_removes_it_and_its_entries(store: TranscriptStore) -> None:
    await seeded(store, session="s1")
    await seeded(store, session="s2")
    await store.delete_session("s1")
    assert [s.session_id for s in await store.list_sessions()] == ["s2"]
    with pytest.raises(NotFoundError):
        await store.get_entries("s1")
    assert len(await store.get_entries("s2")) == 3
    await seeded(store, session="s1")  # ids are free again
    assert len(await store.get_entries("s1")) == 3


@pytest.mark.parametrize(
    "text",
    [
        "",
        "东京の天気は？ 서울 날씨",  # noqa: RUF001
        "emoji 🙂👩‍👩‍👧 flags 🇫🇷",
        "עברית and العربية mixed RTL",
        "e\u0301 combining, ﬁ ligature, \u200b zero-width",
        "x" * 1_000_000,
    ],
    ids=["empty", "cjk", "emoji", "rtl", "combining", "1MB"],
)
async def test_unicode_and_large_texts_round_trip(store: TranscriptStore, text: str) -> None:
    await store.create_session(TranscriptSession(session_id="s1", title=text or None))
    turn = entry(1, user_message=text, assistant_message=text[::-1])
    await store.append_entry(turn)
    assert await store.get_entries("s1") == [turn]
    assert (await store.get_session("s1")).title == (text or None)


async def test_bad_input_is_a_typed_error_and_changes_nothing(store: TranscriptStore) -> None:
    await seeded(store)
    before = await snapshot(store)
    bad_calls: list[Callable[[], Awaitable[object]]] = [
        lambda: store.append_entry({"id": "x"}),  # type: ignore[arg-type]
        lambda: store.append_entries([entry(4), "not an entry"]),  # type: ignore[list-item]
        lambda: store.append_entries("s1-4"),  # type: ignore[arg-type]
        lambda: store.append_entry(entry(2**63, created_at=T0)),
        lambda: store.create_session({"session_id": "s9"}),  # type: ignore[arg-type]
        lambda: store.get_entries("s1", since_turn=-1),
        lambda: store.get_entries("s1", limit=-5),
        lambda: store.get_entries("s1", limit=2**64),
        lambda: store.get_entries(""),
        lambda: store.get_turn_ranges([("s1", 0, 2)]),  # turns count from 1
        lambda: store.get_turn_ranges([("s1", 3, 2)]),  # ends before it starts
        lambda: store.get_turn_ranges([("s1", 1)]),  # type: ignore[list-item]
        lambda: store.get_turn_ranges([("", 1, 2)]),
        lambda: store.get_turn_ranges([("s1", True, 2)]),
        lambda: store.get_turn_ranges("s1"),  # type: ignore[arg-type]
    ]
    for call in bad_calls:
        with pytest.raises(InvalidArgumentError):
            await call()
    for text in ["nul\x00byte", "lone \ud800 surrogate"]:
        with pytest.raises(InputError):
            entry(4, user_message=text)
    with pytest.raises(InputError):
        entry(4, created_at=datetime(2026, 1, 1))  # naive
    assert await snapshot(store) == before


async def test_concurrent_appends_lose_and_duplicate_nothing(store: TranscriptStore) -> None:
    await store.create_session(TranscriptSession(session_id="s1"))

    async def writer(task: int) -> None:
        for i in range(25):
            n = task * 100 + i + 1
            await store.append_entry(entry(n, id=f"t{task}-{i}"))

    await asyncio.gather(*(writer(task) for task in range(8)))
    got = await store.get_entries("s1")
    assert len(got) == 200
    assert len({e.id for e in got}) == 200
    assert [e.turn_number for e in got] == sorted(e.turn_number for e in got)


async def test_racing_duplicates_have_exactly_one_winner(store: TranscriptStore) -> None:
    await store.create_session(TranscriptSession(session_id="s1"))
    results = await asyncio.gather(
        *(store.append_entries([entry(n) for n in range(1, 6)]) for _ in range(8)),
        return_exceptions=True,
    )
    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, DuplicateIdError) for r in results if r is not None)
    assert [e.turn_number for e in await store.get_entries("s1")] == [1, 2, 3, 4, 5]


async def test_use_after_close_raises(store: TranscriptStore) -> None:
    await seeded(store)
    await store.aclose()
    await store.aclose()  # idempotent
    with pytest.raises(StoreClosedError):
        await store.get_entries("s1")
    with pytest.raises(StoreClosedError):
        await store.append_entry(entry(9))
    with pytest.raises(StoreClosedError):
        await store.list_sessions()
