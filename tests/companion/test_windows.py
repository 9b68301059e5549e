"""Conversation windows: a short recalled message comes with what was said around it.

A fact split over two messages ("My dog is being a menace today." then "Biscuit ate a whole
sock, I swear.") is found by the message that shares the question's words, and the name is in
the next one. Without windows the quiz prompt below has no trace of the name.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.companion import Companion, CompanionConfig, offline_brain
from remem.companion.windows import (
    USER_MESSAGE_ORIGIN,
    Said,
    Window,
    turn_id_of,
    turn_position,
    window_note,
    windows,
)
from remem.errors import ConfigError
from remem.eval.persona.variants import equal_budget_config
from remem.extraction import RuleExtractor
from remem.models import ManualClock, ProvenanceMetadata, TranscriptEntry
from tests.companion.conftest import T0

SESSIONS = (
    ("The weather has been grey all week, I miss the sun.", "Ugh, forgot to water the plants."),
    ("My dog is being a menace today.", "Biscuit ate a whole sock, I swear.", "Anyway, work."),
    ("Marmalade knocked a glass off the table just to watch it fall.",),
    ("My boss scheduled a meeting at 6pm, who does that.", "Traffic was awful this morning."),
)


async def _chat(companion: Companion, clock: ManualClock) -> None:
    for day, texts in enumerate(SESSIONS):
        for text in texts:
            await companion.turn(text, session_id=f"day-{day:02d}", now=clock.now())
            clock.advance(timedelta(minutes=3))
        clock.advance(timedelta(days=1))
    await companion.runtime.controller.flush_extraction()


def _companion(runtime: remem.Runtime, **windows: Any) -> Companion:
    """A companion with the default config but for ``window_*`` knobs."""
    config = dataclasses.replace(CompanionConfig(), **windows)
    return Companion(offline_brain(), runtime, config=config, extractor=RuleExtractor())


async def test_the_next_message_of_a_split_fact_reaches_the_prompt(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _chat(_companion(runtime), clock)
    companion = _companion(runtime)

    prompt = await companion.build_prompt("What's the name of my dog?", session_id="quiz")

    section = prompt.section_text("short_term")
    line = next(x for x in section.splitlines() if "My dog is being a menace today." in x)
    assert 'next: "Biscuit ate a whole sock, I swear."' in line

    # The message said just before it is another session's: a window never crosses one.
    both = _companion(runtime, window_before=1)
    prompt = await both.build_prompt("What's the name of my dog?", session_id="quiz")
    line = next(x for x in prompt.section_text("short_term").splitlines() if "menace today." in x)
    assert "before:" not in line
    assert "water the plants" not in line


async def test_without_windows_the_name_is_not_in_the_prompt(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _chat(_companion(runtime), clock)
    companion = _companion(runtime, window_max_words=0)

    prompt = await companion.build_prompt("What's the name of my dog?", session_id="quiz")

    assert "My dog is being a menace today." in prompt.section_text("short_term")
    assert "Biscuit" not in prompt.text


async def test_the_turn_before_is_shown_too_and_a_long_message_stands_alone(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _chat(_companion(runtime), clock)

    both = _companion(runtime, window_before=1)
    prompt = await both.build_prompt("Biscuit and the sock?", session_id="quiz")
    line = next(x for x in prompt.section_text("short_term").splitlines() if "Biscuit ate" in x)
    assert 'before: "My dog is being a menace today."' in line
    assert 'next: "Anyway, work."' in line

    # Eleven words: over a limit of 10, so it is shown as it was said.
    short = _companion(runtime, window_max_words=10)
    prompt = await short.build_prompt("Marmalade knocked a glass off?", session_id="quiz")
    lines = prompt.section_text("short_term").splitlines()
    assert any(
        x.endswith("Marmalade knocked a glass off the table just to watch it fall.") for x in lines
    )
    assert not any("Marmalade" in x and "next:" in x for x in lines)


async def test_by_default_only_the_next_message_of_the_best_five(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _chat(_companion(runtime), clock)

    prompt = await _companion(runtime).build_prompt("Biscuit and the sock?", session_id="quiz")
    line = next(x for x in prompt.section_text("short_term").splitlines() if "Biscuit ate" in x)
    assert "before:" not in line
    assert 'next: "Anyway, work."' in line

    windowed = [x for x in prompt.section_text("short_term").splitlines() if "(next:" in x]
    assert 1 <= len(windowed) <= 5

    # window_top: only the best N recalled short messages get one (0: none).
    none = _companion(runtime, window_top=0)
    prompt = await none.build_prompt("Biscuit and the sock?", session_id="quiz")
    assert "Biscuit ate a whole sock" in prompt.text
    assert "next:" not in prompt.text
    assert "before:" not in prompt.text


async def test_the_top_counts_only_what_the_prompt_will_show(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    """A turn already in the history, and the second copy of a turn recalled both as itself and
    as its stored message, take no window: the next shown message gets it."""
    await _chat(_companion(runtime), clock)
    hits = await runtime.controller.recall("dog menace sock Biscuit", k=20)
    transcript = (await runtime.controller.settled()).transcript
    shown = [h for h in hits if turn_position(h) is not None]
    turns = [turn_id_of(h) for h in shown]
    assert len(turns) > len(set(turns))  # a turn and its message memory both recalled
    first, second, *_ = dict.fromkeys(turns)  # the two best distinct turns, best first
    args: dict[str, Any] = {"before": 0, "after": 1, "max_words": 12, "top": 1}

    got = await windows(hits, transcript, **args)
    assert [turn_id_of(h) for h in hits if h.record.id in got] == [first]

    got = await windows(hits, transcript, **args, history_ids={first})
    assert [turn_id_of(h) for h in hits if h.record.id in got] == [second]

    got = await windows(hits, transcript, **{**args, "top": 2})
    assert [turn_id_of(h) for h in hits if h.record.id in got] == [first, second]


async def test_message_memories_carry_their_turn_number(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _chat(_companion(runtime), clock)

    hits = await runtime.controller.recall("Biscuit ate a whole sock", k=5, stages=["short_term"])
    message = next(h for h in hits if h.record.metadata.get("origin") == USER_MESSAGE_ORIGIN)
    assert message.record.metadata["turn_number"] == 2
    assert turn_position(message) == ("day-01", 2, "Biscuit ate a whole sock, I swear.")


async def test_a_windowed_item_is_packed_whole_within_the_budget(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    await _chat(_companion(runtime), clock)
    for budget in (200, 230, 400):  # 200: the item does not fit; 230 and up: it does
        config = dataclasses.replace(equal_budget_config(Companion, budget), priming=None)
        tight = Companion(offline_brain(), runtime, config=config, extractor=RuleExtractor())

        prompt = await tight.build_prompt("What's the name of my dog?", session_id="quiz")

        assert prompt.tokens <= budget
        # Kept with its window or dropped with it: never cut between the two.
        said = "My dog is being a menace today." in prompt.text
        assert said == ('next: "Biscuit ate a whole sock, I swear."' in prompt.text)


def test_the_note_of_a_window() -> None:
    a, a2, b = (Said(t, T0) for t in ("a", "a2", "b"))
    assert window_note(None) == ""
    assert window_note(Window()) == ""
    assert window_note(Window(after=(b,))) == ' (next: "b")'
    assert window_note(Window(before=(a, a2), after=(b,))) == ' (before: "a" "a2"; next: "b")'
    marked = window_note(Window(before=(a,), after=(b,)), lambda s: "old" if s.text == "b" else "")
    assert marked == ' (before: "a"; next: "b" [old])'


@pytest.mark.parametrize(
    "knobs",
    [
        {"window_before": -1},
        {"window_after": 11},
        {"window_max_words": -3},
        {"window_after": 1.5},
        {"window_top": -1},
    ],
)
def test_bad_window_settings_are_refused(knobs: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="window_"):
        CompanionConfig(**knobs)  # type: ignore[arg-type]


@pytest.mark.postgres
async def test_the_window_on_postgres(tmp_path: Path, pg_dsn: str) -> None:
    clock = ManualClock(T0)
    async with remem.Runtime.open(tmp_path, clock=clock, backend="postgres", dsn=pg_dsn) as rt:
        await _chat(_companion(rt), clock)

        prompt = await _companion(rt).build_prompt("What's the name of my dog?", session_id="q")

    line = next(x for x in prompt.section_text("short_term").splitlines() if "menace today." in x)
    assert 'next: "Biscuit ate a whole sock, I swear."' in line


async def test_a_neighbour_naming_an_old_value_is_marked_earlier(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    c = runtime.controller

    async def say(text: str) -> TranscriptEntry:
        entry = await c.record_turn("chat", text, "Noted.", created_at=clock.now())
        meta = {
            "origin": USER_MESSAGE_ORIGIN,
            "turn_id": entry.id,
            "turn_number": entry.turn_number,
        }
        await c.remember(
            text, kind="note", session_id="chat", metadata=meta, valid_from=clock.now()
        )
        clock.advance(timedelta(minutes=2))
        return entry

    await say("Dinner plans tonight!")
    said = await say("Cooking a vegetarian lasagne, it's all I eat.")
    veg = await c.remember(
        "The user is vegetarian.",
        metadata={"subject": "user", "attribute": "diet", "value": "vegetarian"},
        provenance=ProvenanceMetadata(source_type="extraction", parent_ids=(said.id,)),
        valid_from=said.created_at,
    )
    clock.advance(timedelta(days=10))
    fish = await c.remember(
        "The user is pescatarian.",
        metadata={"subject": "user", "attribute": "diet", "value": "pescatarian"},
        valid_from=clock.now(),
    )
    await c.supersede(veg.id, fish.id, at=clock.now())
    clock.advance(timedelta(days=1))
    companion = Companion(
        offline_brain(), runtime, config=CompanionConfig(use_blocks=False, priming=None)
    )

    prompt = await companion.build_prompt("Any dinner plans tonight?", session_id="quiz")

    line = next(x for x in prompt.section_text("short_term").splitlines() if "Dinner plans" in x)
    assert (
        'next: "Cooking a vegetarian lasagne, it\'s all I eat." [earlier: diet now pescatarian'
        in line
    )
