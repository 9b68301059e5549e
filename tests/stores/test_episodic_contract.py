"""The EpisodicStore parity suite: every backend, identical observable behaviour.

Scores differ in scale between backends (bm25 vs ts_rank_cd), so this suite asserts orderings on
clear-cut cases, never raw scores.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from remem.errors import (
    ConfigError,
    DuplicateIdError,
    InvalidArgumentError,
    NaiveDatetimeError,
    StoreClosedError,
)
from remem.models import DaySummary, EpisodeKind, TranscriptEntry
from remem.stores import EpisodicStore
from remem.stores.episodic import NoteInput
from remem.stores.postgres.episodic import PostgresEpisodicStore
from remem.stores.shared.search_text import MAX_INDEXED_CHARS
from remem.stores.sqlite.episodic import SQLiteEpisodicStore

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
PARIS = "Europe/Paris"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], EpisodicStore]:
    if request.param == "sqlite":
        return lambda tz: SQLiteEpisodicStore(
            tmp_path / f"episodic-{tz.replace('/', '-')}.db", timezone=tz
        )
    dsn = request.getfixturevalue("pg_dsn")
    return lambda tz: PostgresEpisodicStore(dsn, timezone=tz)


@pytest.fixture
async def store(make_store: Callable[[str], EpisodicStore]) -> AsyncIterator[EpisodicStore]:
    async with make_store("UTC") as backend:
        yield backend


def turn(
    n: int,
    text: str,
    *,
    session: str = "s1",
    minutes: float | None = None,
    at: datetime | None = None,
    assistant: str = "",
) -> TranscriptEntry:
    return TranscriptEntry(
        id=f"{session}-{n}",
        session_id=session,
        turn_number=n,
        user_message=text,
        assistant_message=assistant,
        created_at=at or T0 + timedelta(minutes=n if minutes is None else minutes),
    )


async def ids(store: EpisodicStore, query: str, **kwargs: object) -> list[str]:
    return [hit.id for hit in await store.search(query, **kwargs)]  # type: ignore[arg-type]


async def test_satisfies_the_protocol(store: EpisodicStore) -> None:
    assert isinstance(store, EpisodicStore)


async def test_clear_cut_rankings_agree(store: EpisodicStore) -> None:
    await store.index_turns(
        [
            turn(1, "we went hiking near the lake and the hiking was great, hiking again soon"),
            turn(2, "some hiking happened near the lake once upon a time long ago indeed"),
            turn(3, "grocery list: apples, bread, milk and cheese for the weekend picnic"),
            turn(4, "hiking boots and a picnic basket for the weekend at the lake shore"),
        ]
    )
    assert await ids(store, "hiking") == ["s1-1", "s1-4", "s1-2"]
    assert (await ids(store, "picnic boots"))[0] == "s1-4"
    assert await ids(store, "bread") == ["s1-3"]
    assert await ids(store, "volcano") == []
    hits = await store.search("hiking")
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    assert hits[0].kind is EpisodeKind.TURN
    assert hits[0].turn_number == 1


async def test_ties_break_by_newer_then_id(store: EpisodicStore) -> None:
    await store.index_turns(
        [turn(n, "identical words here", minutes=m) for n, m in [(1, 5), (2, 9), (3, 9)]]
    )
    await store.add_note("a-note", "identical words here", created_at=T0 + timedelta(minutes=9))
    assert await ids(store, "identical") == ["a-note", "s1-2", "s1-3", "s1-1"]


async def test_filters_and_limit(store: EpisodicStore) -> None:
    await store.index_turns([turn(n, f"coffee talk {n}", minutes=n * 10) for n in range(1, 6)])
    await store.index_turns([turn(1, "coffee elsewhere", session="s2", minutes=0)])
    await store.add_note("n1", "coffee note", created_at=T0, session_id="s2")
    assert await ids(store, "coffee", session_id="s2") == ["n1", "s2-1"]
    since, until = T0 + timedelta(minutes=20), T0 + timedelta(minutes=40)
    assert await ids(store, "coffee", since=since, until=until) == ["s1-3", "s1-2"]
    assert len(await store.search("coffee", limit=2)) == 2
    assert len(await store.search("coffee", limit=100)) == 7
    assert await store.search("coffee", limit=0) == []


async def test_stopwords_are_planned_out_of_queries_on_every_backend(
    store: EpisodicStore,
) -> None:
    await store.index_turns(
        [
            turn(1, "the key is under the blue flowerpot"),
            turn(2, "where is the cat? the cat is in the garden, where it always is"),
            turn(3, "a band called The Who played"),
            turn(4, "nothing to see"),
        ]
    )
    # "where is the" would match turns 1-3 and rank turn 2 first on stop words alone.
    assert await ids(store, "where is the key") == ["s1-1"]
    assert await ids(store, "where is the key") == await ids(store, "key")
    # A query of stop words only keeps them (never emptied).
    assert sorted(await ids(store, "the who")) == ["s1-1", "s1-2", "s1-3"]


async def test_search_many_equals_search_per_query(store: EpisodicStore) -> None:
    await store.index_turns([turn(n, f"coffee talk {n} with tea") for n in range(1, 9)])
    await store.index_turns([turn(1, "coffee elsewhere", session="s2")])
    await store.add_note("n1", "tea note", created_at=T0, session_id="s2")
    queries = ["coffee", "tea", "?!", "talk 3", "volcano", "the"] * 3
    search_many = store.search_many
    for kwargs in ({}, {"limit": 3}, {"session_id": "s2"}):
        want = [[h.id for h in await store.search(q, **kwargs)] for q in queries]
        got = [[h.id for h in hits] for hits in await search_many(queries, **kwargs)]
        assert got == want
        assert any(got)
    assert await search_many([]) == []
    with pytest.raises(InvalidArgumentError):
        await search_many(["coffee", None])  # type: ignore[list-item]


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "'",
        "AND",
        "OR NOT",
        "NEAR(a b, 3)",
        "a*",
        "col:foo",
        "^x",
        "-x",
        "x+y",
        "\\",
        "&|!<->:*",
        "()",
        "{}",
        "[",
        "\x00",
        "lone \ud800",
        "🙂",
        "",
        "   ",
        "x" * 20_000,
        " ".join(f"w{i}" for i in range(5_000)),
    ],
)
async def test_any_query_string_is_safe(store: EpisodicStore, query: str) -> None:
    await store.index_turns([turn(1, "AND OR NOT NEAR x col foo w1 a")])
    hits = await store.search(query)
    assert isinstance(hits, list)


async def test_empty_and_punctuation_queries_return_nothing(store: EpisodicStore) -> None:
    await store.index_turns([turn(1, "anything at all")])
    assert await store.search("") == []
    assert await store.search("?!  ...") == []


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("我住在东京都很多年了", "东京"),
        ("私は東京に住んでいます", "東京"),
        ("私は東京に住んでいます", "住んで"),
        ("서울에서 커피를 마셨다", "서울"),
        ("我住在东京都很多年了", "东"),
        ("un café au lait, s'il vous plaît", "cafe"),
        ("an ordinary cafe", "CAFÉ"),
        ("Straße und Fußball", "straße"),
        ("مرحبا بالعالم", "بالعالم"),
        ("שלום עולם", "עולם"),
        ("ＦＵＬＬＷＩＤＴＨ text", "fullwidth"),  # noqa: RUF001
    ],
)
async def test_multilingual_matches(store: EpisodicStore, text: str, query: str) -> None:
    await store.index_turns([turn(1, text), turn(2, "unrelated english words only")])
    assert await ids(store, query) == ["s1-1"]


async def test_reindexing_is_idempotent_and_conflicts_change_nothing(
    store: EpisodicStore,
) -> None:
    turns = [turn(1, "alpha"), turn(2, "beta")]
    await store.index_turns(turns)
    await store.index_turns(turns)  # a retried indexing job
    await store.add_note("n1", "gamma", created_at=T0)
    await store.add_note("n1", "gamma", created_at=T0)
    with pytest.raises(DuplicateIdError):
        await store.index_turns([turn(3, "delta"), turn(2, "changed")])
    with pytest.raises(DuplicateIdError):
        await store.index_turns([turn(3, "delta"), turn(3, "other delta")])
    with pytest.raises(DuplicateIdError):
        await store.add_note("n1", "another gamma", created_at=T0)
    with pytest.raises(DuplicateIdError):  # same (session, turn), other id
        await store.index_turns([turn(3, "delta"), turn(1, "alpha").replace(id="x")])
    assert await store.search("delta") == []
    assert await ids(store, "alpha beta gamma") != []
    assert [e.id for e in (await store.days("s1"))[T0.date()]] == ["s1-1", "s1-2"]


async def test_bad_input_is_a_typed_error_and_changes_nothing(store: EpisodicStore) -> None:
    await store.index_turns([turn(1, "kept")])
    bad: list[tuple[type[Exception], Callable[[], Awaitable[object]]]] = [
        (InvalidArgumentError, lambda: store.index_turns(["nope"])),  # type: ignore[list-item]
        (InvalidArgumentError, lambda: store.add_note("", "x", created_at=T0)),
        (InvalidArgumentError, lambda: store.add_note("n", "", created_at=T0)),
        (InvalidArgumentError, lambda: store.add_note("n", "nul\x00", created_at=T0)),
        (InvalidArgumentError, lambda: store.add_note("n", "\udc00", created_at=T0)),
        (
            InvalidArgumentError,
            lambda: store.add_note("n", "x", created_at=T0, metadata={"v": float("nan")}),
        ),
        (NaiveDatetimeError, lambda: store.add_note("n", "x", created_at=datetime(2026, 1, 1))),
        (NaiveDatetimeError, lambda: store.search("kept", since=datetime(2026, 1, 1))),
        (InvalidArgumentError, lambda: store.search("kept", limit=-1)),
        (InvalidArgumentError, lambda: store.search(None)),  # type: ignore[arg-type]
        (InvalidArgumentError, lambda: store.days("")),
    ]
    for error, call in bad:
        with pytest.raises(error):
            await call()
    assert await ids(store, "kept x n") == ["s1-1"]


def note(note_id: str, text: str, **kwargs: object) -> NoteInput:
    fields: dict[str, object] = {"created_at": T0, "session_id": None, "metadata": {}} | kwargs
    return NoteInput(note_id=note_id, text=text, **fields)  # type: ignore[arg-type]


async def test_add_notes_is_one_all_or_nothing_batch(store: EpisodicStore) -> None:
    await store.add_notes([])
    await store.add_notes(
        [
            note("b1", "batched walrus", session_id="s9", metadata={"kind": "fact"}),
            note("b2", "batched 海象 🦭", created_at=T0 + timedelta(minutes=1)),
        ]
    )
    await store.add_notes(
        [note("b1", "batched walrus", session_id="s9", metadata={"kind": "fact"})]
    )
    assert await ids(store, "海象") == ["b2"]
    (hit,) = await store.search("walrus")
    assert (hit.id, hit.kind, hit.session_id) == ("b1", EpisodeKind.NOTE, "s9")
    assert hit.metadata == {"kind": "fact"}
    bad_batches: list[tuple[type[Exception], list[NoteInput], str]] = [
        (InvalidArgumentError, [note("c1", "fine"), note("c2", "nul\x00")], "note 1"),
        (
            NaiveDatetimeError,
            [note("c1", "fine"), note("c3", "x", created_at=datetime(2026, 1, 1))],
            "note 1",
        ),
        (InvalidArgumentError, [note("", "fine")], "note 0"),
        (DuplicateIdError, [note("c1", "fine"), note("b2", "other content")], "b2"),
    ]
    for error, batch, named in bad_batches:
        with pytest.raises(error, match=named):
            await store.add_notes(batch)
    with pytest.raises(InvalidArgumentError):
        await store.add_notes(["nope"])  # type: ignore[list-item]
    assert await store.search("fine") == []
    assert sorted(await ids(store, "batched")) == ["b1", "b2"]


async def test_large_texts_are_stored_whole_and_searched_up_to_the_cap(
    store: EpisodicStore,
) -> None:
    filler = " ".join(f"w{i}" for i in range(MAX_INDEXED_CHARS // 4))
    text = "needle " + filler + " tailword " + "y" * 1_000_000
    await store.add_note("big", text, created_at=T0)
    hits = await store.search("needle")
    assert [h.id for h in hits] == ["big"]
    assert hits[0].text == text
    assert await store.search("tailword") == []


async def test_concurrent_indexing_loses_nothing(store: EpisodicStore) -> None:
    async def writer(task: int) -> None:
        for i in range(10):
            await store.index_turns([turn(task * 100 + i + 1, f"shared word t{task}")])

    await asyncio.gather(*(writer(task) for task in range(8)))
    assert len(await store.search("shared", limit=1000)) == 80
    assert sum(len(v) for v in (await store.days("s1")).values()) == 80


async def test_days_split_at_local_midnight_across_dst(
    make_store: Callable[[str], EpisodicStore],
) -> None:
    utc = datetime.fromisoformat
    moments = [
        utc("2026-03-28T22:59:59+00:00"),  # 23:59:59 CET, Sat 28 March
        utc("2026-03-28T23:00:01+00:00"),  # 00:00:01 CET, Sun 29 March (the 23-hour day)
        utc("2026-03-29T21:59:00+00:00"),  # 23:59 CEST, still 29 March
        utc("2026-03-29T22:00:00+00:00"),  # 00:00 CEST, Mon 30 March
        utc("2026-10-25T00:30:00+00:00"),  # 02:30 CEST, Sun 25 October (before fall-back)
        utc("2026-10-25T01:30:00+00:00"),  # 02:30 CET, the repeated hour, same day
        utc("2026-10-25T22:59:00+00:00"),  # 23:59 CET, the 25-hour day ends
        utc("2026-10-25T23:00:00+00:00"),  # 00:00 CET, Mon 26 October
    ]
    turns = [turn(n + 1, f"turn {n}", at=at) for n, at in enumerate(moments)]
    async with make_store(PARIS) as paris:
        await paris.index_turns(turns)
        days = {day: [e.turn_number for e in es] for day, es in (await paris.days("s1")).items()}
    assert days == {
        date(2026, 3, 28): [1],
        date(2026, 3, 29): [2, 3],
        date(2026, 3, 30): [4],
        date(2026, 10, 25): [5, 6, 7],
        date(2026, 10, 26): [8],
    }
    assert list(days) == sorted(days)


async def test_days_default_to_utc_and_unknown_sessions_are_empty(store: EpisodicStore) -> None:
    at = datetime(2026, 3, 28, 23, 30, tzinfo=UTC)
    await store.index_turns([turn(1, "late", at=at), turn(2, "later", at=at + timedelta(hours=1))])
    assert list(await store.days("s1")) == [date(2026, 3, 28), date(2026, 3, 29)]
    assert await store.days("nobody") == {}


async def test_day_summaries_replace_and_order(store: EpisodicStore) -> None:
    def summary(day: int, text: str) -> DaySummary:
        return DaySummary(
            session_id="s1",
            day=date(2026, 5, day),
            text=text,
            turn_count=2,
            first_turn=1,
            last_turn=2,
            created_at=T0,
        )

    await store.put_day_summary(summary(3, "third"))
    await store.put_day_summary(summary(1, "first draft"))
    await store.put_day_summary(summary(1, "first"))
    assert [s.text for s in await store.get_day_summaries("s1")] == ["first", "third"]
    assert await store.get_day_summaries("s2") == []
    with pytest.raises(InvalidArgumentError):
        await store.put_day_summary(summary(2, "x").replace(timezone=PARIS))
    assert (await store.get_day_summaries("s1"))[0] == summary(1, "first")


async def test_invalid_timezone_is_a_config_error(
    make_store: Callable[[str], EpisodicStore],
) -> None:
    with pytest.raises(ConfigError):
        make_store("Mars/Olympus_Mons")


async def test_use_after_close_raises(store: EpisodicStore) -> None:
    await store.aclose()
    await store.aclose()
    with pytest.raises(StoreClosedError):
        await store.search("x")
    with pytest.raises(StoreClosedError):
        await store.index_turns([turn(1, "x")])
