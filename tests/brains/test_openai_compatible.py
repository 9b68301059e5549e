"""OpenAICompatibleBrain against a scripted HTTP server on 127.0.0.1 (no network)."""

from __future__ import annotations

from typing import Any

import pytest

from remem.brains import (
    AnthropicBrain,
    Brain,
    Completion,
    Message,
    OpenAICompatibleBrain,
    ScriptedBrain,
    ToolCall,
    ToolSpec,
    Usage,
)
from remem.errors import BrainError, ConfigError, InvalidArgumentError, ToolArgumentsError
from tests.brains.conftest import KEY, Delays, json_reply
from tests.embeddings.stub_server import Response, StubServer, serve

WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def answer(
    content: str | None = "Hello!",
    tool_calls: list[dict[str, Any]] | None = None,
    finish: str = "stop",
) -> Response:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return json_reply(
        {
            "id": "chatcmpl-1",
            "model": "test-model-0613",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
        }
    )


def make(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, **kwargs: Any
) -> tuple[OpenAICompatibleBrain, Delays]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    brain = OpenAICompatibleBrain(stub.url, "test-model", **kwargs)
    delays = Delays()
    brain._sleep = delays
    return brain, delays


async def test_text_completion_and_request_shape(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: answer("Hello!"))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        completion = await brain.complete(
            [Message.system("Be brief."), Message.user("Hi")], temperature=0.5, max_tokens=64
        )
    assert completion == Completion("Hello!", (), "stop", Usage(12, 3), "test-model-0613")
    request = stub.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body == {
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
        ],
        "temperature": 0.5,
        "max_tokens": 64,
    }
    assert brain.name == f"openai-compatible:test-model@{stub.url.split('/')[2]}"


async def test_tool_call_round_trip(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Zürich"}'},
    }
    stub.script.append(lambda p: answer(None, [call], "tool_calls"))
    stub.script.append(lambda p: answer("It is sunny in Zürich."))
    brain, _ = make(stub, monkeypatch)
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    async with brain:
        messages = [Message.user("Weather in Zürich?")]
        first = await brain.complete(messages, tools=[WEATHER], tool_choice="get_weather")
        assert first.tool_calls == (ToolCall("call_1", "get_weather", {"city": "Zürich"}),)
        assert first.finish_reason == "tool_calls"
        assert first.text == ""
        messages += [first.as_message(), Message.tool("call_1", "sunny, 21 °C")]
        second = await brain.complete(messages, tools=[WEATHER], response_format=schema)
    assert second.text == "It is sunny in Zürich."
    sent = stub.requests[0].body
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city",
                "parameters": WEATHER.parameters,
            },
        }
    ]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    again = stub.requests[1].body
    assert again["messages"][1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Zürich"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 °C"},
    ]
    assert again["response_format"] == schema
    assert "tool_choice" not in again


@pytest.mark.parametrize(
    ("arguments", "match"),
    [('{"city": "Zür', "malformed JSON arguments"), ('["Zürich"]', "a JSON list, not an object")],
)
async def test_malformed_tool_arguments_are_typed(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, arguments: str, match: str
) -> None:
    call = {
        "id": "c",
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }
    stub.script.append(lambda p: answer(None, [call], "tool_calls"))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(ToolArgumentsError, match=match) as info:
            await brain.complete([Message.user("x")], tools=[WEATHER])
    assert "openai-compatible:test-model" in str(info.value)
    assert "'get_weather'" in str(info.value)


async def test_429_with_retry_after_then_success(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: json_reply({"error": "slow down"}, 429, **{"Retry-After": "3"}))
    stub.script.append(lambda p: Response(503, b"busy"))
    stub.script.append(lambda p: answer("ok"))
    brain, delays = make(stub, monkeypatch)
    async with brain:
        assert (await brain.complete([Message.user("x")])).text == "ok"
    assert len(stub.requests) == 3
    assert delays.seen[0] == 3.0
    assert 0.5 <= delays.seen[1] <= 1.0


