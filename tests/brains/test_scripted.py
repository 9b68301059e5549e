"""ScriptedBrain: scripts replayed in order, rules, recorded requests."""

from __future__ import annotations

import re

import pytest

from remem.brains import Brain, BrainRequest, Completion, Message, ScriptedBrain, ToolCall, ToolSpec
from remem.errors import BrainError, InvalidArgumentError

LOOKUP = ToolSpec("lookup", "Search memory")


async def test_script_replays_in_order_then_says_how_many() -> None:
    call = Completion(
        tool_calls=(ToolCall("1", "lookup", {"q": "tea"}),), finish_reason="tool_calls"
    )
    brain = ScriptedBrain([call, "You like green tea."])
    assert isinstance(brain, Brain)
    first = await brain.complete([Message.user("What do I drink?")], tools=[LOOKUP])
    assert first is call
    assert brain.remaining == 1
    second = await brain.complete([Message.user("x")])
    assert second == Completion("You like green tea.", model="scripted")
    with pytest.raises(BrainError, match="all 2 scripted completions were used; this was call 3"):
        await brain.complete([Message.user("again")])
    assert [r.last_user_text for r in brain.requests] == ["What do I drink?", "x", "again"]
    assert brain.requests[0].tools == (LOOKUP,)


async def test_rules_regex_groups_predicates_and_default() -> None:
    def wants_json(request: BrainRequest) -> bool:
        return request.response_format is not None

    brain = ScriptedBrain(
        rules=[
            (wants_json, lambda r: '{"facts": []}'),
            (r"my name is (?P<name>\w+)", r"Nice to meet you, \g<name>!"),
            (re.compile("weather", re.IGNORECASE), Completion("Sunny.", model="m")),
        ],
        default="I see.",
    )
    ask = brain.complete
    assert (await ask([Message.user("Hi, my name is Ada")])).text == "Nice to meet you, Ada!"
    assert (await ask([Message.user("WEATHER?")])).text == "Sunny."
    fmt = {"type": "json_object"}
    assert (await ask([Message.user("my name is Bo")], response_format=fmt)).text == '{"facts": []}'
    assert (await ask([Message.user("hmm")])).text == "I see."
    assert len(brain.requests) == 4
    assert brain.requests[2].response_format == fmt


async def test_script_first_then_rules_and_unmatched_error() -> None:
    brain = ScriptedBrain(["scripted"], rules=[(r"^ping$", "pong")])
    assert (await brain.complete([Message.user("ping")])).text == "scripted"
    assert (await brain.complete([Message.user("ping")])).text == "pong"
    with pytest.raises(BrainError, match=r"no rule matched call 3.*'pong\?'.*add a rule"):
        await brain.complete([Message.user("pong?")])


async def test_deterministic_across_instances() -> None:
    def make() -> ScriptedBrain:
        return ScriptedBrain(rules=[(lambda r: True, lambda r: r.last_user_text[::-1])])

    conversation = [Message.system("s"), Message.user("abc")]
    assert (await make().complete(conversation)) == (await make().complete(conversation))


async def test_bad_construction_requests_and_close() -> None:
    with pytest.raises(InvalidArgumentError):
        ScriptedBrain("not a list")
    with pytest.raises(InvalidArgumentError):
        ScriptedBrain([42])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError):
        ScriptedBrain(rules=[(42, "x")])  # type: ignore[list-item]

    def bad_reply(request: BrainRequest) -> int:
        return 42

    brain = ScriptedBrain(rules=[(lambda r: True, bad_reply)])  # type: ignore[list-item]
    with pytest.raises(BrainError, match="returned int"):
        await brain.complete([Message.user("x")])
    with pytest.raises(InvalidArgumentError, match="messages is empty"):
        await brain.complete([])
    async with brain:
        pass
    with pytest.raises(BrainError, match="was closed"):
        await brain.complete([Message.user("x")])
