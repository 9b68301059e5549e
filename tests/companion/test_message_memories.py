"""remember_messages: the user's own words are recallable by meaning, not only by shared words.

A fact said in passing ("check menus for shellfish, my allergy is no joke") is not a keyed fact
the rule extractor stores, and its recorded turn is found by full text only — "What am I
allergic to?" shares no word with it ("allergic" ≠ "allergy"). Before the companion stored its
user's messages as memories, the quiz prompt below had no trace of it.
"""

from __future__ import annotations

from datetime import timedelta

import remem
from remem.companion import Companion, CompanionConfig, offline_brain
from remem.companion.prompt import USER_MESSAGE_ORIGIN
from remem.extraction import RuleExtractor
from remem.models import ManualClock

SAID_IN_PASSING = "Always have to check menus for shellfish, my allergy is no joke."
CHATTER = (
    "I can't decide what to watch tonight.",
    "The weather has been grey all week, I miss the sun.",
    SAID_IN_PASSING,
    "Ugh, I forgot to water the plants again.",
    "My boss scheduled a meeting at 6pm, who does that.",
)


async def _chat(companion: Companion, clock: ManualClock) -> None:
    for day, text in enumerate(CHATTER):
        await companion.turn(text, session_id=f"day-{day:02d}", now=clock.now())
        clock.advance(timedelta(days=1))
    await companion.runtime.controller.flush_extraction()


async def test_a_fact_said_in_passing_reaches_a_later_sessions_prompt(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    companion = Companion(offline_brain(), runtime, extractor=RuleExtractor())
    await _chat(companion, clock)

    prompt = await companion.build_prompt("What am I allergic to?", session_id="quiz")

    assert "shellfish" in prompt.section_text("short_term")
    stored = [h.record for h in prompt.recalled if "shellfish" in h.record.text]
    assert any(r.metadata.get("origin") == USER_MESSAGE_ORIGIN for r in stored)


async def test_a_message_and_its_turn_are_offered_once(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    companion = Companion(offline_brain(), runtime, extractor=RuleExtractor())
    await _chat(companion, clock)

    # "shellfish" is a shared word: full text finds the turn, and the stored message too.
    prompt = await companion.build_prompt("any shellfish news?", session_id="quiz")

    recalled = [h for h in prompt.recalled if "shellfish" in h.record.text]
    assert len(recalled) >= 2  # the turn and the message memory were both recalled
    assert prompt.text.count("check menus for shellfish") == 1


async def test_turned_off_the_message_stays_a_turn_only(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    companion = Companion(
        offline_brain(),
        runtime,
        config=CompanionConfig(remember_messages=False),
        extractor=RuleExtractor(),
    )
    await _chat(companion, clock)

    prompt = await companion.build_prompt("What am I allergic to?", session_id="quiz")

    assert "shellfish" not in prompt.text
    hits = await runtime.controller.recall("shellfish", k=10, stages=["short_term"])
    assert not any(h.record.metadata.get("origin") == USER_MESSAGE_ORIGIN for h in hits)
