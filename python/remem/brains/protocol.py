"""Brain: the one protocol a language model implements for remem (extraction, consolidation,
the companion turn loop, judges)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from remem.brains.messages import Completion, Message, ToolSpec
from remem.brains.stream import ReplyStream, whole_reply

__all__ = ["DEFAULT_MAX_TOKENS", "DEFAULT_TEMPERATURE", "Brain", "ToolChoice"]

DEFAULT_TEMPERATURE = 0.0
"""Memory work (extraction, consolidation, judging) wants repeatable answers, so 0 rather than
the providers' default of about 1."""
DEFAULT_MAX_TOKENS = 1024
"""Anthropic requires a cap; the same default everywhere keeps adapters swappable."""

ToolChoice = str
"""``"auto"`` (the default when tools are given), ``"none"``, ``"required"`` (some tool), or the
name of the one tool the model must call."""


@runtime_checkable
class Brain(Protocol):
    """A chat model: messages in, a :class:`Completion` (text and tool calls) out.

    Implementations: :class:`OpenAICompatibleBrain` (OpenAI, Groq, Ollama, vLLM, llama.cpp
    server), :class:`AnthropicBrain`, :class:`ScriptedBrain` (offline, deterministic).
    ``response_format`` is OpenAI's shape (``{"type": "json_schema", "json_schema": {"name": ...,
    "schema": {...}}}`` or ``{"type": "json_object"}``); adapters without native support emulate
    it. Failures raise :class:`~remem.errors.BrainError` naming the provider and the cause.

    Streaming is an optional ability with a default: :meth:`stream` yields the reply's text as
    it is produced; a brain that does not stream (the default, for a class that subclasses
    ``Brain``) yields its whole reply once. The HTTP brains stream natively.

    Example::

        completion = await brain.complete([Message.user("Say hi")], max_tokens=16)
        print(completion.text)
        stream = brain.stream([Message.user("Tell a story")])
        async for delta in stream:
            print(delta, end="")
        print(stream.result.finish_reason)
    """

    @property
    def name(self) -> str:
        """``<provider>:<model>`` for logs and eval reports."""
        ...

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> Completion: ...

    async def aclose(self) -> None:
        """Release connections; idempotent."""
        ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> ReplyStream:
        """The reply as a :class:`~remem.brains.stream.DeltaStream` of text deltas; its
        ``result`` is the :class:`Completion` (tool calls included) that ``complete`` would
        return, with ``text == "".join(deltas)``. A stream cut off midway raises
        :class:`~remem.errors.BrainError` and has no result. No ``response_format``: structured
        output is not shown to a person as it arrives. Default: ``complete``, yielded once."""
        return whole_reply(
            lambda: self.complete(
                messages,
                tools=tools,
                tool_choice=tool_choice,
                temperature=temperature,
                max_tokens=max_tokens,
            ),
            what=f"the reply of {self.name}",
        )
