"""The provider-neutral conversation types every brain speaks: Message, ToolSpec, ToolCall,
Usage and Completion.

Frozen dataclasses validated on construction (bad values raise
:class:`~remem.errors.InvalidArgumentError`); adapters translate them to and from each
provider's wire format, so memory code never sees a provider's JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from remem.errors import InvalidArgumentError, ToolArgumentsError

__all__ = ["Completion", "FinishReason", "Message", "Role", "ToolCall", "ToolSpec", "Usage"]

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "other"]
"""Normalised stop reasons: Anthropic's ``end_turn``/``stop_sequence`` become ``stop``,
``max_tokens`` becomes ``length``, ``tool_use`` becomes ``tool_calls``; anything unknown is
``other``."""

_ROLES = frozenset(get_args(Role))
_FINISH_REASONS = frozenset(get_args(FinishReason))
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class ToolCall:
    """A tool invocation the model asked for: ``arguments`` is the decoded JSON object."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise InvalidArgumentError(f"tool call id must be a non-empty string, got {self.id!r}")
        if not isinstance(self.name, str) or not self.name:
            raise InvalidArgumentError(
                f"tool call name must be a non-empty string, got {self.name!r}"
            )
        if not isinstance(self.arguments, Mapping):
            raise InvalidArgumentError(
                f"tool call {self.name!r} arguments must be a mapping, "
                f"got {type(self.arguments).__name__}"
            )

    @classmethod
    def from_json(cls, id: str, name: str, arguments: str, *, provider: str) -> ToolCall:
        """Decode a JSON ``arguments`` string as providers send it; an empty string means ``{}``.

        Raises :class:`~remem.errors.ToolArgumentsError` naming ``provider`` and the tool when
        the string is not a JSON object.
        """
        if not arguments.strip():
            return cls(id, name, {})
        try:
            decoded = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ToolArgumentsError(
                f"{provider}: tool call {name!r} has malformed JSON arguments "
                f"({exc.msg} at position {exc.pos}); "
                "ask the model to call the tool again"
            ) from exc
        if not isinstance(decoded, dict):
            raise ToolArgumentsError(
                f"{provider}: tool call {name!r} arguments are a JSON {type(decoded).__name__}, "
                "not an object; ask the model to call the tool again"
            )
        return cls(id, name, decoded)

    def arguments_json(self) -> str:
        """The arguments as a compact JSON string (OpenAI's wire format)."""
        return json.dumps(dict(self.arguments), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Message:
    """One turn of a conversation.

    ``system``/``user`` carry text; ``assistant`` carries text and/or ``tool_calls``; ``tool``
    carries a tool's result as text and the ``tool_call_id`` it answers.

    Example::

        [Message.system("Be brief."), Message.user("Hi"), Message.tool("call_1", '{"ok": true}')]
    """

    role: Role
    content: str = ""
    tool_call_id: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise InvalidArgumentError(
                f"message role must be one of {sorted(_ROLES)}, got {self.role!r}"
            )
        if not isinstance(self.content, str):
            raise InvalidArgumentError(
                f"message content must be a str, got {type(self.content).__name__}"
            )
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        if self.tool_calls and self.role != "assistant":
            raise InvalidArgumentError(f"only assistant messages carry tool_calls, not {self.role}")
        if not all(isinstance(call, ToolCall) for call in self.tool_calls):
            raise InvalidArgumentError("tool_calls must be ToolCall instances")
        if (self.role == "tool") != (self.tool_call_id is not None):
            raise InvalidArgumentError(
                "a tool message needs the tool_call_id it answers, and only tool messages have one"
            )
        if self.role == "tool" and not self.tool_call_id:
            raise InvalidArgumentError("tool_call_id must be a non-empty string")

    @classmethod
    def system(cls, content: str) -> Message:
        return cls("system", content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls("user", content)

    @classmethod
    def assistant(cls, content: str = "", tool_calls: Sequence[ToolCall] = ()) -> Message:
        return cls("assistant", content, tool_calls=tuple(tool_calls))

    @classmethod
    def tool(cls, tool_call_id: str, content: str) -> Message:
        return cls("tool", content, tool_call_id=tool_call_id)


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call: ``parameters`` is a JSON Schema for its arguments object."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _TOOL_NAME.match(self.name):
            raise InvalidArgumentError(
                f"tool name must be 1-64 letters, digits, '_' or '-', got {self.name!r}"
            )
        if not isinstance(self.parameters, Mapping) or self.parameters.get("type") != "object":
            raise InvalidArgumentError(
                f"tool {self.name!r} parameters must be a JSON Schema with type 'object'"
            )


@dataclass(frozen=True)
class Usage:
    """Token counts when the provider reports them."""

    input_tokens: int
    output_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class Completion:
    """A model's answer: text (possibly empty) and the tool calls it asked for."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: FinishReason = "stop"
    usage: Usage | None = None
    model: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise InvalidArgumentError(
                f"completion text must be a str, got {type(self.text).__name__}"
            )
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        if not all(isinstance(call, ToolCall) for call in self.tool_calls):
            raise InvalidArgumentError("completion tool_calls must be ToolCall instances")
        if self.finish_reason not in _FINISH_REASONS:
            raise InvalidArgumentError(
                f"finish_reason must be one of {sorted(_FINISH_REASONS)}, "
                f"got {self.finish_reason!r}"
            )

    def as_message(self) -> Message:
        """This answer as the assistant turn to append to the conversation."""
        return Message.assistant(self.text, self.tool_calls)
