"""GeminiBrain against a scripted HTTP server on 127.0.0.1 (no network)."""

from __future__ import annotations

from typing import Any

import pytest

from remem.brains import (
    PROVIDERS,
    Brain,
    Completion,
    GeminiBrain,
    Message,
    ToolCall,
    ToolSpec,
    Usage,
    brain_from_spec,
)
from remem.errors import BrainError, ConfigError, InvalidArgumentError
from tests.brains.conftest import KEY, Delays, json_reply
from tests.embeddings.stub_server import Response, StubServer

WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def answer(parts: list[dict[str, Any]], finish: str = "STOP") -> Response:
    return json_reply(
        {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 21,
                "candidatesTokenCount": 4,
                "totalTokenCount": 25,
            },
            "modelVersion": "gemini-test-001",
        }
    )


def make(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, **kwargs: Any
) -> tuple[GeminiBrain, Delays]:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    brain = GeminiBrain(stub.url, "gemini-test", **kwargs)
    delays = Delays()
    brain._sleep = delays
    return brain, delays


async def test_text_completion_and_request_shape(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: answer([{"text": "Hel"}, {"text": "lo!"}]))
    brain, _ = make(stub, monkeypatch)
    assert isinstance(brain, Brain)
    assert brain.name == f"gemini:gemini-test@{stub.url.split('/')[2]}"
    async with brain:
        completion = await brain.complete(
            [
                Message.system("Be brief."),
                Message.user("Hi"),
                Message.user("Are you there?"),
                Message.assistant("Yes."),
                Message.user("Good."),
                Message.system("Answer in English."),
            ],
            max_tokens=64,
            temperature=0.7,
        )
    assert completion == Completion("Hello!", (), "stop", Usage(21, 4), "gemini-test-001")
    request = stub.requests[0]
    assert request.path == "/v1/models/gemini-test:generateContent"
    assert request.headers["x-goog-api-key"] == KEY
    assert "key=" not in request.path
    assert "authorization" not in request.headers
    assert request.body == {
        "contents": [
            {"role": "user", "parts": [{"text": "Hi"}, {"text": "Are you there?"}]},
            {"role": "model", "parts": [{"text": "Yes."}]},
            {"role": "user", "parts": [{"text": "Good."}]},
        ],
        "systemInstruction": {"parts": [{"text": "Be brief.\n\nAnswer in English."}]},
        "generationConfig": {"temperature": 0.7, "maxOutputTokens": 64},
    }


async def test_function_call_round_trip(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Zürich"}}}
    stub.script.append(lambda p: answer([{"text": "Let me check."}, call]))
    stub.script.append(lambda p: answer([{"text": "Sunny."}]))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        messages = [Message.user("Weather in Zürich?")]
        first = await brain.complete(messages, tools=[WEATHER], tool_choice="required")
        assert first.text == "Let me check."
        assert first.tool_calls == (
            ToolCall("gemini_call_0_get_weather", "get_weather", {"city": "Zürich"}),
        )
        assert first.finish_reason == "tool_calls"  # Gemini says STOP
        messages += [first.as_message(), Message.tool(first.tool_calls[0].id, "sunny, 21 °C")]
        second = await brain.complete(messages, tools=[WEATHER], tool_choice="get_weather")
    assert second.text == "Sunny."
    sent = stub.requests[0].body
    assert sent["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Current weather for a city",
                    "parameters": WEATHER.parameters,
                }
            ]
        }
    ]
    assert sent["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    again = stub.requests[1].body
    assert again["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}
    }
    assert again["contents"] == [
        {"role": "user", "parts": [{"text": "Weather in Zürich?"}]},
        {"role": "model", "parts": [{"text": "Let me check."}, call]},
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "get_weather",
                        "response": {"content": "sunny, 21 °C"},
                    }
                }
            ],
        },
    ]


