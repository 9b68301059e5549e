"""ChatSession: what ``remem chat`` holds between lines — the runtime, the companion, the
current session and the last turn — with no terminal in it (the slash commands and the tests
drive it directly).

A turn is :meth:`Companion.stream_turn`: the reply's deltas go to ``on_delta`` as the brain
produces them. :meth:`ChatSession.interrupt` (Ctrl-C) cancels a reply still being produced:
the companion then keeps the user's message as a turn with an empty reply
(``metadata["reply"] = "cancelled"``) and :meth:`ChatSession.turn` returns that entry — what
the user said is never lost, and no half reply is recorded. An interrupt after the reply
(while the turn is written, extracted and the blocks updated) is refused: a half-written turn
would be worse than a wait.

Example::

    session = await ChatSession.open(RuntimeConfig(path=Path("./memory")))
    result = await session.turn("I moved to Lisbon", on_delta=lambda d: print(d, end=""))
    print(await session.status())
    await session.close()
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from remem.blocks import CoreMemory
from remem.blocks.gauge import percent
from remem.brains import Brain, brain_from_spec
from remem.companion import CANCELLED_REPLY, Companion, TurnResult, TurnStream, offline_brain
from remem.controller import MemoryController
from remem.errors import NotFoundError, StoreClosedError
from remem.extraction import RuleExtractor
from remem.models import MemoryStage, TranscriptEntry
from remem.runtime import Runtime
from remem.runtime_config import RuntimeConfig

__all__ = ["CANCELLED", "ChatSession", "new_session_id"]

CANCELLED = CANCELLED_REPLY
"""``metadata["reply"]`` of a turn whose reply the user cancelled."""

COUNTED_STAGES = (MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM, MemoryStage.DECAYED)


async def _read(stream: TurnStream, on_delta: Callable[[str], object] | None) -> TurnResult:
    async with stream:  # a failing on_delta closes it at once: the turn counts as cancelled
        async for delta in stream:
            if on_delta is not None:
                on_delta(delta)
    return stream.result


def new_session_id(now: datetime | None = None) -> str:
    """``chat-YYYYmmdd-HHMMSS`` (UTC): sortable and readable."""
    return f"chat-{(now or datetime.now(UTC)):%Y%m%d-%H%M%S}"


@dataclass(frozen=True)
class Counts:
    """How much is stored: memories per counted stage, turns of the current session."""

    memories: Mapping[MemoryStage, int]
    session_turns: int


class ChatSession:
    """The state of one ``remem chat`` (module docstring). Build it with :meth:`open`."""

    def __init__(self, runtime: Runtime, brain: Brain, session_id: str) -> None:
        self.runtime = runtime
        self.brain = brain
        self.session_id = session_id
        self.last: TurnResult | None = None
        self.turns_this_run = 0
        self.companion = self._companion()
        self._reading: tuple[asyncio.Future[TurnResult], TurnStream] | None = None

    @classmethod
    async def open(
        cls,
        config: RuntimeConfig,
        *,
        session_id: str | None = None,
        brain: Brain | None = None,
    ) -> ChatSession:
        """Open the runtime on ``config`` and a companion on the configured brain (``brain``
        wins; ``config.brain`` next; else :func:`offline_brain`)."""
        if brain is None:
            brain = (
                brain_from_spec(config.brain, base_url=config.brain_url)
                if config.brain
                else offline_brain()
            )
        runtime = await Runtime(config).start()
        return cls(runtime, brain, session_id or new_session_id())

    def _companion(self) -> Companion:
        return Companion(self.brain, self.runtime, extractor=RuleExtractor())

    @property
    def controller(self) -> MemoryController:
        return self.runtime.controller

    @property
    def model(self) -> str:
        return self.brain.name

    async def blocks(self) -> CoreMemory:
        blocks = await self.companion.blocks()
        assert blocks is not None  # the chat companion always uses blocks
        return blocks

    # -- turns ----------------------------------------------------------------------------------

    async def turn(
        self, message: str, on_delta: Callable[[str], object] | None = None
    ) -> TurnResult | TranscriptEntry:
        """One turn, its reply's deltas passed to ``on_delta`` as they come; a cancelled reply
        returns the recorded user turn instead (module docstring)."""
        stream = self.companion.stream_turn(message, session_id=self.session_id)
        reading = asyncio.ensure_future(_read(stream, on_delta))
        self._reading = (reading, stream)
        try:
            result = await reading
        except asyncio.CancelledError:
            current = asyncio.current_task()
            kept = stream.cancelled_entry
            if kept is None or (current is not None and current.cancelling()):
                raise  # this call itself was cancelled, not the reply by interrupt()
            self.turns_this_run += 1
            return kept
        finally:
            self._reading = None
        self.last = result
        self.turns_this_run += 1
        return result

    def interrupt(self) -> bool:
        """Cancel the reply being produced (see module docstring); True when one was. Call
        on the session's loop."""
        if self._reading is None:
            return False
        reading, stream = self._reading
        if reading.done() or stream.replied:
            return False
        reading.cancel()
        return True

    def new_session(self, session_id: str | None = None) -> str:
        """Start a new session (its first turn creates it in the transcript)."""
        self.session_id = session_id or new_session_id()
        self.last = None
        return self.session_id

    # -- what is stored -------------------------------------------------------------------------

    async def counts(self) -> Counts:
        records = (await self.controller.settled()).records
        memories = {stage: await records.count(stages=[stage]) for stage in COUNTED_STAGES}
        return Counts(memories, len(await self.entries(self.session_id)))

    async def entries(self, session_id: str) -> list[TranscriptEntry]:
        """The turns of ``session_id`` ([] for a session with none yet)."""
        transcript = (await self.controller.settled()).transcript
        if transcript is None:
            return []
        try:
            return await transcript.get_entries(session_id)
        except NotFoundError:
            return []

    async def status(self) -> str:
        """One line: model, session, memory counts and the core blocks' gauges."""
        counts = await self.counts()
        memories = sum(counts.memories.values())
        by_stage = ", ".join(
            f"{stage.value.replace('_term', '')} {n}" for stage, n in counts.memories.items() if n
        )
        blocks = await self.blocks()
        gauges = " ".join(
            f"{label} {percent(block.size, block.limit_chars)}%"
            for label in blocks.labels
            for block in (blocks.block(label),)
        )
        stored = f"{memories} memories" + (f" ({by_stage})" if by_stage else "")
        return (
            f"{self.model} · session {self.session_id} ({counts.session_turns} turns) · "
            f"{stored} · blocks {gauges}"
        )

    async def reopen(self, between: Callable[[], object]) -> None:
        """Close the runtime, call ``between`` (e.g. move the directory), open it again."""
        await self.controller.flush_extraction()
        await self.runtime.aclose()
        between()
        self.runtime = await Runtime(self.runtime.config).start()
        self.companion = self._companion()
        self.last = None

    @property
    def directory(self) -> Path:
        return self.runtime.config.path

    async def close(self) -> None:
        """Drain extraction, close the runtime (applying the write-behind journal) and the
        brain; idempotent."""
        try:
            with contextlib.suppress(StoreClosedError):  # closed already: nothing to drain
                await self.controller.flush_extraction()
            await self.runtime.aclose()
        finally:
            await self.brain.aclose()
