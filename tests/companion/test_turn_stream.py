"""Companion.stream_turn: the reply streamed, the turn recorded once; cancelled mid-reply, the
user's message is kept and no half reply is recorded — checked at every await point of the
real stores and the brain (tests/cancellation.py), not at a guessed moment."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from typing import Any

import pytest

import remem
from remem.brains import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TEMPERATURE,
    BrainRequest,
    Completion,
    DeltaStream,
    Done,
    Message,
    ReplyStream,
    ScriptedBrain,
    ToolCall,
    ToolChoice,
    ToolSpec,
)
from remem.companion import CANCELLED_REPLY, Companion, TurnStream
from remem.embeddings import HashingEmbedder
from remem.models import TranscriptEntry
from remem.stores.duckdb import DuckDBRecordStore
from remem.stores.duckdb.blocks import DuckDBBlockStore
from remem.stores.hnsw import HnswVectorStore
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.sqlite.transcript import SQLiteTranscriptStore
from tests.cancellation import CancelInjector, Phase, cancel_everywhere
from tests.companion.doubles import PatternExtractor

REPLY = "Lisbon is lovely — enjoy the pastéis!"


class PieceBrain(ScriptedBrain):
    """A ScriptedBrain that streams each reply in pieces of ``size`` characters, each piece a
    coroutine call (:meth:`piece`, a cancellation checkpoint); ``hold_after`` pieces, it
    sets :attr:`holding` and waits until cancelled (a slow reply)."""

    def __init__(self, *args: Any, size: int = 5, hold_after: int | None = None, **kw: Any):
        super().__init__(*args, **kw)
        self.size = size
        self.hold_after = hold_after
        self.holding = asyncio.Event()
        self.sent = 0

    def stream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> ReplyStream:
        async def produce() -> AsyncGenerator[str | Done[Completion], None]:
            completion = await self.complete(
                messages,
                tools=tools,
                tool_choice=tool_choice,
                temperature=temperature,
                max_tokens=max_tokens,
            )
            for at in range(0, len(completion.text), self.size):
                yield await self.piece(completion.text[at : at + self.size])
            yield Done(completion)

        return DeltaStream(produce(), what="the piece brain's reply")

    async def piece(self, text: str) -> str:
        if self.hold_after is not None and self.sent >= self.hold_after:
            self.holding.set()
            await asyncio.Event().wait()
        self.sent += 1
        await asyncio.sleep(0)
        return text


async def entries(runtime: remem.Runtime, session: str) -> list[TranscriptEntry]:
    transcript = (await runtime.controller.settled()).transcript
    assert transcript is not None
    try:
        return await transcript.get_entries(session)
    except remem.errors.NotFoundError:
        return []


async def drain(stream: TurnStream, seen: list[str]) -> None:
    async for delta in stream:
        seen.append(delta)


async def test_the_reply_streams_and_the_turn_is_recorded_once(runtime: remem.Runtime) -> None:
    add = ToolCall("c1", "core_memory_add", {"block": "user", "text": "Moving to Lisbon"})
    brain = PieceBrain([Completion("Noted. ", (add,)), REPLY], size=4, default="Hi!")
    extractor = PatternExtractor()
    companion = Companion(brain, runtime, extractor=extractor)
    stream = companion.stream_turn("I just moved to Lisbon", session_id="s")
    seen: list[str] = []
    async for delta in stream:
        seen.append(delta)
        assert not stream.replied
        assert await entries(runtime, "s") == []  # nothing is recorded while it streams
    result = stream.result
    assert stream.replied
    assert stream.cancelled_entry is None
    assert len(seen) > 5
    assert "".join(seen) == result.reply == f"Noted. \n\n{REPLY}"  # a blank line between rounds
    (entry,) = await entries(runtime, "s")
    assert entry == result.entry
    assert entry.assistant_message == result.reply
    assert extractor.calls == 1
    assert [c.name for c in result.tool_calls] == ["core_memory_add"]
    blocks = (await runtime.blocks()).block("user").entries
    assert "Moving to Lisbon" in blocks
    assert "The user lives in Lisbon." in blocks  # the post-turn extraction ran
    again = await companion.stream_turn("Hello again", session_id="s").collect()
    assert again.entry.turn_number == 2


async def test_a_reply_cancelled_midway_keeps_the_message_and_no_half_reply(
    runtime: remem.Runtime,
) -> None:
    brain = PieceBrain([REPLY, "Welcome back."], hold_after=2)
    extractor = PatternExtractor()
    companion = Companion(brain, runtime, extractor=extractor)
    stream = companion.stream_turn("I just moved to Lisbon", session_id="s")
    seen: list[str] = []
    reading = asyncio.ensure_future(drain(stream, seen))
    await brain.holding.wait()
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    assert seen == [REPLY[:5], REPLY[5:10]]  # shown before the cancel
    (entry,) = await entries(runtime, "s")
    assert entry.user_message == "I just moved to Lisbon"
    assert entry.assistant_message == ""
    assert entry.metadata["reply"] == CANCELLED_REPLY
    assert stream.cancelled_entry == entry
    assert not stream.replied
    assert extractor.calls == 0  # nothing is extracted from a cancelled turn
    brain.hold_after = None
    result = await companion.stream_turn("I'm back", session_id="s").collect()
    assert result.reply == "Welcome back."
    assert result.entry.turn_number == 2
    said = [m.content for m in brain.requests[-1].messages]
    assert any("I just moved to Lisbon" in text for text in said)  # the kept turn is history


async def test_closing_the_stream_early_is_a_cancellation(runtime: remem.Runtime) -> None:
    companion = Companion(PieceBrain([REPLY]), runtime)
    stream = companion.stream_turn("Tell me about Lisbon", session_id="s")
    async with stream:
        assert await stream.__anext__() == REPLY[:5]
    (entry,) = await entries(runtime, "s")
    assert entry.metadata["reply"] == CANCELLED_REPLY
    assert entry.assistant_message == ""


STORES: tuple[type, ...] = (
    SQLiteTranscriptStore,
    SQLiteEpisodicStore,
    DuckDBRecordStore,
    DuckDBBlockStore,
    HnswVectorStore,
    HashingEmbedder,
)


@pytest.mark.parametrize("phase", ["before", "during"])
async def test_cancelled_at_every_await_point_the_turn_is_whole_or_kept_without_reply(
    runtime: remem.Runtime, monkeypatch: pytest.MonkeyPatch, phase: Phase
) -> None:
    injector = CancelInjector(phase=phase)
    injector.patch(monkeypatch, *STORES, PieceBrain)

    def note_first(request: BrainRequest) -> bool:  # a block write, then the reply
        return not any(m.role == "tool" for m in request.messages)

    def note(request: BrainRequest) -> Completion:
        n = request.last_user_text.rpartition("#")[2]
        add = ToolCall(f"c{n}", "core_memory_add", {"block": "user", "text": f"n{n}"})
        return Completion(tool_calls=(add,))

    brain = PieceBrain(rules=[(note_first, note)], default=REPLY)
    companion = Companion(brain, runtime)
    blocks = await companion.blocks()
    assert blocks is not None
    streams: dict[int, TurnStream] = {}
    outcomes = {"kept without reply": 0, "whole": 0}

    async def write(n: int) -> None:
        streams[n] = companion.stream_turn(f"I moved to Lisbon #{n}", session_id=f"s{n}")
        await streams[n].collect()

    async def check(n: int, cancelled: bool) -> None:
        (entry,) = await entries(runtime, f"s{n}")  # exactly one turn, whatever happened
        stored = await blocks.store.load(blocks.namespace, "user")
        persisted = stored.entries if stored is not None else ()
        assert persisted == blocks.block("user").entries  # no block write half-applied
        stream = streams[n]
        if entry.assistant_message == "":
            assert cancelled
            assert not stream.replied
            assert entry.metadata["reply"] == CANCELLED_REPLY
            assert stream.cancelled_entry == entry
            outcomes["kept without reply"] += 1
        else:
            assert entry.assistant_message == REPLY  # never half a reply
            assert stream.replied
            assert stream.cancelled_entry is None
            assert f"n{n}" in blocks.block("user").entries  # the turn's tool call was applied
            if not cancelled:
                assert stream.result.entry == entry
            outcomes["whole"] += 1

    last = await cancel_everywhere(injector, write, check)
    print(f"{phase}: {last} await points, {outcomes}")
    assert last > 10
    assert outcomes["kept without reply"] > 0
    assert outcomes["whole"] > 1  # cancelled after the reply (and the uncancelled run)
