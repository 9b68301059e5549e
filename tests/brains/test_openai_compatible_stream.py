"""OpenAICompatibleBrain.stream against the local stub server streaming ``data:`` chunks."""

from __future__ import annotations

from typing import Any

import pytest

from remem.brains import Completion, Message, OpenAICompatibleBrain, ToolCall, Usage
from remem.errors import BrainError, InvalidArgumentError
from tests.brains.conftest import KEY, Delays, drain_into, json_reply, split_mid_character, sse
from tests.brains.test_openai_compatible import WEATHER
from tests.embeddings.stub_server import StubServer


def make(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> tuple[OpenAICompatibleBrain, Delays]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    brain = OpenAICompatibleBrain(stub.url, "gpt-test")
    delays = Delays()
    brain._sleep = delays
    return brain, delays


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> tuple[None, Any]:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "gpt-test-0613",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return (None, body)


DONE = (None, "[DONE]")


def story() -> list[tuple[None, Any]]:
    return [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Привет, "}),
        chunk({"content": "мир 🌍!"}),
    ]


async def test_text_deltas_then_the_whole_completion(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    usage = {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}
    events = [*story(), chunk({}, "stop"), (None, {"choices": [], "usage": usage}), DONE]
    stub.script.append(lambda p: split_mid_character(sse(*events), "🌍"))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        stream = brain.stream([Message.user("Hi")], max_tokens=32)
        deltas = [d async for d in stream]
    assert deltas == ["Привет, ", "мир 🌍!"]
    assert stream.result == Completion("Привет, мир 🌍!", (), "stop", Usage(9, 4), "gpt-test-0613")
    request = stub.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["stream"] is True
    assert request.body["max_tokens"] == 32


async def test_tool_calls_are_assembled_by_index(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def call(index: int, **fields: Any) -> dict[str, Any]:
        return {"tool_calls": [{"index": index, **fields}]}

    events = [
        chunk({"role": "assistant", "content": None}),
        chunk(call(0, id="call_a", type="function", function={"name": "get_weather"})),
        chunk(call(0, function={"arguments": '{"ci'})),
        chunk(call(1, id="call_b", type="function", function={"name": "get_weather"})),
        chunk(call(0, function={"arguments": 'ty": "Oslo"}'})),
        chunk(call(1, function={"arguments": '{"city": "Rome"}'})),
        chunk({}, "tool_calls"),
        DONE,
    ]
    stub.script.append(lambda p: sse(*events))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        completion = await brain.stream([Message.user("Oslo and Rome?")], tools=[WEATHER]).collect()
    assert completion.text == ""
    assert completion.tool_calls == (
        ToolCall("call_a", "get_weather", {"city": "Oslo"}),
        ToolCall("call_b", "get_weather", {"city": "Rome"}),
    )
    assert completion.finish_reason == "tool_calls"


async def test_cut_off_midway_is_a_brain_error_with_no_result(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: sse(*story(), cut=True))
    stub.script.append(lambda p: sse(*story()))  # a clean end, but no finish and no [DONE]
    brain, _ = make(stub, monkeypatch)
    async with brain:
        stream = brain.stream([Message.user("Hi")])
        seen: list[str] = []
        with pytest.raises(BrainError, match=r"openai-compatible brain .* cut off midway"):
            await drain_into(stream, seen)
        assert seen == ["Привет, ", "мир 🌍!"]
        with pytest.raises(InvalidArgumentError):
            stream.result  # noqa: B018 - the property raises
        with pytest.raises(BrainError, match=r"ended before its finish_reason or data: \[DONE\]"):
            await brain.stream([Message.user("Hi")]).collect()


async def test_an_error_chunk_and_a_refusal(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.script.append(lambda p: sse(*story(), (None, {"error": {"message": "model crashed"}})))
    stub.script.append(lambda p: json_reply({"error": "rate"}, 429))
    stub.script.append(lambda p: sse(*story(), chunk({}, "length"), DONE))
    brain, delays = make(stub, monkeypatch)
    async with brain:
        with pytest.raises(BrainError, match="reported an error: model crashed"):
            await brain.stream([Message.user("Hi")]).collect()
        completion = await brain.stream([Message.user("Hi")]).collect()
    assert completion.finish_reason == "length"
    assert len(delays.seen) == 1  # the 429 before the stream was retried


async def test_a_server_that_does_not_stream_gives_its_whole_reply_once(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = {
        "model": "gpt-test-0613",
        "choices": [{"message": {"content": "All at once."}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 3},
    }
    stub.script.append(lambda p: json_reply(whole))
    brain, _ = make(stub, monkeypatch)
    async with brain:
        stream = brain.stream([Message.user("Hi")])
        assert [d async for d in stream] == ["All at once."]
    assert stream.result == Completion("All at once.", (), "stop", Usage(3, 3), "gpt-test-0613")
