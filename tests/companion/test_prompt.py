"""build_prompt: the documented section order, the block gauge, priming, the token budget."""

from __future__ import annotations

import re
from datetime import timedelta

import remem
from remem.blocks import BlockEdit
from remem.brains import ScriptedBrain
from remem.companion import PROMPT_ORDER, Companion, CompanionConfig
from remem.models import ManualClock

GAUGE = re.compile(r"<user> \(who the user is\) \[\d+% — [\d,]+/2,200 chars\]")


async def test_sections_follow_the_documented_order(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    blocks = await runtime.blocks()
    await blocks.apply("user", [BlockEdit.add("Name is Ada")])
    await runtime.controller.remember("Ada's favourite tea is oolong")
    companion = Companion(ScriptedBrain(default="ok"), runtime)
    await companion.turn("hello there, I am Ada")
    clock.advance(timedelta(minutes=5))
    prompt = await companion.build_prompt("which tea does Ada like?")

    assert prompt.sections[0] == "system"
    assert prompt.sections[-1] == "query"
    assert {"current_history", "core_memory"} <= set(prompt.sections)
    assert {"long_term", "short_term"} & set(prompt.sections)
    positions = [PROMPT_ORDER.index(s) for s in prompt.sections]
    assert positions == sorted(positions)
    text = prompt.text
    marks = [
        text.index("companion with long-term memory"),  # system
        text.index("hello there, I am Ada"),  # history
        text.index("## Core memory"),
        text.index("Name is Ada"),
        text.index("oolong"),  # recalled
        text.rindex("which tea does Ada like?"),  # the query, last
    ]
    assert marks == sorted(marks)
    assert GAUGE.search(prompt.messages[-1].content)
    assert [m.role for m in prompt.messages] == ["system", "user", "assistant", "user"]
    assert prompt.tokens == prompt.context.account.rendered
    assert prompt.tokens <= prompt.context.account.prompt_budget


async def test_gauge_shows_the_block_size(runtime: remem.Runtime) -> None:
    blocks = await runtime.blocks()
    await blocks.apply("user", [BlockEdit.add("x" * 1472)])  # 1,474 chars rendered
    companion = Companion(ScriptedBrain(default="ok"), runtime)
    prompt = await companion.build_prompt("hi")
    assert "[67% — 1,474/2,200 chars]" in prompt.section_text("core_memory")


async def test_a_new_session_is_primed_with_the_previous_one(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    companion = Companion(ScriptedBrain(default="ok"), runtime)
    await companion.turn("I planted tomatoes today", session_id="monday")
    clock.advance(timedelta(days=1))
    fresh = Companion(ScriptedBrain(default="ok"), runtime)
    prompt = await fresh.build_prompt("good morning", session_id="tuesday")
    assert "prior_history" in prompt.sections
    assert "earlier session] I planted tomatoes today" in prompt.text

    unprimed = Companion(ScriptedBrain(default="ok"), runtime, config=CompanionConfig(priming=None))
    prompt = await unprimed.build_prompt("good morning", session_id="wednesday")
    assert "prior_history" not in prompt.sections


async def test_the_prompt_stays_within_a_small_budget(runtime: remem.Runtime) -> None:
    for i in range(60):
        await runtime.controller.remember(f"Fact {i}: Ada visited museum number {i} in Lisbon")
    await runtime.controller.remember("The spare key is under the blue flowerpot")
    config = CompanionConfig(budget=1100, output_reserve=100, recall_k=50)
    companion = Companion(ScriptedBrain(default="ok"), runtime, config=config)
    for i in range(12):
        await companion.turn(f"chatting about the weather, day {i}, rather long message here")
    prompt = await companion.build_prompt("where is the spare key? the blue flowerpot?")
    assert "under the blue flowerpot" in prompt.messages[-1].content  # best hit beats history
    account = prompt.context.account
    assert prompt.tokens <= account.prompt_budget
    assert prompt.context.dropped()  # something had to give
    assert "core_memory" in prompt.sections  # blocks are always kept


async def test_recalled_memories_are_dated_by_when_they_held(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    said = clock.now()
    await runtime.controller.remember("Ada's favourite tea is oolong")
    await runtime.controller.remember("Ada moved to Osaka", valid_from=said - timedelta(days=40))
    clock.advance(timedelta(days=3))
    companion = Companion(ScriptedBrain(default="ok"), runtime)
    text = (await companion.build_prompt("which tea does Ada like? where did Ada move?")).text
    assert f"[{said:%Y-%m-%d}] Ada's favourite tea is oolong" in text
    assert f"[{said - timedelta(days=40):%Y-%m-%d}] Ada moved to Osaka" in text
