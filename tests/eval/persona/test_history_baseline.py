"""WholeHistoryBaseline on real stores: newest-first within the budget, in time order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import remem
from remem.brains import ScriptedBrain
from remem.eval.persona.history_baseline import WholeHistoryBaseline
from remem.models import ManualClock

T0 = datetime(2026, 3, 2, 19, 0, tzinfo=UTC)


async def _fill(baseline: WholeHistoryBaseline) -> None:
    messages = ["I live in Osaka now.", "My cat is called Miso.", "Dana booked the river place."]
    for day, message in enumerate(messages):
        await baseline.turn(message, session_id=f"day-{day}", now=T0 + timedelta(days=day))


async def test_the_whole_history_fits_in_time_order(tmp_path: Path) -> None:
    async with remem.Runtime.open(tmp_path, clock=ManualClock(T0)) as rt:
        baseline = WholeHistoryBaseline(rt)
        await _fill(baseline)
        prompt = await baseline.build_prompt("Where do I live?")
        lines = prompt.text.splitlines()
        assert lines[1:4] == [
            "[2026-03-02] user: I live in Osaka now.",
            "[2026-03-03] user: My cat is called Miso.",
            "[2026-03-04] user: Dana booked the river place.",
        ]
        assert lines[-1] == "User: Where do I live?"
        assert prompt.tokens == remem.kernels.count_tokens_one(prompt.text)
        assert await baseline.answer("What is my cat called?") == "My cat is called Miso."


async def test_the_oldest_turns_fall_off_a_small_budget(tmp_path: Path) -> None:
    async with remem.Runtime.open(tmp_path, clock=ManualClock(T0)) as rt:
        baseline = WholeHistoryBaseline(rt, budget=30)
        await _fill(baseline)
        text = (await baseline.build_prompt("Where do I live?")).text
        assert "Dana booked" in text
        assert "Osaka" not in text


async def test_with_a_brain_the_brain_answers_from_the_history(tmp_path: Path) -> None:
    brain = ScriptedBrain(["You live in Osaka."])
    async with remem.Runtime.open(tmp_path, clock=ManualClock(T0)) as rt:
        baseline = WholeHistoryBaseline(rt, brain)
        await _fill(baseline)
        assert await baseline.answer("Where do I live?") == "You live in Osaka."
    assert "I live in Osaka now." in brain.requests[0].messages[-1].content
