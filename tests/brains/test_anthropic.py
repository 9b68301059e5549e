"""AnthropicBrain against a scripted HTTP server on 127.0.0.1 (no network)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from remem.brains import (
    ANTHROPIC_VERSION,
    AnthropicBrain,
    Completion,
    Message,
    ToolCall,
    ToolSpec,
    Usage,
)
from remem.errors import BrainError, ConfigError, InvalidArgumentError, ToolArgumentsError
from tests.brains.conftest import KEY, Delays, json_reply
from tests.embeddings.stub_server import Response, StubServer

WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def answer(content: list[dict[str, Any]], stop: str = "end_turn") -> Response:
    return json_reply(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test-20250101",
            "content": content,
            "stop_reason": stop,
            "usage": {"input_tokens": 20, "output_tokens": 5},
        }
    )


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def make(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, **kwargs: Any
) -> tuple[AnthropicBrain, Delays]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    brain = AnthropicBrain(stub.url, "claude-test", **kwargs)
    delays = Delays()
    brain._sleep = delays
    return brain, delays


async def test_text_completion_and_request_shape(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: answer([text("Hel"), text("lo!")]))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        completion = await brain.complete(
            [
                Message.system("Be brief."),
                Message.user("Hi"),
                Message.user("Are you there?"),
                Message.system("Answer in English."),
            ],
            max_tokens=64,
        )
    assert completion == Completion("Hello!", (), "stop", Usage(20, 5), "claude-test-20250101")
    request = stub.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "claude-test",
        "max_tokens": 64,
        "temperature": 0.0,
        "system": "Be brief.\n\nAnswer in English.",
        "messages": [{"role": "user", "content": [text("Hi"), text("Are you there?")]}],
    }


async def test_tool_call_round_trip(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    use = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Zürich"}}
    stub.script.append(lambda p: answer([text("Let me check."), use], "tool_use"))
    stub.script.append(lambda p: answer([text("Sunny.")]))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        messages = [Message.user("Weather in Zürich?")]
        first = await brain.complete(messages, tools=[WEATHER], tool_choice="required")
        assert first.text == "Let me check."
        assert first.tool_calls == (ToolCall("toolu_1", "get_weather", {"city": "Zürich"}),)
        assert first.finish_reason == "tool_calls"
        messages += [first.as_message(), Message.tool("toolu_1", "sunny, 21 °C")]
        messages.append(Message.user("And tomorrow?"))
        second = await brain.complete(messages, tools=[WEATHER])
    assert second.text == "Sunny."
    sent = stub.requests[0].body
    assert sent["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather for a city",
            "input_schema": WEATHER.parameters,
        }
    ]
    assert sent["tool_choice"] == {"type": "any"}
    again = stub.requests[1].body
    assert again["messages"] == [
        {"role": "user", "content": [text("Weather in Zürich?")]},
        {"role": "assistant", "content": [text("Let me check."), use]},
        {
            "role": "user",  # the tool result and the next user turn merge into one turn
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny, 21 °C"},
                text("And tomorrow?"),
            ],
        },
    ]
    assert "tool_choice" not in again


async def test_response_format_is_a_forced_tool(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = {"type": "object", "properties": {"facts": {"type": "array"}}}
    use = {"type": "tool_use", "id": "t", "name": "respond", "input": {"facts": ["likes tea"]}}
    stub.script.append(lambda p: answer([use], "tool_use"))
    brain, _ = make(stub, monkeypatch)
    fmt = {"type": "json_schema", "json_schema": {"name": "facts", "schema": schema}}
    async with brain:
        completion = await brain.complete([Message.user("I like tea")], response_format=fmt)
        with pytest.raises(InvalidArgumentError, match="one or the other"):
            await brain.complete([Message.user("x")], response_format=fmt, tools=[WEATHER])
    assert json.loads(completion.text) == {"facts": ["likes tea"]}
    assert completion.tool_calls == ()
    assert completion.finish_reason == "stop"
    sent = stub.requests[0].body
    assert sent["tool_choice"] == {"type": "tool", "name": "respond"}
    assert sent["tools"][0]["input_schema"] == schema


async def test_malformed_tool_input_is_typed(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    use = {"type": "tool_use", "id": "t", "name": "get_weather", "input": ["Zürich"]}
    stub.script.append(lambda p: answer([use], "tool_use"))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(ToolArgumentsError, match=r"anthropic:claude-test.*'get_weather'"):
            await brain.complete([Message.user("x")], tools=[WEATHER])


async def test_429_with_retry_after_then_success(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: json_reply({"type": "error"}, 429, **{"retry-after": "4"}))
    stub.script.append(lambda p: json_reply({"type": "overloaded_error"}, 529))
    stub.script.append(lambda p: answer([text("ok")]))
    brain, delays = make(stub, monkeypatch)
    async with brain:
        assert (await brain.complete([Message.user("x")])).text == "ok"
    assert len(stub.requests) == 3
    assert delays.seen[0] == 4.0
    assert 0.5 <= delays.seen[1] <= 1.0


async def test_500s_exhausted(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.script.extend([lambda p: json_reply({"error": "api_error"}, 500)] * 2)
    brain, delays = make(stub, monkeypatch, max_retries=1)
    async with brain:
        with pytest.raises(BrainError, match=r"anthropic brain at 127.0.0.1.*HTTP 500.*2 attempts"):
            await brain.complete([Message.user("x")])
    assert len(stub.requests) == 2
    assert len(delays.seen) == 1


async def test_401_is_not_retried(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.script.append(lambda p: json_reply({"error": "authentication_error"}, 401))
    brain, delays = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(BrainError, match=r"HTTP 401.*set ANTHROPIC_API_KEY") as info:
            await brain.complete([Message.user("x")])
    assert KEY not in str(info.value)
    assert len(stub.requests) == 1
    assert delays.seen == []


async def test_timeout(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.script.append(lambda p: Response(delay=1.0, body=b"{}"))
    brain, _ = make(stub, monkeypatch, timeout=0.1, max_retries=0)
    async with brain:
        with pytest.raises(BrainError, match=r"timed out after 0.1 s on all 1 attempts"):
            await brain.complete([Message.user("x")])


@pytest.mark.parametrize(
    ("body", "match"),
    [(b"<html>oops", "invalid JSON"), (b'{"type": "message"}', "no 'content' list")],
)
async def test_malformed_answers(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, body: bytes, match: str
) -> None:
    stub.script.append(lambda p: Response(200, body))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(BrainError, match=match):
            await brain.complete([Message.user("x")])


def test_missing_api_key_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY, which is not set"):
        AnthropicBrain()


async def test_requests_the_api_would_refuse_fail_before_sending(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(InvalidArgumentError, match="at least one non-empty"):
            await brain.complete([Message.system("s"), Message.user("")])
        with pytest.raises(InvalidArgumentError, match="'schema' of type 'object'"):
            await brain.complete(
                [Message.user("x")], response_format={"type": "json_schema", "json_schema": {}}
            )
        with pytest.raises(InvalidArgumentError, match="json_schema' or 'json_object'"):
            await brain.complete([Message.user("x")], response_format={"type": "yaml"})
    assert stub.requests == []
