"""Dated, ordered values in the prompt: an old value of a keyed fact is never shown as current.

Real embedded stores; the facts are written as the companion's post-turn step writes them (the
message as a note naming its turn, the keyed fact with the turn as parent, the old value
superseded), then the prompt of a new session is assembled and read.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import remem
from remem.brains import ScriptedBrain
from remem.companion import Companion, CompanionConfig
from remem.companion.prompt import USER_MESSAGE_ORIGIN
from remem.context import FactTimeline, format_age
from remem.models import ManualClock, MemoryRecord, ProvenanceMetadata
from tests.companion.conftest import T0
from tests.companion.doubles import PatternExtractor
from tests.stores.factories import lifecycle, record

QUESTION = "Is the user vegetarian or pescatarian these days?"


async def _say(
    rt: remem.Runtime, clock: ManualClock, text: str, fact: str, key: tuple[str, str] | None
) -> MemoryRecord:
    """One turn stating ``fact`` (attribute, value) = ``key``: the turn, the message memory and
    the keyed record, as Companion.turn leaves them."""
    c = rt.controller
    entry = await c.record_turn("chat", text, "Noted.", created_at=clock.now())
    await c.remember(
        text,
        kind="note",
        metadata={"origin": USER_MESSAGE_ORIGIN, "turn_id": entry.id},
        valid_from=clock.now(),
    )
    meta = {} if key is None else {"subject": "user", "attribute": key[0], "value": key[1]}
    return await c.remember(
        fact,
        metadata=meta,
        provenance=ProvenanceMetadata(source_type="extraction", parent_ids=(entry.id,)),
        valid_from=clock.now(),
    )


async def _diet_story(rt: remem.Runtime, clock: ManualClock) -> None:
    veg = await _say(
        rt, clock, "I am vegetarian, diet-wise.", "The user is vegetarian.", ("diet", "vegetarian")
    )
    clock.advance(timedelta(days=10))
    fish = await _say(
        rt,
        clock,
        "I switched my diet to pescatarian.",
        "The user is pescatarian.",
        ("diet", "pescatarian"),
    )
    await rt.controller.supersede(veg.id, fish.id, at=clock.now())
    clock.advance(timedelta(days=5))


async def _prompt(rt: remem.Runtime, earlier_values: str) -> str:
    config = CompanionConfig(use_blocks=False, priming=None, earlier_values=earlier_values)  # type: ignore[arg-type]
    companion = Companion(ScriptedBrain(default="ok"), rt, config=config)
    prompt = await companion.build_prompt(QUESTION, session_id="quiz")
    return prompt.messages[-1].content.removesuffix(QUESTION)


async def test_mark_dates_the_old_value_as_earlier_and_the_new_as_current(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _diet_story(runtime, clock)
    context = await _prompt(runtime, "mark")
    assert (
        "[2026-05-01; earlier: diet now pescatarian (since 2026-05-11, 5 days ago)] "
        "I am vegetarian, diet-wise." in context
    )
    assert (
        "[2026-05-11] The user is pescatarian. (current; before: vegetarian 2026-05-01 to "
        "2026-05-11)" in context
    )
    assert "[2026-05-11; current diet] I switched my diet to pescatarian." in context
    # Every line naming the old value says it is earlier (or is the current fact's history).
    for line in context.splitlines():
        if "vegetarian" in line and "pescatarian" not in line:
            pytest.fail(f"an old value is shown without its current one: {line!r}")


async def test_drop_leaves_the_old_statement_out_and_shows_the_current_value(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _diet_story(runtime, clock)
    context = await _prompt(runtime, "drop")
    assert "vegetarian" not in context
    assert "[2026-05-11] The user is pescatarian. (current)" in context


async def test_off_renders_memories_as_they_were_said(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _diet_story(runtime, clock)
    context = await _prompt(runtime, "off")
    assert "[2026-05-01] I am vegetarian, diet-wise." in context
    assert "earlier" not in context
    assert "current" not in context


async def test_two_live_values_of_one_key_are_both_current(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _say(
        runtime, clock, "My dog Rex is a menace.", "The user has a dog named Rex.", ("pet", "Rex")
    )
    clock.advance(timedelta(days=2))
    await _say(
        runtime,
        clock,
        "We adopted a dog called Max!",
        "The user has a dog named Max.",
        ("pet", "Max"),
    )
    config = CompanionConfig(use_blocks=False, priming=None, earlier_values="mark")
    companion = Companion(ScriptedBrain(default="ok"), runtime, config=config)
    prompt = await companion.build_prompt("What are my dogs called?", session_id="quiz")
    context = prompt.messages[-1].content
    assert "Rex" in context
    assert "Max" in context
    assert "earlier" not in context
    assert "current" not in context  # nothing was superseded: nothing to order


def _fact(i: int, value: str, day: int, **changes: object) -> MemoryRecord:
    meta = {"subject": "user", "attribute": "diet", "value": value}
    return record(
        i,
        text=f"The user is {value}.",
        metadata=meta,
        valid_from=T0 + timedelta(days=day),
        lifecycle=lifecycle(i),
        provenance=ProvenanceMetadata(parent_ids=(f"turn-{i}",)),
        **changes,
    )


def test_a_value_ended_without_a_successor_is_no_longer_true() -> None:
    now = T0 + timedelta(days=20)
    keto = _fact(1, "keto", 0, valid_to=T0 + timedelta(days=12))
    timeline = FactTimeline.from_records([keto, record(2)], now=now)
    assert len(timeline) == 1  # the unkeyed record is not a fact
    [earlier] = timeline.earlier_in_turn("turn-1")
    assert earlier.note == "no longer true since 2026-05-13 (8 days ago)"
    assert earlier.current == ()
    assert timeline.note_for_record(keto.id) is None


def test_a_chain_of_values_names_the_two_latest_earlier_ones() -> None:
    now = T0 + timedelta(days=40)
    a = _fact(1, "vegan", 0, superseded_by="rec-00002", valid_to=T0 + timedelta(days=10))
    b = _fact(2, "keto", 10, superseded_by="rec-00003", valid_to=T0 + timedelta(days=20))
    c = _fact(3, "paleo", 20, superseded_by="rec-00004", valid_to=T0 + timedelta(days=30))
    d = _fact(4, "pescatarian", 30)
    timeline = FactTimeline.from_records([d, c, b, a], now=now)
    assert timeline.note_for_record(d.id) == (
        "current; before: keto 2026-05-11 to 2026-05-21, paleo 2026-05-21 to 2026-05-31"
    )
    [earlier] = timeline.earlier_in_turn("turn-1")
    assert earlier.current == (d,)
    assert earlier.note == "earlier: diet now pescatarian (since 2026-05-31, 10 days ago)"
    assert timeline.earlier_in_turn("turn-4") == []
    assert timeline.current_in_turn("turn-4") == "current diet"
    assert timeline.current_in_turn("turn-1") is None
    assert timeline.earlier_in_turn("turn-unknown") == []


@pytest.mark.parametrize(
    ("days", "words"),
    [
        (0, "today"),
        (1, "yesterday"),
        (9, "9 days ago"),
        (40, "5 weeks ago"),
        (400, "13 months ago"),
        (-1, "in the future"),
    ],
)
def test_format_age(days: int, words: str) -> None:
    now = datetime(2026, 6, 1, 12, tzinfo=UTC)
    assert format_age(now - timedelta(days=days), now) == words


async def test_the_companion_writes_a_second_dog_and_a_second_sister_to_the_block(
    runtime: remem.Runtime,
) -> None:
    companion = Companion(ScriptedBrain(default="ok"), runtime, extractor=PatternExtractor())
    for text in (
        "We have a dog named Rex.",
        "And now a dog named Max too!",
        "My sister's name is Anna.",
        "My other sister is Ana, funnily enough.",
    ):
        result = await companion.turn(text)
        assert [w.outcome for w in result.post_turn.writes] == ["added"]
    blocks = await companion.blocks()
    assert blocks is not None
    assert blocks.block("user").entries == (
        "The user has a dog named Rex.",
        "The user has a dog named Max.",
        "The user's sister is called Anna.",
        "The user's sister is called Ana.",
    )


def _employer(i: int, value: str, day: int, **changes: object) -> MemoryRecord:
    meta = {"subject": "user", "attribute": "employer", "value": value}
    return record(
        i,
        text=f"The user works at {value}.",
        metadata=meta,
        valid_from=T0 + timedelta(days=day),
        lifecycle=lifecycle(i),
        provenance=ProvenanceMetadata(parent_ids=(f"turn-{i}",)),
        **changes,
    )


def _jobs(now: datetime) -> FactTimeline:
    acme = _employer(1, "Acme", 0, superseded_by="rec-00002", valid_to=T0 + timedelta(days=10))
    globex = _employer(2, "Globex", 10)
    return FactTimeline.from_records([acme, globex], now=now)


def test_a_text_naming_an_old_value_while_it_held_is_earlier() -> None:
    timeline = _jobs(T0 + timedelta(days=20))
    [earlier] = timeline.earlier_in_text("Long day at ACME again.", T0 + timedelta(days=3))
    assert earlier.record.id == "rec-00001"
    assert earlier.note == "earlier: employer now Globex (since 2026-05-11, 10 days ago)"
    assert [r.id for r in earlier.current] == ["rec-00002"]
    assert timeline.current_in_text("Long day at ACME again.") is None


def test_the_news_of_a_change_names_the_new_value_and_is_current() -> None:
    timeline = _jobs(T0 + timedelta(days=20))
    news = "Handed in my badge at Acme. Monday I start at Globex!"
    assert timeline.earlier_in_text(news, T0 + timedelta(days=9)) == []
    assert timeline.current_in_text(news) == "current employer"


def test_a_text_said_after_the_value_ended_or_a_part_of_a_word_is_not_earlier() -> None:
    timeline = _jobs(T0 + timedelta(days=20))
    assert timeline.earlier_in_text("Acme's old office is for sale.", T0 + timedelta(days=12)) == []
    assert timeline.earlier_in_text("Acmeville is lovely.", T0 + timedelta(days=3)) == []


def test_a_value_of_another_persons_fact_is_matched_only_in_a_text_naming_them() -> None:
    def dana(i: int, value: str, day: int, **changes: object) -> MemoryRecord:
        r = _employer(i, value, day, **changes)
        return r.model_copy(update={"metadata": {**r.metadata, "subject": "dana"}})

    meridian = dana(1, "Meridian", 0, superseded_by="rec-00002", valid_to=T0 + timedelta(days=10))
    northwind = dana(2, "Northwind", 10)
    timeline = FactTimeline.from_records([meridian, northwind], now=T0 + timedelta(days=20))
    said = T0 + timedelta(days=3)
    [earlier] = timeline.earlier_in_text("Dana got a job at Meridian, we celebrated.", said)
    assert earlier.record.id == "rec-00001"
    assert timeline.current_in_text("Dana loves it at Northwind") == "current employer"
    # another person who names the same places says nothing of Dana's job
    assert timeline.earlier_in_text("Bastian got a job at Meridian.", said) == []
    assert timeline.current_in_text("Bastian got a job at Northwind.") is None


def test_accents_fold_and_short_values_are_never_matched_by_name() -> None:
    now = T0 + timedelta(days=20)
    city = {"subject": "user", "attribute": "city"}
    old = record(
        1,
        text="The user lives in Kraków.",
        metadata={**city, "value": "Kraków"},
        valid_from=T0,
        superseded_by="rec-00002",
        valid_to=T0 + timedelta(days=10),
    )
    new = record(
        2, text="The user lives in Oslo.", metadata={**city, "value": "Oslo"}, valid_from=T0
    )
    short = record(
        3,
        text="The user's nickname is Al.",
        metadata={"subject": "user", "attribute": "nickname", "value": "Al"},
        valid_from=T0,
        superseded_by="rec-00004",
    )
    renamed = record(
        4,
        text="The user's nickname is Bo.",
        metadata={"subject": "user", "attribute": "nickname", "value": "Bo"},
        valid_from=T0 + timedelta(days=1),
    )
    timeline = FactTimeline.from_records([old, new, short, renamed], now=now)
    [earlier] = timeline.earlier_in_text("the trams in KRAKOW were late", T0 + timedelta(days=2))
    assert earlier.record.id == "rec-00001"
    assert timeline.earlier_in_text("Al says hi", T0 + timedelta(hours=2)) == []


def test_an_ending_is_no_value_and_its_old_value_is_no_longer_true() -> None:
    now = T0 + timedelta(days=20)
    partner = {"subject": "user", "attribute": "partner"}
    sam = record(
        1,
        text="The user's partner is Sam.",
        metadata={**partner, "value": "Sam"},
        valid_from=T0,
        superseded_by="rec-00002",
        valid_to=T0 + timedelta(days=10),
        provenance=ProvenanceMetadata(parent_ids=("turn-1",)),
    )
    split = record(
        2,
        text="The user broke up with Sam.",
        metadata={**partner, "value": "Sam", "operation": "end"},
        valid_from=T0 + timedelta(days=10),
        provenance=ProvenanceMetadata(parent_ids=("turn-2",)),
    )
    timeline = FactTimeline.from_records([sam, split], now=now)
    assert timeline.note_for_record(split.id) is None  # an ending is not a current value
    assert timeline.earlier_in_turn("turn-2") == []  # the break-up is not an earlier statement
    assert timeline.current_in_text("Sam and I split up.") is None
    [earlier] = timeline.earlier_in_text("Dinner with Sam tonight!", T0 + timedelta(days=4))
    assert (
        earlier.note == "no longer true since 2026-05-11 (10 days ago): The user broke up with Sam."
    )
    assert earlier.current == ()
    # Said after the break-up, a mention of Sam is about something else now: left alone.
    assert timeline.earlier_in_text("Sam texted me.", T0 + timedelta(days=12)) == []


def test_an_ending_of_a_value_never_stated_names_it_in_the_current_values_note() -> None:
    """The partner only implied ("Rui cooked for me"), then "Rui picked up the last of their
    stuff", then "partner Elena": Elena's note says who came before."""
    now = T0 + timedelta(days=30)
    partner = {"subject": "user", "attribute": "partner"}
    split = record(
        1,
        text="The user broke up with Rui.",
        metadata={**partner, "value": "Rui", "operation": "end"},
        valid_from=T0,
    )
    nobody = record(
        2,
        text="The user broke up with their partner.",
        metadata={**partner, "value": "none", "operation": "end"},
        valid_from=T0 + timedelta(days=5),
    )
    elena = record(
        3,
        text="The user's partner is Elena.",
        metadata={**partner, "value": "Elena"},
        valid_from=T0 + timedelta(days=10),
    )
    timeline = FactTimeline.from_records([split, nobody, elena], now=now)
    assert timeline.note_for_record(elena.id) == "current; before: Rui until 2026-05-01"
    assert timeline.note_for_record(split.id) is None
    # A value that was stated is named by its own fact, not again by its ending.
    rui = record(
        4,
        text="The user's partner is Rui.",
        metadata={**partner, "value": "Rui"},
        valid_from=T0 - timedelta(days=30),
        valid_to=T0,
        superseded_by=split.id,
    )
    timeline = FactTimeline.from_records([rui, split, elena], now=now)
    assert timeline.note_for_record(elena.id) == "current; before: Rui 2026-04-01 to 2026-05-01"


