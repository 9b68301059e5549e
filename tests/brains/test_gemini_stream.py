"""GeminiBrain.stream against the local stub server (``:streamGenerateContent?alt=sse``)."""

from __future__ import annotations

from typing import Any

import pytest

from remem.brains import Completion, GeminiBrain, Message, ToolCall, Usage
from remem.errors import BrainError, InvalidArgumentError
from tests.brains.conftest import KEY, Delays, drain_into, json_reply, split_mid_character, sse
from tests.brains.test_gemini import WEATHER
from tests.embeddings.stub_server import StubServer


def make(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> tuple[GeminiBrain, Delays]:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    brain = GeminiBrain(stub.url, "gemini-test")
    delays = Delays()
    brain._sleep = delays
    return brain, delays


def piece(parts: list[dict[str, Any]], finish: str | None = None) -> tuple[None, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-test-001"}
    if finish:
        body["usageMetadata"] = {"promptTokenCount": 21, "candidatesTokenCount": 6}
    return (None, body)


def story() -> list[tuple[None, Any]]:
    return [
        piece([{"text": "thinking…", "thought": True}]),
        piece([{"text": "こんにちは、"}]),
        piece([{"text": "世界"}]),
    ]


async def test_text_pieces_then_the_whole_completion(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = [*story(), piece([{"text": "!"}], "STOP")]
    stub.script.append(lambda p: split_mid_character(sse(*events), "世"))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        stream = brain.stream([Message.system("Be brief."), Message.user("Hi")], max_tokens=16)
        deltas = [d async for d in stream]
    assert deltas == ["こんにちは、", "世界", "!"]
    assert stream.result == Completion(
        "こんにちは、世界!", (), "stop", Usage(21, 6), "gemini-test-001"
    )
    request = stub.requests[0]
    assert request.path == "/v1/models/gemini-test:streamGenerateContent?alt=sse"
    assert request.headers["x-goog-api-key"] == KEY
    assert request.body["generationConfig"]["maxOutputTokens"] == 16
    assert request.body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}


async def test_function_calls_come_whole(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Kyoto"}}}
    stub.script.append(lambda p: sse(piece([{"text": "Let me see. "}]), piece([call], "STOP")))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        completion = await brain.stream([Message.user("Kyoto?")], tools=[WEATHER]).collect()
    assert completion.text == "Let me see. "
    assert completion.tool_calls == (
        ToolCall("gemini_call_0_get_weather", "get_weather", {"city": "Kyoto"}),
    )
    assert completion.finish_reason == "tool_calls"


async def test_a_stream_without_its_finish_reason_is_a_brain_error(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: sse(*story(), cut=True))
    stub.script.append(lambda p: sse(*story()))  # ends cleanly, but no finishReason came
    stub.script.append(lambda p: sse((None, {"error": {"code": 503, "message": "overloaded"}})))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        stream = brain.stream([Message.user("Hi")])
        seen: list[str] = []
        with pytest.raises(BrainError, match=r"gemini brain .* cut off midway"):
            await drain_into(stream, seen)
        assert seen == ["こんにちは、", "世界"]
        with pytest.raises(InvalidArgumentError):
            stream.result  # noqa: B018 - the property raises
        with pytest.raises(BrainError, match="ended before a candidate's finishReason"):
            await brain.stream([Message.user("Hi")]).collect()
        with pytest.raises(BrainError, match="reported an error: overloaded"):
            await brain.stream([Message.user("Hi")]).collect()


async def test_a_blocked_prompt_is_a_complete_empty_reply(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-test-001"}
    stub.script.append(lambda p: sse((None, blocked)))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        stream = brain.stream([Message.user("Hi")])
        assert [d async for d in stream] == []
    assert stream.result.finish_reason == "content_filter"


async def test_a_whole_json_answer_is_taken_as_one_delta(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = {
        "candidates": [{"content": {"parts": [{"text": "Whole."}]}, "finishReason": "STOP"}],
        "modelVersion": "gemini-test-001",
    }
    stub.script.append(lambda p: json_reply(whole))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        assert [d async for d in brain.stream([Message.user("Hi")])] == ["Whole."]
