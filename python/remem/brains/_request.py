"""check_request: the argument checks every brain applies to a ``complete`` call, so a
mistake fails the same way against ScriptedBrain in tests as against a real provider."""

from __future__ import annotations

import math
from collections.abc import Sequence

from remem.brains.messages import Message, ToolSpec
from remem.brains.protocol import ToolChoice
from remem.errors import InvalidArgumentError

__all__ = ["check_request"]

_CHOICES = frozenset({"auto", "none", "required"})


def check_request(
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None,
    tool_choice: ToolChoice | None,
    temperature: float,
    max_tokens: int,
) -> tuple[list[Message], list[ToolSpec]]:
    """Validate a ``complete`` call's arguments (shared by every brain); InvalidArgumentError."""
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise InvalidArgumentError("messages must be a sequence of Message")
    checked = list(messages)
    if not checked:
        raise InvalidArgumentError("messages is empty; pass at least one user message")
    for message in checked:
        if not isinstance(message, Message):
            raise InvalidArgumentError(
                f"messages must hold Message instances, got {type(message).__name__}"
            )
    specs = list(tools or ())
    for spec in specs:
        if not isinstance(spec, ToolSpec):
            raise InvalidArgumentError(f"tools must hold ToolSpec, got {type(spec).__name__}")
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"tool names must be unique, got {names}")
    if tool_choice is not None:
        if not specs:
            raise InvalidArgumentError("tool_choice was given without tools; pass tools= too")
        if tool_choice not in _CHOICES and tool_choice not in names:
            raise InvalidArgumentError(
                f"tool_choice must be 'auto', 'none', 'required' or one of the tool names "
                f"{names}, got {tool_choice!r}"
            )
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not math.isfinite(temperature)
        or not 0.0 <= temperature <= 2.0
    ):
        raise InvalidArgumentError(f"temperature must be within [0, 2], got {temperature!r}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidArgumentError(f"max_tokens must be a positive int, got {max_tokens!r}")
    return checked, specs