async def test_a_turn_naming_an_old_value_is_marked_or_dropped_though_nothing_was_extracted(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _diet_story(runtime, clock)
    c = runtime.controller
    said = T0 + timedelta(days=1)  # while the user was vegetarian; nothing extracted from it
    await c.record_turn(
        "chat", "Vegetarian lasagna again, my diet is boring.", "Ha.", created_at=said
    )
    marked = await _prompt(runtime, "mark")
    line = next(x for x in marked.splitlines() if "lasagna" in x)
    assert line.startswith(
        "- [2026-05-02; earlier: diet now pescatarian (since 2026-05-11, 5 days ago)] user: "
    ), line
    dropped = await _prompt(runtime, "drop")
    assert "lasagna" not in dropped
    assert "vegetarian" not in dropped.casefold()
    assert "The user is pescatarian. (current)" in dropped


async def test_history_stays_answerable_the_earlier_city_is_shown_as_earlier_with_its_dates(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    """#15 item 2: "where did I live before Porto?" is answered from the superseded value."""
    lisbon = await _say(
        runtime,
        clock,
        "I live in Lisbon, near the river.",
        "The user lives in Lisbon.",
        ("city", "Lisbon"),
    )
    clock.advance(timedelta(days=30))
    porto = await _say(
        runtime,
        clock,
        "We moved to Porto last weekend!",
        "The user lives in Porto.",
        ("city", "Porto"),
    )
    await runtime.controller.supersede(lisbon.id, porto.id, at=clock.now())
    clock.advance(timedelta(days=7))
    config = CompanionConfig(use_blocks=False, priming=None, earlier_values="mark")
    companion = Companion(ScriptedBrain(default="ok"), runtime, config=config)
    prompt = await companion.build_prompt("Where did I live before Porto?", session_id="quiz")
    context = prompt.messages[-1].content
    assert (
        "[2026-05-31] The user lives in Porto. (current; before: Lisbon 2026-05-01 to "
        "2026-05-31)" in context
    )
    assert (
        "[2026-05-01; earlier: city now Porto (since 2026-05-31, 7 days ago)] "
        "user: I live in Lisbon, near the river." in context
    )
    # The old value is never on a line of its own that could read as current.
    for line in context.splitlines():
        if "Lisbon" in line:
            assert "earlier" in line or "before: Lisbon" in line, line