async def test_call_ids_given_by_the_model_are_sent_back(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = {"functionCall": {"id": "fc_7", "name": "get_weather", "args": {"city": "Oslo"}}}
    stub.script.append(lambda p: answer([call]))
    stub.script.append(lambda p: answer([{"text": "Cold."}]))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        first = await brain.complete([Message.user("Oslo?")], tools=[WEATHER])
        assert first.tool_calls == (ToolCall("fc_7", "get_weather", {"city": "Oslo"}),)
        follow = [Message.user("Oslo?"), first.as_message(), Message.tool("fc_7", "-3 °C")]
        await brain.complete(follow, tools=[WEATHER], tool_choice="none")
    again = stub.requests[1].body
    assert again["contents"][1]["parts"] == [call]
    assert again["contents"][2]["parts"][0]["functionResponse"]["id"] == "fc_7"
    assert again["toolConfig"] == {"functionCallingConfig": {"mode": "NONE"}}


async def test_response_format_is_json_mime_and_schema(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: answer([{"text": '{"city": "Rome"}'}]))
    stub.script.append(lambda p: answer([{"text": "{}"}]))
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    brain, _ = make(stub, monkeypatch)
    async with brain:
        reply = await brain.complete(
            [Message.user("x")],
            response_format={"type": "json_schema", "json_schema": {"name": "c", "schema": schema}},
        )
        await brain.complete([Message.user("x")], response_format={"type": "json_object"})
    assert reply.text == '{"city": "Rome"}'
    assert stub.requests[0].body["generationConfig"] == {
        "temperature": 0.0,
        "maxOutputTokens": 1024,
        "responseMimeType": "application/json",
        "responseJsonSchema": schema,
    }
    assert stub.requests[1].body["generationConfig"]["responseMimeType"] == "application/json"


@pytest.mark.parametrize(
    ("finish", "expected"),
    [("MAX_TOKENS", "length"), ("SAFETY", "content_filter"), ("WHATEVER", "other")],
)
async def test_finish_reasons(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch, finish: str, expected: str
) -> None:
    stub.script.append(lambda p: answer([{"text": "cut"}], finish))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        assert (await brain.complete([Message.user("x")])).finish_reason == expected


async def test_thoughts_are_not_the_answer_and_a_blocked_prompt_is_filtered(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: answer([{"text": "hmm…", "thought": True}, {"text": "42"}]))
    stub.script.append(lambda p: json_reply({"promptFeedback": {"blockReason": "SAFETY"}}))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        assert (await brain.complete([Message.user("x")])).text == "42"
        blocked = await brain.complete([Message.user("y")])
    assert (blocked.text, blocked.finish_reason) == ("", "content_filter")


async def test_429_then_success_and_401_not_retried(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: json_reply({"error": {"code": 429}}, 429, **{"retry-after": "3"}))
    stub.script.append(lambda p: answer([{"text": "ok"}]))
    stub.script.append(lambda p: json_reply({"error": {"code": 401}}, 401))
    brain, delays = make(stub, monkeypatch)
    async with brain:
        assert (await brain.complete([Message.user("x")])).text == "ok"
        with pytest.raises(
            BrainError, match=r"gemini brain at 127.0.0.1.*HTTP 401.*GEMINI_API_KEY"
        ):
            await brain.complete([Message.user("x")])
    assert delays.seen == [3.0]
    assert len(stub.requests) == 3


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b"<html>oops", "invalid JSON"),
        (b'{"x": 1}', "no 'candidates' list"),
        (b'{"candidates": [{"content": {"parts": 3}}]}', "no 'parts' list"),
        (b'{"candidates": [{"content": {"parts": [{"functionCall": {}}]}}]}', "lacks a name"),
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


def test_missing_api_key_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="GEMINI_API_KEY, which is not set"):
        GeminiBrain()


async def test_requests_the_api_would_refuse_fail_before_sending(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(InvalidArgumentError, match="at least one non-empty"):
            await brain.complete([Message.system("s"), Message.user("")])
        with pytest.raises(InvalidArgumentError, match="answers no tool call"):
            await brain.complete([Message.user("x"), Message.tool("nope", "1")])
        with pytest.raises(InvalidArgumentError, match="needs a 'schema'"):
            await brain.complete(
                [Message.user("x")], response_format={"type": "json_schema", "json_schema": {}}
            )
    assert stub.requests == []


def test_specs_name_every_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    brain = brain_from_spec("Gemini: gemini-2.5-pro")
    assert isinstance(brain, GeminiBrain)
    assert brain.name == "gemini:gemini-2.5-pro@generativelanguage.googleapis.com"
    local = brain_from_spec("gemini:g", base_url="http://127.0.0.1:9/v1beta")
    assert local.name == "gemini:g@127.0.0.1:9"
    assert "gemini" in PROVIDERS
    assert "anthropic" in PROVIDERS
    with pytest.raises(ConfigError, match="unknown brain provider 'bard'; use one of anthropic"):
        brain_from_spec("bard:x")
    with pytest.raises(ConfigError, match="must be PROVIDER:MODEL"):
        brain_from_spec("gemini")
