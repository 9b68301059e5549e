"""Variants change the prompt as advertised; offline_brain's rules."""

from __future__ import annotations

from datetime import timedelta

import remem
from remem.blocks import BlockEdit, tool_schemas
from remem.brains import Message, ScriptedBrain, ToolSpec
from remem.companion import (
    VARIANTS,
    BlocksOnly,
    Companion,
    CompanionConfig,
    EpisodicOnly,
    Full,
    FullTextRecall,
    GreedyPacking,
    offline_brain,
)
from remem.companion.offline import ACKNOWLEDGEMENT, UNKNOWN, best_line
from remem.companion.prompt import RECALL_SECTIONS
from remem.models import ManualClock


async def _seed(runtime: remem.Runtime, clock: ManualClock) -> None:
    blocks = await runtime.blocks()
    await blocks.apply("user", [BlockEdit.add("Name is Ada")])
    await runtime.controller.remember("Ada adopted a tabby cat called Miso")
    await runtime.controller.record_turn("old", "my cat Miso loves tuna", "cute!")
    clock.advance(timedelta(hours=1))


async def test_variants_change_the_prompt(runtime: remem.Runtime, clock: ManualClock) -> None:
    await _seed(runtime, clock)
    brain = ScriptedBrain(default="ok")
    query = "what does my cat Miso like?"

    full = await Full(brain, runtime).build_prompt(query)
    assert "core_memory" in full.sections
    assert RECALL_SECTIONS & set(full.sections)
    assert "tabby cat called Miso" in full.text
    assert "loves tuna" in full.text

    blocks_only = BlocksOnly(brain, runtime)
    prompt = await blocks_only.build_prompt(query)
    assert "core_memory" in prompt.sections
    assert not RECALL_SECTIONS & set(prompt.sections)
    assert prompt.recalled == ()
    assert "Miso" not in prompt.messages[-1].content.split("</context>")[0]
    assert blocks_only.config.use_recall is False
    assert blocks_only.name == "BlocksOnly"

    episodic = await EpisodicOnly(brain, runtime).build_prompt(query)
    assert "core_memory" not in episodic.sections
    assert "Name is Ada" not in episodic.text
    assert "loves tuna" in episodic.text  # the past turn
    assert "tabby" not in episodic.text  # extracted memories are not recalled
    assert {h.record.lifecycle.stage.value for h in episodic.recalled} == {"episodic"}

    greedy = await GreedyPacking(brain, runtime).build_prompt(query)
    assert greedy.context.strategy == "greedy"
    assert full.context.strategy == "optimal"

    fulltext = await FullTextRecall(brain, runtime).build_prompt(query)
    assert fulltext.recalled
    assert all(h.sources == ("fulltext",) for h in fulltext.recalled)
    assert any("vector" in h.sources for h in full.recalled)


async def test_presets_override_the_given_config(runtime: remem.Runtime) -> None:
    given = CompanionConfig(use_blocks=False, recall_k=3)
    companion = BlocksOnly(ScriptedBrain(default="ok"), runtime, config=given)
    assert companion.config.use_blocks is True
    assert companion.config.recall_k == 3
    assert await companion.blocks() is not None
    assert Companion(ScriptedBrain(default="ok"), runtime, name="mine").name == "mine"
    assert [v.__name__ for v in VARIANTS] == [
        "Full",
        "BlocksOnly",
        "EpisodicOnly",
        "GreedyPacking",
        "FullTextRecall",
    ]
    no_search = BlocksOnly(ScriptedBrain(default="ok"), runtime)
    result = await no_search.turn("hi")
    assert "search_memory" not in {t.name for t in no_search.brain.requests[0].tools}  # type: ignore[attr-defined]
    assert result.reply == "ok"


def test_best_line_picks_the_most_overlapping_line() -> None:
    context = (
        "<context>\n## Core memory\n- <user> (who the user is) [3% — 40/2,200 chars]\n"
        "  - Lives in Lisbon\n  - Works at Initech\n## Short-term memories\n"
        "- Ada lives near the river in Lisbon\n</context>"
    )
    assert best_line(context, "Where do I live?") == "Lives in Lisbon"  # earliest of the ties
    assert best_line(context, "Where does Ada live near the river?") == (
        "Ada lives near the river in Lisbon"
    )
    assert best_line(context, "What is my favourite colour?") is None


async def test_offline_brain_rules() -> None:
    brain = offline_brain()
    ack = await brain.complete([Message.user("<context>\n</context>\n\nI moved to Lisbon")])
    assert ack.text == ACKNOWLEDGEMENT
    unknown = await brain.complete([Message.user("What is my favourite colour?")])
    assert unknown.text == UNKNOWN
    full = (
        "The user block is full — this edit would make it 70/60 chars (10 over), so nothing was "
        "changed. Merge or drop something, then retry. Current contents:\n"
        "<user> (who the user is) [95% — 57/60 chars]\n- Name is Ada\n- Likes tea"
    )
    specs = [
        ToolSpec(s["function"]["name"], "", s["function"]["parameters"]) for s in tool_schemas()
    ]
    fix = await brain.complete([Message.user(full)], tools=specs)
    (call,) = fix.tool_calls
    assert (call.name, dict(call.arguments)) == (
        "core_memory_remove",
        {"block": "user", "old_text": "Name is Ada"},
    )
    no_tools = await brain.complete([Message.user(full)], tools=specs, tool_choice="none")
    assert not no_tools.tool_calls