async def test_500s_exhausted(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.script.extend([lambda p: json_reply({"error": "model crashed"}, 500)] * 3)
    brain, delays = make(stub, monkeypatch, max_retries=2)
    async with brain:
        with pytest.raises(BrainError) as info:
            await brain.complete([Message.user("x")])
    message = str(info.value)
    for part in ("openai-compatible brain", "127.0.0.1", "HTTP 500", "model crashed", "3 attempts"):
        assert part in message
    assert KEY not in message
    assert len(stub.requests) == 3
    assert len(delays.seen) == 2


async def test_401_is_not_retried(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.script.append(lambda p: json_reply({"error": "invalid key"}, 401))
    brain, delays = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(BrainError, match=r"HTTP 401.*invalid key.*set OPENAI_API_KEY"):
            await brain.complete([Message.user("x")])
    assert len(stub.requests) == 1
    assert delays.seen == []


async def test_timeout(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.script.extend([lambda p: Response(delay=1.0, body=b"{}")] * 2)
    brain, delays = make(stub, monkeypatch, timeout=0.1, max_retries=1)
    async with brain:
        with pytest.raises(BrainError, match=r"timed out after 0.1 s on all 2 attempts"):
            await brain.complete([Message.user("x")])
    assert len(delays.seen) == 1


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b"{not json", "invalid JSON"),
        (b"[1, 2]", "JSON list, not an object"),
        (b'{"object": "error"}', "no 'choices' list"),
    ],
)
async def test_malformed_answers(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, body: bytes, match: str
) -> None:
    stub.script.append(lambda p: Response(200, body))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(BrainError, match=match):
            await brain.complete([Message.user("x")])


async def test_missing_api_key_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"environment variable GROQ_API_KEY, which is not set"):
        OpenAICompatibleBrain("https://api.groq.com/openai/v1", "m", api_key_env="GROQ_API_KEY")
    monkeypatch.setenv("GROQ_API_KEY", KEY)
    async with serve() as stub:
        brain = OpenAICompatibleBrain(stub.url, "m", api_key_env="GROQ_API_KEY")
        monkeypatch.delenv("GROQ_API_KEY")  # read again at each call
        with pytest.raises(ConfigError, match="GROQ_API_KEY"):
            await brain.complete([Message.user("x")])
        await brain.aclose()
    assert stub.requests == []


async def test_keyless_local_server(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    call = {"id": "c", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}
    stub.script.append(lambda p: answer("", [call], "stop"))  # Ollama's shape
    async with OpenAICompatibleBrain(stub.url, "llama3.2", api_key_env=None) as brain:
        completion = await brain.complete([Message.user("x")], tools=[WEATHER])
    assert completion.tool_calls == (ToolCall("c", "get_weather", {"city": "Oslo"}),)
    assert completion.finish_reason == "tool_calls"
    assert "authorization" not in stub.requests[0].headers


async def test_bad_requests_and_config_and_close(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    brain, _ = make(stub, monkeypatch)
    with pytest.raises(InvalidArgumentError, match="messages is empty"):
        await brain.complete([])
    with pytest.raises(InvalidArgumentError, match="tool_choice"):
        await brain.complete([Message.user("x")], tools=[WEATHER], tool_choice="nope")
    with pytest.raises(InvalidArgumentError, match="temperature"):
        await brain.complete([Message.user("x")], temperature=float("nan"))
    with pytest.raises(InvalidArgumentError, match="max_tokens"):
        await brain.complete([Message.user("x")], max_tokens=0)
    await brain.aclose()
    await brain.aclose()
    with pytest.raises(BrainError, match="was closed"):
        await brain.complete([Message.user("x")])
    assert stub.requests == []
    with pytest.raises(ConfigError, match="base_url"):
        OpenAICompatibleBrain("ftp://host", "m", api_key_env=None)
    with pytest.raises(ConfigError, match="max_retries"):
        OpenAICompatibleBrain("http://host", "m", api_key_env=None, max_retries=-1)


async def test_connection_refused_is_reported() -> None:
    async with serve() as stub:
        url = stub.url
    brain = OpenAICompatibleBrain(url, "m", api_key_env=None, max_retries=1)
    delays = Delays()
    brain._sleep = delays
    async with brain:
        with pytest.raises(BrainError, match="connection failed on all 2 attempts"):
            await brain.complete([Message.user("x")])


def test_every_brain_satisfies_the_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    brains: list[Brain] = [  # also checked statically by mypy
        OpenAICompatibleBrain("http://localhost:11434/v1", "llama3.2", api_key_env=None),
        AnthropicBrain(),
        ScriptedBrain(),
    ]
    assert all(isinstance(brain, Brain) for brain in brains)
    assert [b.name.split(":")[0] for b in brains] == ["openai-compatible", "anthropic", "scripted"]
