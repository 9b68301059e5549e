"""The conversation types validate on construction."""

from __future__ import annotations

import pytest

from remem.brains import Completion, Message, ToolCall, ToolSpec
from remem.errors import InvalidArgumentError, ToolArgumentsError


def test_constructors_and_round_trip() -> None:
    call = ToolCall("c1", "lookup", {"q": "日本語 🍵"})
    assert Message.assistant("", [call]).tool_calls == (call,)
    assert Message.tool("c1", "ok") == Message("tool", "ok", tool_call_id="c1")
    assert Completion("hi", [call]).as_message() == Message.assistant("hi", [call])  # type: ignore[arg-type]
    assert ToolCall.from_json("c1", "lookup", call.arguments_json(), provider="p") == call
    assert ToolCall.from_json("c1", "lookup", "  ", provider="p").arguments == {}


@pytest.mark.parametrize(
    "build",
    [
        lambda: Message("robot", "x"),  # type: ignore[arg-type]
        lambda: Message.user(None),  # type: ignore[arg-type]
        lambda: Message("tool", "x"),
        lambda: Message("user", "x", tool_call_id="c"),
        lambda: Message("user", "x", tool_calls=(ToolCall("c", "f"),)),
        lambda: ToolCall("", "f"),
        lambda: ToolCall("c", "f", ["x"]),  # type: ignore[arg-type]
        lambda: ToolSpec("has space"),
        lambda: ToolSpec("f", parameters={"type": "array"}),
        lambda: Completion(None),  # type: ignore[arg-type]
        lambda: Completion("x", finish_reason="done"),  # type: ignore[arg-type]
        lambda: Completion("x", ("call",)),  # type: ignore[arg-type]
    ],
)
def test_invalid_values_are_rejected(build: object) -> None:
    with pytest.raises(InvalidArgumentError):
        build()  # type: ignore[operator]


def test_from_json_errors_name_provider_and_tool() -> None:
    with pytest.raises(ToolArgumentsError, match=r"groq:m: tool call 'f' has malformed JSON"):
        ToolCall.from_json("c", "f", "{", provider="groq:m")
    with pytest.raises(ToolArgumentsError, match="JSON int, not an object"):
        ToolCall.from_json("c", "f", "3", provider="groq:m")
