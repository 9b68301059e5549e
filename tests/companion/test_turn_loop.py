"""The turn loop: tool calls, BlockFullError consolidation depth, search_memory, answer()."""

from __future__ import annotations

import pytest

import remem
from remem.blocks import BlockEdit, CoreMemoryConfig
from remem.brains import BrainRequest, Completion, ScriptedBrain, ToolCall
from remem.companion import Companion, CompanionConfig
from remem.errors import ConfigError, InvalidArgumentError, StoreClosedError
from tests.companion.doubles import PatternExtractor

SMALL = CompanionConfig(blocks=CoreMemoryConfig.default(user_limit=50))


def call(name: str, i: int = 1, **arguments: str) -> Completion:
    return Completion(tool_calls=(ToolCall(f"call_{name}_{i}", name, arguments),))


def consolidation_requests(brain: ScriptedBrain) -> list[BrainRequest]:
    return [r for r in brain.requests if "Pending write to the user block" in r.last_user_text]


async def test_model_adds_to_a_block_then_replies(runtime: remem.Runtime) -> None:
    brain = ScriptedBrain(
        [call("core_memory_add", block="user", text="Name is Ada"), "Nice to meet you, Ada!"]
    )
    result = await Companion(brain, runtime).turn("Hi, I'm Ada")
    assert result.reply == "Nice to meet you, Ada!"
    assert [c.name for c in result.tool_calls] == ["core_memory_add"]
    assert result.tool_results[0].result.startswith("Added to the user block")
    assert {s.name for s in brain.requests[0].tools} == {
        "core_memory_add",
        "core_memory_replace",
        "core_memory_remove",
        "search_memory",
    }
    second = brain.requests[1].messages
    assert second[-1].role == "tool"
    assert second[-2].tool_calls[0].name == "core_memory_add"
    assert (await runtime.blocks()).block("user").entries == ("Name is Ada",)  # persisted
    assert result.entry.assistant_message == "Nice to meet you, Ada!"


async def test_post_turn_consolidation_succeeds_on_the_second_attempt(
    runtime: remem.Runtime,
) -> None:
    blocks = await runtime.blocks(config=SMALL.blocks)
    await blocks.apply("user", [BlockEdit.add("Name is Ada"), BlockEdit.add("Likes green tea")])
    brain = ScriptedBrain(
        [
            "Congratulations!",  # the reply
            call("core_memory_remove", block="user", old_text="not there"),  # frees nothing
            call("core_memory_remove", block="user", old_text="green tea"),  # frees room
        ]
    )
    companion = Companion(brain, runtime, blocks, config=SMALL, extractor=PatternExtractor())
    result = await companion.turn("I just started a new job at Initech, so happy")

    assert result.block_retries == 2
    assert result.unresolved_block_errors == ()
    (write,) = result.post_turn.writes
    assert (write.op, write.outcome) == ("add", "added")
    assert blocks.block("user").entries == ("Name is Ada", "The user works at Initech.")
    requests = consolidation_requests(brain)
    assert len(requests) == 2
    assert "Likes green tea" in requests[0].last_user_text  # the error carries the contents
    assert {s.name for s in requests[0].tools} == {
        "core_memory_add",
        "core_memory_replace",
        "core_memory_remove",
    }


async def test_post_turn_consolidation_stops_after_three_retries(runtime: remem.Runtime) -> None:
    blocks = await runtime.blocks(config=SMALL.blocks)
    await blocks.apply("user", [BlockEdit.add("Name is Ada"), BlockEdit.add("Likes green tea")])
    stubborn = ScriptedBrain(["Congratulations!"], default="I would rather keep everything.")
    companion = Companion(stubborn, runtime, blocks, config=SMALL, extractor=PatternExtractor())
    result = await companion.turn("I just started a new job at Initech")

    assert result.block_retries == 3
    assert len(consolidation_requests(stubborn)) == 3
    (error,) = result.unresolved_block_errors
    assert "The user block is full" in error
    assert "Likes green tea" in error
    assert result.post_turn.writes[0].outcome == "full"
    assert blocks.block("user").entries == ("Name is Ada", "Likes green tea")
    assert result.entry.user_message == "I just started a new job at Initech"  # still recorded


