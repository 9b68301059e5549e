"""DeltaStream, the protocol's default stream and the SSE decoder, without a server."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import pytest

from remem.brains import Brain, Completion, DeltaStream, Done, Message, ScriptedBrain
from remem.brains._sse import SSEEvent, sse_events
from remem.errors import BrainError, InvalidArgumentError


async def chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def events(*parts: bytes) -> list[SSEEvent]:
    return [event async for event in sse_events(chunks(*parts))]


async def test_sse_joins_characters_split_across_chunks_byte_by_byte() -> None:
    raw = "event: note\r\ndata: ☕ é 🌍\r\n\r\n: a comment\ndata: a\ndata:b\n\n".encode()
    one_byte_each = [raw[i : i + 1] for i in range(len(raw))]
    assert await events(*one_byte_each) == [
        SSEEvent("note", "☕ é 🌍"),
        SSEEvent("message", "a\nb"),
    ]


async def test_sse_drops_an_unfinished_event_and_refuses_a_cut_character() -> None:
    assert await events(b"data: whole\n\ndata: half") == [SSEEvent("message", "whole")]
    with pytest.raises(UnicodeDecodeError):
        await events(b"data: x\n\n", "☕".encode()[:2])
    with pytest.raises(UnicodeDecodeError):
        await events(b"data: \xff\xfe\n\n")


class Whole(Brain):
    """A brain that only completes: it streams through the protocol's default."""

    name = "whole:test"

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def complete(self, messages: Sequence[Message], **kwargs: Any) -> Completion:
        self.calls.append(kwargs)
        return Completion("the whole reply", model="w")

    async def aclose(self) -> None:
        pass


async def test_a_brain_that_does_not_stream_yields_its_whole_reply_once() -> None:
    brain = Whole()
    assert isinstance(brain, Brain)
    stream = brain.stream([Message.user("hi")], max_tokens=9, tool_choice=None)
    assert brain.calls == []  # nothing is asked before the stream is read
    assert [d async for d in stream] == ["the whole reply"]
    assert stream.result == Completion("the whole reply", model="w")
    assert brain.calls[0]["max_tokens"] == 9
    scripted = await ScriptedBrain(["", "x"]).stream([Message.user("hi")]).collect()
    assert scripted.text == ""  # an empty reply yields no delta, and still a result


async def test_delta_stream_contract() -> None:
    async def cut() -> AsyncGenerator[str | Done[int], None]:
        yield "a"

    stream: DeltaStream[int] = DeltaStream(cut(), what="the test stream")
    assert await stream.__anext__() == "a"
    with pytest.raises(BrainError, match="the test stream ended without its final answer"):
        await stream.__anext__()
    with pytest.raises(InvalidArgumentError, match="has no result yet"):
        stream.result  # noqa: B018 - the property raises
    assert [d async for d in stream] == []  # ended: iterating again yields nothing

    closed: list[bool] = []

    async def long() -> AsyncGenerator[str | Done[int], None]:
        try:
            yield "a"
            yield "b"
            yield Done(2)
        finally:
            closed.append(True)

    async with DeltaStream(long(), what="s") as early:
        assert await early.__anext__() == "a"
    assert closed == [True]
    assert early.done
    whole: DeltaStream[int] = DeltaStream(long(), what="s")
    assert await whole.collect() == 2
    assert whole.result == 2
