"""Companion: the turn loop of a chat companion with long-term memory.

Per turn::

    prompt   = build_prompt(message)        system, history, blocks + gauges, priming, recall
    loop       brain(prompt, memory tools) → tool calls applied, results sent back → … → reply
    record     controller.record_turn(session, message, reply); the message also as a memory
    post-turn  extract → supersede contradictions → write the user's facts to the user block

A block write refused as full goes back to the model (the error carries the block's contents)
to make room, and is retried — at most ``config.max_block_retries`` times per turn, counted
over the model's own tool calls and the post-turn writes together; past that the turn stops
retrying and reports the refused writes in :attr:`TurnResult.unresolved_block_errors`.

:meth:`Companion.stream_turn` is the same turn with the reply streamed (``brain.stream`` each
round) as a :class:`~remem.companion.TurnStream`: the turn is recorded once, after the last
delta; a cancellation during the reply keeps the user's message without a reply.

Variants (:mod:`remem.companion.variants`) subclass Companion and set :attr:`preset`, the
config fields they force. Example (offline)::

    async with remem.Runtime.open("./memory") as rt:
        companion = Companion(offline_brain(), rt, extractor=RuleExtractor())
        result = await companion.turn("I just moved to Lisbon")
        print(result.reply, (await rt.blocks()).render())
        print(await companion.answer("Where do I live?"))

The runtime must not extract on its own when the companion is given an extractor (each turn
would be extracted twice): that is a ConfigError.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from remem.blocks import CoreMemory
from remem.brains import Brain, Completion, Done, Message, ToolCall
from remem.cancel_safe import run_to_end
from remem.companion.block_updates import BlockUpdater, PostTurnReport, RetryBudget
from remem.companion.config import CompanionConfig
from remem.companion.prompt import USER_MESSAGE_ORIGIN, CompanionPrompt, build_prompt
from remem.companion.protocols import Consolidator
from remem.companion.scope import claim_session
from remem.companion.tools import MemoryTools, ToolOutcome
from remem.companion.turn_stream import CANCELLED_REPLY, TurnProgress, TurnStream
from remem.context import ContextAssembler, Priming
from remem.controller import Extractor, MemoryController
from remem.errors import ConfigError, InvalidArgumentError, NotFoundError, StoreClosedError
from remem.models import MemoryKind, TranscriptEntry
from remem.runtime import Runtime
from remem.stores.transcript import check_session_id

__all__ = ["Companion", "TurnResult"]


@dataclass(frozen=True)
class TurnResult:
    """One turn: the reply, the recorded entry, the prompt, and what memory work happened.

    ``tool_calls`` are every call the model made (in the turn and while consolidating a full
    block), ``tool_results`` the turn's calls with the text sent back; ``block_retries`` the
    consolidation rounds spent; ``unresolved_block_errors`` the BlockFullError texts of writes
    given up after the last retry; ``failures`` errors of the post-turn step (extraction,
    consolidation), which never lose the turn (it is recorded before).
    """

    reply: str
    entry: TranscriptEntry
    prompt: CompanionPrompt
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolOutcome, ...] = ()
    block_retries: int = 0
    unresolved_block_errors: tuple[str, ...] = ()
    post_turn: PostTurnReport = field(default_factory=PostTurnReport)
    failures: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Turn:
    """What a turn carries from its prompt to its recording."""

    user_message: str
    session_id: str
    at: datetime
    prompt: CompanionPrompt
    tools: MemoryTools
    budget: RetryBudget


class Companion:
    """A memory-backed chat companion (see the module docstring).

    ``blocks`` defaults to the runtime's blocks of ``config.namespace`` (loaded on first use);
    ``extractor`` and ``consolidator`` are optional: without an extractor nothing is extracted
    and blocks change only through the model's tool calls.
    """

    preset: ClassVar[Mapping[str, Any]] = {}
    """Config fields a variant forces over the given config."""

    def __init__(
        self,
        brain: Brain,
        runtime: Runtime,
        blocks: CoreMemory | None = None,
        *,
        config: CompanionConfig | None = None,
        extractor: Extractor | None = None,
        consolidator: Consolidator | None = None,
        name: str | None = None,
    ) -> None:
        base = config if config is not None else CompanionConfig()
        self.config = dataclasses.replace(base, **self.preset) if self.preset else base
        if extractor is not None and runtime.extractor is not None:
            raise ConfigError(
                "the runtime already extracts every turn; give the extractor to the Companion "
                "or to the Runtime, not both"
            )
        self.brain = brain
        self.runtime = runtime
        self.extractor = extractor
        self.consolidator = consolidator
        self._blocks = blocks
        self._name = name
        self._assembler = ContextAssembler(self.config.assembler_config())
        self._histories: dict[str, list[TranscriptEntry]] = {}
        self._primings: dict[str, Priming] = {}
        self._claimed: set[str] = set()
        self._closed = False

    @property
    def name(self) -> str:
        """The variant name in reports (the class name unless given)."""
        return self._name or type(self).__name__

    @property
    def controller(self) -> MemoryController:
        return self.runtime.controller

    async def blocks(self) -> CoreMemory | None:
        """The core memory blocks (None when this companion does not use blocks)."""
        if not self.config.use_blocks:
            return None
        if self._blocks is None:
            self._blocks = await self.runtime.blocks(self.config.namespace, self.config.blocks)
        return self._blocks

    # -- prompt ---------------------------------------------------------------------------------

    async def build_prompt(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> CompanionPrompt:
        """The prompt the brain would get for ``user_message`` now (nothing is recorded)."""
        self._check(user_message, session_id)
        prompt, _ = await self._prompt(user_message, session_id, now, create=False)
        return prompt

    async def _prompt(
        self, user_message: str, session_id: str, now: datetime | None, *, create: bool = True
    ) -> tuple[CompanionPrompt, MemoryTools]:
        at = now if now is not None else self.controller.clock.now()
        if session_id not in self._claimed:
            # Before the history is read: another namespace's session is refused, not shown.
            await claim_session(
                self.controller, session_id, self.config.namespace, at, create=create
            )
            if create:
                self._claimed.add(session_id)
        blocks = await self.blocks()
        tools = MemoryTools(self.controller, blocks, self.config)
        prompt = await build_prompt(
            user_message=user_message,
            config=self.config,
            assembler=self._assembler,
            controller=self.controller,
            blocks=blocks,
            history=await self._history(session_id),
            priming=await self._priming(session_id, at),
            tool_schemas=tools.schemas(),
            now=at,
        )
        return prompt, tools

    async def _history(self, session_id: str) -> list[TranscriptEntry]:
        cached = self._histories.get(session_id)
        if cached is None:
            cached = []
            transcript = (await self.controller.settled()).transcript
            if transcript is not None:
                try:
                    cached = await transcript.get_entries(session_id)
                except NotFoundError:
                    cached = []
            cached = cached[-self.config.history_turns :]
            self._histories[session_id] = cached
        return cached

    async def _priming(self, session_id: str, now: datetime) -> Priming | None:
        setting = self.config.priming
        if setting is None:
            return None
        primed = self._primings.get(session_id)
        if primed is None:
            primed = await self.controller.prime(
                session_id,
                now=now,
                config=None if setting == "controller" else setting,
                namespace=self.config.namespace,
            )
            self._primings[session_id] = primed
        return primed

    # -- turns ----------------------------------------------------------------------------------

    async def turn(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> TurnResult:
        """One turn (module docstring): reply, record, extract, update blocks."""
        self._check(user_message, session_id)
        at = now if now is not None else self.controller.clock.now()
        prompt, tools = await self._prompt(user_message, session_id, at)
        budget = RetryBudget(self.config.max_block_retries)
        reply, outcomes = await self._converse(prompt, tools, budget)
        return await self._finish_turn(
            _Turn(user_message, session_id, at, prompt, tools, budget), reply, outcomes
        )

    def stream_turn(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> TurnStream:
        """:meth:`turn`, its reply streamed: a :class:`TurnStream` of text deltas whose
        ``result`` is the TurnResult, recorded once after the last delta (transcript, message
        memory, extraction, block updates — as :meth:`turn`).

        The reply is every delta joined (``result.reply == "".join(deltas)``): the text of each
        brain round, a blank line between rounds — the same as :meth:`turn`'s unless the model
        says something before calling a tool, which the person saw and so is kept.

        Cancellation (the consuming task cancelled, or the stream closed before its end):

        * during the reply — the user's message is kept as a turn with an empty reply and
          ``metadata["reply"] == "cancelled"`` (:data:`CANCELLED_REPLY`), the stream's
          :attr:`~TurnStream.cancelled_entry`; no half reply is recorded (it would come back
          as history as if the model had said it), nothing is extracted from it, and the
          cancellation propagates;
        * after the reply — the turn is recorded whole and its post-turn work finishes (a
          half-written turn would be worse than a wait), then the cancellation propagates.

        A brain error (a stream cut off midway) propagates and records nothing, as in
        :meth:`turn`.

        Example::

            stream = companion.stream_turn("I moved to Lisbon")
            async for delta in stream:
                print(delta, end="", flush=True)
            print(stream.result.entry.turn_number)
        """
        self._check(user_message, session_id)
        progress = TurnProgress()
        return TurnStream(self._streamed_turn(user_message, session_id, now, progress), progress)

    async def _streamed_turn(
        self, user_message: str, session_id: str, now: datetime | None, progress: TurnProgress
    ) -> AsyncGenerator[str | Done[TurnResult], None]:
        at = now if now is not None else self.controller.clock.now()
        shown: list[str] = []
        outcomes: list[ToolOutcome] = []
        try:
            prompt, tools = await self._prompt(user_message, session_id, at)
            budget = RetryBudget(self.config.max_block_retries)
            async for delta in self._stream_converse(prompt, tools, budget, outcomes):
                shown.append(delta)
                yield delta
        except (asyncio.CancelledError, GeneratorExit):
            progress.cancelled_entry = await run_to_end(
                self._record_cancelled(user_message, session_id, at)
            )
            raise
        progress.replied = True
        turn = _Turn(user_message, session_id, at, prompt, tools, budget)
        yield Done(await run_to_end(self._finish_turn(turn, "".join(shown), outcomes)))

    async def _record_cancelled(
        self, user_message: str, session_id: str, at: datetime
    ) -> TranscriptEntry:
        entry = await self.controller.record_turn(
            session_id, user_message, "", created_at=at, metadata={"reply": CANCELLED_REPLY}
        )
        self._remember_in_history(session_id, entry)
        return entry

    def _remember_in_history(self, session_id: str, entry: TranscriptEntry) -> None:
        history = self._histories.setdefault(session_id, [])
        history.append(entry)
        del history[: -self.config.history_turns]

    async def _finish_turn(
        self, turn: _Turn, reply: str, outcomes: list[ToolOutcome]
    ) -> TurnResult:
        """Record the replied turn once, then the post-turn memory work (module docstring)."""
        entry = await self.controller.record_turn(
            turn.session_id, turn.user_message, reply, created_at=turn.at
        )
        self._remember_in_history(turn.session_id, entry)
        failures: list[str] = []
        if self.config.stores_messages:
            try:
                await self._remember_message(entry, turn.session_id)
            except Exception as exc:  # the turn is recorded; the failure is reported, not lost
                failures.append(
                    f"storing the message as a memory failed: {type(exc).__name__}: {exc}"
                )
        updater = BlockUpdater(
            brain=self.brain,
            controller=self.controller,
            blocks=await self.blocks(),
            tools=turn.tools,
            user_block=self.config.user_block,
            extractor=self.extractor,
            consolidator=self.consolidator,
            namespace=self.config.namespace,
        )
        report = PostTurnReport()
        try:
            report = await updater.after_turn(entry, now=turn.at, budget=turn.budget)
        except Exception as exc:  # the turn is recorded; the failure is reported, not lost
            failures.append(f"post-turn memory update failed: {type(exc).__name__}: {exc}")
        return TurnResult(
            reply=reply,
            entry=entry,
            prompt=turn.prompt,
            tool_calls=tuple(o.call for o in outcomes) + report.tool_calls,
            tool_results=tuple(outcomes),
            block_retries=turn.budget.used,
            unresolved_block_errors=tuple(turn.budget.unresolved),
            post_turn=report,
            failures=tuple(failures),
        )

    async def _remember_message(self, entry: TranscriptEntry, session_id: str) -> None:
        """The user's message as a short-term note memory (config ``remember_messages``): the
        turn alone is found by full-text words only, this copy by meaning too."""
        await self.controller.remember(
            entry.user_message,
            kind=MemoryKind.NOTE,
            namespace=self.config.namespace,
            session_id=session_id,
            metadata={
                "origin": USER_MESSAGE_ORIGIN,
                "turn_id": entry.id,
                "turn_number": entry.turn_number,
            },
            valid_from=entry.created_at,
        )

    async def _converse(
        self, prompt: CompanionPrompt, tools: MemoryTools, budget: RetryBudget
    ) -> tuple[str, list[ToolOutcome]]:
        """The tool loop: tool calls are run and answered until the model replies in text."""
        messages = list(prompt.messages)
        specs = tools.specs()
        outcomes: list[ToolOutcome] = []
        for _ in range(self.config.max_tool_rounds):
            completion = await self.brain.complete(
                messages, tools=specs or None, max_tokens=self.config.reply_max_tokens
            )
            if not completion.tool_calls:
                return completion.text, outcomes
            if await self._run_tools(completion, messages, tools, budget, outcomes):
                break
        # Out of rounds or of retries: the model must answer now, without tools.
        final = await self.brain.complete(
            messages,
            tools=specs or None,
            tool_choice="none" if specs else None,
            max_tokens=self.config.reply_max_tokens,
        )
        return final.text, outcomes

    async def _stream_converse(
        self,
        prompt: CompanionPrompt,
        tools: MemoryTools,
        budget: RetryBudget,
        outcomes: list[ToolOutcome],
    ) -> AsyncIterator[str]:
        """:meth:`_converse` with every round streamed, a blank line between rounds' text."""
        messages = list(prompt.messages)
        specs = tools.specs()
        said = False
        rounds = 0
        exhausted = False
        while True:
            # Out of rounds or of retries: the model must answer now, without tools.
            final = exhausted or rounds == self.config.max_tool_rounds
            stream = self.brain.stream(
                messages,
                tools=specs or None,
                tool_choice="none" if final and specs else None,
                max_tokens=self.config.reply_max_tokens,
            )
            async with stream:  # closed (its HTTP response too) however the turn stops
                first = True
                async for delta in stream:
                    if first and said:
                        yield "\n\n"
                    first, said = False, True
                    yield delta
            completion = stream.result
            if final or not completion.tool_calls:
                return
            # A tool call is a store write: a cancellation waits for it (never half-applied).
            exhausted = await run_to_end(
                self._run_tools(completion, messages, tools, budget, outcomes)
            )
            rounds += 1

    async def _run_tools(
        self,
        completion: Completion,
        messages: list[Message],
        tools: MemoryTools,
        budget: RetryBudget,
        outcomes: list[ToolOutcome],
    ) -> bool:
        """Run the completion's tool calls, answering each in ``messages``; True when a full
        block's retries ran out (the model must then answer without tools)."""
        messages.append(completion.as_message())
        exhausted = False
        for call in completion.tool_calls:
            outcome = await tools.call(call)
            outcomes.append(outcome)
            messages.append(Message.tool(call.id, outcome.result))
            if outcome.block_full and not budget.take():
                budget.unresolved.append(outcome.result)
                exhausted = True
        return exhausted

    async def answer(
        self, question: str, *, session_id: str = "default", now: datetime | None = None
    ) -> str:
        """The brain's answer to ``question`` from the prompt alone: not recorded, nothing
        extracted, no block written, no tools (what a memory quiz asks)."""
        self._check(question, session_id)
        prompt, _ = await self._prompt(question, session_id, now)
        completion = await self.brain.complete(
            prompt.messages, max_tokens=self.config.reply_max_tokens
        )
        return completion.text

    # -- lifecycle ------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Forget the caches; idempotent. The brain and the runtime belong to the caller."""
        self._closed = True
        self._histories.clear()
        self._primings.clear()

    async def __aenter__(self) -> Companion:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _check(self, message: object, session_id: object) -> None:
        if self._closed:
            raise StoreClosedError(f"{self.name} was closed; create a new companion")
        if not isinstance(message, str) or not message.strip():
            raise InvalidArgumentError("the user message must be a non-empty string")
        check_session_id(session_id)
