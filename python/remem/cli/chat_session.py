"""ChatSession: what ``remem chat`` holds between lines — the runtime, the companion, the
current session and the last turn — with no terminal in it (the slash commands and the tests
drive it directly).

A turn is :meth:`Companion.turn`; its brain is wrapped in :class:`InterruptibleBrain`, so
:meth:`ChatSession.interrupt` (Ctrl-C) cancels a reply the model is still producing. The turn
then raises :class:`ReplyCancelledError` before anything was recorded, and :meth:`ChatSession.turn`
records the user's message with an empty reply (``metadata["reply"] = "cancelled"``): what the
user said is never lost. An interrupt after the reply (while the turn is written, extracted and
the blocks updated) does not stop that work: a half-written turn would be worse than a wait.

Example::

    session = await ChatSession.open(RuntimeConfig(path=Path("./memory")))
    result = await session.turn("I moved to Lisbon")
    print(result.reply, await session.status())
    await session.close()
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from remem.blocks import CoreMemory
from remem.blocks.gauge import percent
from remem.brains import Brain, Completion, Message, ToolSpec, brain_from_spec
from remem.brains.protocol import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, ToolChoice
from remem.companion import Companion, TurnResult, offline_brain
from remem.controller import MemoryController
from remem.errors import NotFoundError, RememError, StoreClosedError
from remem.extraction import RuleExtractor
from remem.models import MemoryStage, TranscriptEntry
from remem.runtime import Runtime
from remem.runtime_config import RuntimeConfig

__all__ = [
    "CANCELLED",
    "ChatSession",
    "InterruptibleBrain",
    "ReplyCancelledError",
    "new_session_id",
]

CANCELLED = "cancelled"
"""``metadata["reply"]`` of a turn whose reply the user cancelled."""

COUNTED_STAGES = (MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM, MemoryStage.DECAYED)


class ReplyCancelledError(RememError):
    """The user cancelled the reply (Ctrl-C) before the model finished it."""


class InterruptibleBrain:
    """A brain whose in-flight ``complete`` calls :meth:`interrupt` cancels (ReplyCancelledError).

    An interrupt with no call in flight is ignored, so a late Ctrl-C never cancels the next
    reply; so is one after the reply of the turn (the first completion without tool calls)
    arrived, until :meth:`new_turn`: the calls after it are the post-turn block consolidation,
    which must not be cut short. Cancelling the wrapped brain's call (an HTTP request
    dropped) is what stops it.
    """

    def __init__(self, brain: Brain) -> None:
        self.inner = brain
        self._calls: set[asyncio.Future[Completion]] = set()
        self.interrupted = False
        self._replied = False

    def new_turn(self) -> None:
        """A new turn starts: its reply may be interrupted again."""
        self.interrupted = False
        self._replied = False

    @property
    def name(self) -> str:
        return self.inner.name

    def interrupt(self) -> bool:
        """Cancel every call in flight; True when there was one. Call on the brain's loop."""
        if not self._calls or self._replied:
            return False
        self.interrupted = True
        for call in self._calls:
            call.cancel()
        return True

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> Completion:
        call = asyncio.ensure_future(
            self.inner.complete(
                messages,
                tools=tools,
                tool_choice=tool_choice,
                response_format=response_format,
                temperature=temperature,
                max_tokens=max_tokens,
            )
        )
        self._calls.add(call)
        try:
            completion = await asyncio.shield(call)
            if not completion.tool_calls:
                self._replied = True
            return completion
        except asyncio.CancelledError:
            if call.cancelled() and self.interrupted:
                raise ReplyCancelledError("reply cancelled; your message was kept") from None
            call.cancel()
            raise
        finally:
            self._calls.discard(call)

    async def aclose(self) -> None:
        await self.inner.aclose()


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
        self.brain = InterruptibleBrain(brain)
        self.session_id = session_id
        self.last: TurnResult | None = None
        self.turns_this_run = 0
        self.companion = self._companion()

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

    async def turn(self, message: str) -> TurnResult | TranscriptEntry:
        """One turn; a cancelled reply returns the recorded user turn instead (module doc)."""
        self.brain.new_turn()
        try:
            result = await self.companion.turn(message, session_id=self.session_id)
        except ReplyCancelledError:
            entry = await self.controller.record_turn(
                self.session_id, message, "", metadata={"reply": CANCELLED}
            )
            # The companion caches the session's history; a fresh one reads the turn back.
            self.companion = self._companion()
            self.turns_this_run += 1
            return entry
        self.last = result
        self.turns_this_run += 1
        return result

    def interrupt(self) -> bool:
        """Cancel the reply being produced (see module docstring); True when one was."""
        return self.brain.interrupt()

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
