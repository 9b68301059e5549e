"""What the rule extractor hears, written and superseded end to end: RuleExtractor → the
controller's extraction queue → MemoryConsolidator.supersede_contradictions, on real stores
(embedded files and PostgreSQL). History is kept: a superseded value stays readable through
``keyed_facts(include_superseded=True)`` with the span it held (``valid_to``), and recall never
shows it as current."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.consolidation import MemoryConsolidator
from remem.extraction import RuleExtractor
from remem.models import ManualClock, MemoryRecord

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


class Chat:
    """One user talking over days: each turn extracted, then contradictions superseded."""

    def __init__(self, rt: remem.Runtime, clock: ManualClock) -> None:
        self.rt, self.clock = rt, clock
        self.c = rt.controller
        self.consolidator = MemoryConsolidator(self.c)
        self.turn_times: list[datetime] = []

    async def say(self, text: str, *, after: timedelta = DAY) -> datetime:
        self.clock.advance(after)
        await self.c.record_turn("s", text, "ok")
        await self.c.flush_extraction()
        assert self.c.failures() == []
        await self.consolidator.supersede_contradictions()
        return self.clock.now()

    async def history(self, attribute: str, subject: str = "user") -> list[MemoryRecord]:
        return await self.c.keyed_facts(
            subjects=[subject], attributes=[attribute], include_superseded=True
        )

    async def live(self, attribute: str, subject: str = "user") -> list[tuple[str, str]]:
        facts = await self.c.keyed_facts(subjects=[subject], attributes=[attribute])
        return sorted(
            (str(f.metadata["value"]), str(f.metadata.get("operation", "set"))) for f in facts
        )


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
async def chat(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Chat]:
    options: dict[str, Any] = {}
    if request.param == "postgres":
        options = {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}
    clock = ManualClock(T0)
    async with remem.Runtime.open(
        tmp_path / "memory", extractor=RuleExtractor(), clock=clock, **options
    ) as rt:
        yield Chat(rt, clock)


def by_value(records: list[MemoryRecord]) -> dict[str, MemoryRecord]:
    return {str(r.metadata["value"]).casefold(): r for r in records}


async def test_a_move_supersedes_the_old_city_and_keeps_it_as_history(chat: Chat) -> None:
    await chat.say("I live in Lisbon")
    moved = await chat.say("so we moved to Porto last week!!", after=30 * DAY)

    assert await chat.live("city") == [("Porto", "set")]
    values = by_value(await chat.history("city"))
    lisbon, porto = values["lisbon"], values["porto"]
    assert lisbon.superseded_by == porto.id
    assert lisbon.valid_to == moved  # Lisbon until the move was told
    assert porto.valid_to is None
    hits = [h.record.id for h in await chat.c.recall("where does the user live", k=10)]
    assert lisbon.id not in hits  # never presented as current


async def test_a_change_of_one_pet_does_not_end_another(chat: Chat) -> None:
    await chat.say("we have a dog named Rex")
    await chat.say("we also got a cat called Mochi")
    died = await chat.say("our dog Rex died yesterday 😢", after=10 * DAY)
    await chat.say("we adopted a puppy called Fig", after=20 * DAY)

    assert await chat.live("pet") == [("Fig", "set"), ("Mochi", "set"), ("Rex", "end")]
    history = await chat.history("pet")
    rex = next(r for r in history if r.metadata["value"] == "Rex" and "operation" not in r.metadata)
    ending = next(r for r in history if r.metadata.get("operation") == "end")
    assert rex.superseded_by == ending.id
    assert rex.valid_to == died  # history: Rex until he died
    mochi = by_value(history)["mochi"]
    assert mochi.superseded_by is None  # the cat is not ended by the dog's death


async def test_a_negation_ends_a_fact_without_a_replacement(chat: Chat) -> None:
    await chat.say("I'm vegan now")
    await chat.say("I live in Leeds")
    stopped = await chat.say("I'm not vegan any more tbh", after=40 * DAY)

    [(value, op)] = await chat.live("diet")
    assert (value, op) == ("vegan", "end")  # no new diet was made up
    vegan = next(r for r in await chat.history("diet") if "operation" not in r.metadata)
    assert vegan.superseded_by is not None
    assert vegan.valid_to == stopped
    assert await chat.live("city") == [("Leeds", "set")]  # other facts untouched


async def test_an_ending_of_a_value_that_is_not_current_ends_nothing(chat: Chat) -> None:
    await chat.say("I moved to Leeds")
    await chat.say("I don't live in Paris anymore", after=5 * DAY)

    live = await chat.live("city")
    assert ("Leeds", "set") in live
    leeds = by_value(await chat.history("city"))["leeds"]
    assert leeds.superseded_by is None


async def test_a_correction_supersedes_the_misstatement(chat: Chat) -> None:
    await chat.say("I work at Acme")
    corrected = await chat.say("I misspoke — it's Globex, not Acme", after=timedelta(minutes=2))

    assert await chat.live("employer") == [("Globex", "correct")]
    history = await chat.history("employer")
    acme, globex = by_value(history)["acme"], by_value(history)["globex"]
    assert globex.metadata["previous"] == "Acme"
    assert acme.superseded_by == globex.id
    assert acme.valid_to == corrected


async def test_a_job_change_told_in_steps_leaves_the_new_employer_current(chat: Chat) -> None:
    await chat.say("I work at Acme")
    await chat.say("gave my notice at Acme, starting at Globex next week", after=60 * DAY)

    assert await chat.live("employer") == [("Globex", "set")]
    history = by_value(await chat.history("employer"))
    assert history["acme"].superseded_by is not None
    assert history["acme"].valid_to is not None


async def partner_edges(chat: Chat, *, at: datetime | None = None) -> list[tuple[str, str]]:
    graph = (await chat.c.settled()).graph
    names = {e.id: e.name for e in await graph.list_entities()}
    [user] = [i for i, n in names.items() if n == "user"]
    edges = await graph.relationships(user, direction="out", at=at, include_superseded=True)
    return sorted(
        (names[e.target_id], "open" if e.valid_to is None else "closed")
        for e in edges
        if e.relation_type == "partner_of"
    )


async def test_a_negated_partner_ends_the_graph_edge_without_a_replacement(chat: Chat) -> None:
    await chat.say("I've been seeing Sam for a few months")
    await chat.say("I live in Leeds")
    ended = await chat.say("I'm not seeing Sam any more", after=30 * DAY)

    assert await partner_edges(chat) == [("Sam", "closed")]
    assert await partner_edges(chat, at=chat.clock.now()) == []  # not a partner now
    assert await partner_edges(chat, at=ended - DAY) == [("Sam", "closed")]  # history kept
    graph = (await chat.c.settled()).graph
    edges = await graph.relationships(
        next(e.id for e in await graph.list_entities() if e.name == "user"),
        direction="out",
    )
    sam = next(e for e in edges if e.relation_type == "partner_of")
    assert (sam.valid_to, sam.superseded_by) == (ended, None)
    cities = [e for e in edges if e.relation_type == "lives_in"]
    assert [e.valid_to for e in cities] == [None]  # other edges untouched
    done = await chat.consolidator.supersede_contradictions()
    assert done == []  # idempotent: the closed edge is not closed again


async def test_single_again_ends_every_partner_edge_and_a_new_partner_is_open(chat: Chat) -> None:
    await chat.say("I'm dating Marco")
    await chat.say("I'm single again lol", after=20 * DAY)
    await chat.say("I've been seeing someone called Ravi", after=40 * DAY)

    assert await partner_edges(chat) == [("Marco", "closed"), ("Ravi", "open")]
    assert await partner_edges(chat, at=chat.clock.now()) == [("Ravi", "open")]