async def test_configured_depth_is_honoured(runtime: remem.Runtime) -> None:
    config = CompanionConfig(blocks=SMALL.blocks, max_block_retries=1)
    blocks = await runtime.blocks(config=SMALL.blocks)
    await blocks.apply("user", [BlockEdit.add("Name is Ada"), BlockEdit.add("Likes green tea")])
    stubborn = ScriptedBrain(["ok"], default="no")
    companion = Companion(stubborn, runtime, blocks, config=config, extractor=PatternExtractor())
    result = await companion.turn("I work at Initech")
    assert result.block_retries == 1
    assert len(result.unresolved_block_errors) == 1


async def test_model_tool_loop_stops_retrying_a_full_block(runtime: remem.Runtime) -> None:
    blocks = await runtime.blocks(config=SMALL.blocks)
    await blocks.apply("user", [BlockEdit.add("Name is Ada"), BlockEdit.add("Likes green tea")])
    fact = "Has a very long and detailed story about a trip"
    brain = ScriptedBrain(
        [call("core_memory_add", i, block="user", text=fact) for i in range(4)]
        + ["Sorry, my memory is full."]
    )
    result = await Companion(brain, runtime, blocks, config=SMALL).turn("Let me tell you a story")
    assert result.block_retries == 3
    assert len(result.unresolved_block_errors) == 1
    assert [o.block_full for o in result.tool_results] == [True] * 4
    assert brain.requests[-1].tool_choice == "none"  # the final answer is asked without tools
    assert result.reply == "Sorry, my memory is full."
    assert blocks.block("user").entries == ("Name is Ada", "Likes green tea")


async def test_search_memory_returns_recalled_text(runtime: remem.Runtime) -> None:
    await runtime.controller.remember("Ana's birthday is on the 3rd of June")
    brain = ScriptedBrain([call("search_memory", query="Ana birthday June"), "It's June 3rd."])
    result = await Companion(brain, runtime).turn("When is Ana's birthday?")
    (outcome,) = result.tool_results
    assert "Ana's birthday is on the 3rd of June" in outcome.result
    assert brain.requests[1].messages[-1].content == outcome.result

    bad = ScriptedBrain([call("search_memory", query=""), "hm"])
    result = await Companion(bad, runtime).turn("search nothing")
    assert result.tool_results[0].result.startswith("Error: search_memory takes")


async def test_answer_records_nothing(runtime: remem.Runtime) -> None:
    extractor = PatternExtractor()
    brain = ScriptedBrain(default="ok")
    companion = Companion(brain, runtime, extractor=extractor)
    await companion.turn("I moved to Lisbon")
    blocks = (await companion.blocks()).render()  # type: ignore[union-attr]
    transcript = (await runtime.controller.settled()).transcript
    assert transcript is not None
    before = await transcript.get_entries("default")
    calls = extractor.calls

    answer = await companion.answer("Where do I live now?")
    assert answer == "ok"
    assert not brain.requests[-1].tools  # no tools offered to a quiz answer
    assert await transcript.get_entries("default") == before
    assert extractor.calls == calls
    assert (await runtime.blocks()).render() == blocks


async def test_bad_input_and_closed_companion(runtime: remem.Runtime) -> None:
    companion = Companion(ScriptedBrain(default="ok"), runtime)
    with pytest.raises(InvalidArgumentError):
        await companion.turn("   ")
    with pytest.raises(InvalidArgumentError):
        await companion.turn("hi", session_id="")
    await companion.aclose()
    with pytest.raises(StoreClosedError):
        await companion.answer("hi")
    with pytest.raises(ConfigError):
        CompanionConfig(packing="best")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        CompanionConfig(max_block_retries=-1)


async def test_extractor_on_both_runtime_and_companion_is_refused(tmp_path: object) -> None:
    async with remem.Runtime.open(str(tmp_path), extractor=PatternExtractor()) as rt:
        with pytest.raises(ConfigError, match="not both"):
            Companion(ScriptedBrain(default="ok"), rt, extractor=PatternExtractor())


async def test_post_turn_failures_are_reported_not_raised(runtime: remem.Runtime) -> None:
    class Broken:
        async def extract(self, entries: object, *, context: object) -> object:
            raise RuntimeError("extractor exploded")

    companion = Companion(ScriptedBrain(default="ok"), runtime, extractor=Broken())  # type: ignore[arg-type]
    result = await companion.turn("hello")
    assert result.reply == "ok"
    assert "extractor exploded" in result.failures[0]
