"""AnthropicBrain.stream against the local stub server streaming SSE (no network)."""

from __future__ import annotations

from typing import Any

import pytest

from remem.brains import AnthropicBrain, Completion, Message, ReplyStream, ToolCall, Usage
from remem.errors import BrainError, InvalidArgumentError
from tests.brains.conftest import KEY, Delays, drain_into, json_reply, split_mid_character, sse
from tests.brains.test_anthropic import WEATHER
from tests.embeddings.stub_server import Response, StubServer


def make(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> tuple[AnthropicBrain, Delays]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    brain = AnthropicBrain(stub.url, "claude-test")
    delays = Delays()
    brain._sleep = delays
    return brain, delays


def start() -> tuple[str, dict[str, Any]]:
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-20250101",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 20, "output_tokens": 1},
    }
    return ("message_start", {"type": "message_start", "message": message})


def block(index: int, content: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": content},
    )


def text(index: int, value: str) -> tuple[str, dict[str, Any]]:
    delta = {"type": "text_delta", "text": value}
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


def json_piece(index: int, value: str) -> tuple[str, dict[str, Any]]:
    delta = {"type": "input_json_delta", "partial_json": value}
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


def stop(index: int) -> tuple[str, dict[str, Any]]:
    return ("content_block_stop", {"type": "content_block_stop", "index": index})


def end(reason: str = "end_turn", tokens: int = 7) -> list[tuple[str, dict[str, Any]]]:
    delta = {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}}
    return [
        ("message_delta", {**delta, "usage": {"output_tokens": tokens}}),
        ("message_stop", {"type": "message_stop"}),
    ]


def story() -> list[tuple[str, dict[str, Any]]]:
    return [
        start(),
        block(0, {"type": "text", "text": ""}),
        ("ping", {"type": "ping"}),
        text(0, "Olá, "),
        text(0, "café ☕ é bom"),
        stop(0),
    ]


async def drain(stream: ReplyStream) -> list[str]:
    return [delta async for delta in stream]


async def test_text_deltas_as_they_come_then_the_whole_completion(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: split_mid_character(sse(*story(), *end()), "☕"))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        stream = brain.stream([Message.system("Be brief."), Message.user("Hi")], max_tokens=64)
        deltas = await drain(stream)
    assert deltas == ["Olá, ", "café ☕ é bom"]
    assert stream.result == Completion(
        "Olá, café ☕ é bom", (), "stop", Usage(20, 7), "claude-test-20250101"
    )
    request = stub.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.body["stream"] is True
    assert request.body["system"] == "Be brief."
    assert request.body["max_tokens"] == 64


async def test_a_tool_call_is_assembled_from_its_json_pieces(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = [
        start(),
        block(0, {"type": "text", "text": ""}),
        text(0, "Checking."),
        stop(0),
        block(1, {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}),
        json_piece(1, ""),
        json_piece(1, '{"city": "Par'),
        json_piece(1, 'is"}'),
        stop(1),
        *end("tool_use", 12),
    ]
    stub.script.append(lambda p: sse(*events))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        stream = brain.stream([Message.user("Weather in Paris?")], tools=[WEATHER])
        assert await drain(stream) == ["Checking."]
    completion = stream.result
    assert completion.tool_calls == (ToolCall("toolu_1", "get_weather", {"city": "Paris"}),)
    assert completion.finish_reason == "tool_calls"
    assert completion.text == "Checking."
    assert stub.requests[0].body["tools"][0]["name"] == "get_weather"


async def test_a_stream_cut_off_midway_is_a_brain_error_and_has_no_result(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: sse(*story(), cut=True))
    brain, _ = make(stub, monkeypatch)
    seen: list[str] = []
    async with brain:
        stream = brain.stream([Message.user("Hi")])
        with pytest.raises(BrainError, match=r"anthropic brain .* cut off midway"):
            await drain_into(stream, seen)
    assert seen == ["Olá, ", "café ☕ é bom"]  # what arrived was handed out, nothing more
    assert stream.done
    with pytest.raises(InvalidArgumentError, match="has no result yet"):
        stream.result  # noqa: B018 - the property raises


async def test_a_clean_end_before_message_stop_is_a_brain_error(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: sse(*story()))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(BrainError, match=r"ended before message_stop: .*nothing of it was"):
            await brain.stream([Message.user("Hi")]).collect()


async def test_an_error_event_midway_is_a_brain_error(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    stub.script.append(lambda p: sse(*story()[:4], ("error", error)))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(BrainError, match="reported an error: Overloaded"):
            await brain.stream([Message.user("Hi")]).collect()


async def test_overloaded_before_the_stream_starts_is_retried(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: json_reply({"error": {"type": "overloaded_error"}}, 529))
    stub.script.append(lambda p: sse(*story(), *end()))
    brain, delays = make(stub, monkeypatch)
    async with brain:
        completion = await brain.stream([Message.user("Hi")]).collect()
    assert completion.text == "Olá, café ☕ é bom"
    assert len(delays.seen) == 1
    assert len(stub.requests) == 2


async def test_refused_and_invalid_requests_fail_at_once(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: Response(400, b'{"error": {"message": "bad model"}}'))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(InvalidArgumentError, match="messages is empty"):
            brain.stream([])
        with pytest.raises(BrainError, match=r"HTTP 400: .*bad model.*check the model name"):
            await brain.stream([Message.user("Hi")]).collect()
    with pytest.raises(BrainError, match="was closed"):
        await brain.stream([Message.user("Hi")]).collect()


async def test_a_stream_closed_early_frees_its_connection(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = sse(*story(), *end(), delay=0.05)
    stub.script.extend([lambda p: slow, lambda p: sse(*story(), *end())])
    brain, _ = make(stub, monkeypatch)
    async with brain:
        async with brain.stream([Message.user("Hi")]) as stream:
            assert await stream.__anext__() == "Olá, "
        assert stream.done
        assert [d async for d in stream] == []
        assert (await brain.stream([Message.user("Again")]).collect()).text == "Olá, café ☕ é bom"
    assert len(stub.requests) == 2
