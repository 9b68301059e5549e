"""summarise_days on real stores: local days (midnight, DST), failures retried, idempotency."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from remem.brains import BrainRequest, ScriptedBrain
from remem.consolidation import MemoryConsolidator, extractive_summary
from remem.errors import BrainError, ConfigError
from remem.models import TranscriptEntry
from tests.consolidation.conftest import OpenRuntime

LISBON = "Europe/Lisbon"
# Europe/Lisbon: WET (UTC+0) until 2024-03-31 01:00 UTC, then WEST (UTC+1).
TURNS = [
    (datetime(2024, 3, 30, 23, 30, tzinfo=UTC), "I adopted a cat called Miso. She is tiny."),
    (datetime(2024, 3, 31, 0, 30, tzinfo=UTC), "Miso slept all night! Amazing."),  # Mar 31
    (datetime(2024, 3, 31, 22, 59, tzinfo=UTC), "Booked the vet for Tuesday."),  # 23:59 WEST
    (datetime(2024, 3, 31, 23, 1, tzinfo=UTC), "It is past midnight here."),  # Apr 1 00:01
]
DAYS = [date(2024, 3, 30), date(2024, 3, 31), date(2024, 4, 1)]


async def record(rt: object, turns: list[tuple[datetime, str]]) -> list[TranscriptEntry]:
    c = rt.controller  # type: ignore[attr-defined]
    return [await c.record_turn("s1", text, "Noted.", created_at=at) for at, text in turns]


async def test_days_are_local_across_midnight_and_dst(open_runtime: OpenRuntime) -> None:
    rt = await open_runtime(LISBON)
    entries = await record(rt, TURNS)
    report = await MemoryConsolidator(rt.controller, timezone=LISBON).consolidate(session_id="s1")
    assert report.ok
    got = [(s.day, s.turn_count, s.first_turn, s.last_turn) for s in report.summaries]
    assert got == [(DAYS[0], 1, 1, 1), (DAYS[1], 2, 2, 3), (DAYS[2], 1, 4, 4)]
    assert all(s.timezone == LISBON for s in report.summaries)
    # No brain: the extractive rule, first sentences of the user's messages.
    assert report.summaries[0].text == "I adopted a cat called Miso."
    assert report.summaries[1].text == "Miso slept all night! Booked the vet for Tuesday."
    assert report.summaries[1].text == extractive_summary(entries[1:3])
    stored = await (await rt.controller.settled()).episodic.get_day_summaries("s1")
    assert stored == list(report.summaries)


async def test_the_timezone_must_be_the_stores(open_runtime: OpenRuntime) -> None:
    rt = await open_runtime(LISBON)
    with pytest.raises(ConfigError, match="Europe/Lisbon"):
        MemoryConsolidator(rt.controller)  # UTC by default


async def test_a_failed_day_is_reported_and_retried_alone(open_runtime: OpenRuntime) -> None:
    rt = await open_runtime(LISBON)
    await record(rt, TURNS)
    broken = {"2024-03-31": "raise", "2024-04-01": "empty"}

    def answer(request: BrainRequest) -> str:
        day = request.last_user_text.split()[1]
        how = broken.get(day)
        if how == "raise":
            raise BrainError("the provider is down")
        return "" if how == "empty" else f"Summary of {day}."

    brain = ScriptedBrain(rules=[(lambda _: True, answer)])
    consolidator = MemoryConsolidator(rt.controller, brain=brain, timezone=LISBON)

    first = await consolidator.consolidate(session_id="s1")

    assert [s.day for s in first.summaries] == [DAYS[0]]
    assert [(f.step, f.day) for f in first.failures] == [("summary", DAYS[1]), ("summary", DAYS[2])]
    assert "provider is down" in first.failures[0].message
    assert not first.ok
    assert "failed: summary s1 2024-03-31" in str(first)
    logged = [f for f in rt.controller.failures() if f.operation == "consolidation"]
    assert [f.ids for f in logged] == [f.turn_ids for f in first.failures]
    stored = await (await rt.controller.settled()).episodic.get_day_summaries("s1")
    assert [s.day for s in stored] == [DAYS[0]]  # nothing written for the failed days

    broken.clear()
    calls = len(brain.requests)
    second = await consolidator.consolidate(session_id="s1")
    assert second.ok
    assert [s.day for s in second.summaries] == DAYS[1:]
    asked = [r.last_user_text.split()[1] for r in brain.requests[calls:]]
    assert asked == ["2024-03-31", "2024-04-01"]  # exactly the failed days, once each
    assert [s.text for s in second.summaries] == [
        "Summary of 2024-03-31.",
        "Summary of 2024-04-01.",
    ]

    calls = len(brain.requests)
    third = await consolidator.consolidate(session_id="s1")
    assert not third.changed
    assert len(brain.requests) == calls

    # A new turn on a summarised day makes that day (only) stale.
    await record(rt, [(datetime(2024, 4, 1, 9, 0, tzinfo=UTC), "Miso ate well.")])
    fourth = await consolidator.consolidate()  # every session
    assert [(s.day, s.turn_count) for s in fourth.summaries] == [(DAYS[2], 2)]
    assert len(brain.requests) == calls + 1
