"""sse_events: Server-Sent Events from a byte stream, as the streaming brains receive them.

The bytes are decoded incrementally, so a UTF-8 character split across two network chunks is
joined, never replaced; a stream that is not UTF-8 raises ``UnicodeDecodeError`` (the adapter
turns it into a BrainError). Lines end with LF or CRLF; ``:`` lines are comments; an event is
dispatched at a blank line, its ``data:`` lines joined by newlines; an event the stream ends
in the middle of is dropped (the SSE rule) — the adapter notices that its reply has no end.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from remem._http import excerpt

__all__ = ["SSEEvent", "decode_event", "sse_events"]


@dataclass(frozen=True)
class SSEEvent:
    """One event: its ``event:`` name ("message" when none was given) and its data."""

    event: str
    data: str


async def sse_events(chunks: AsyncIterator[bytes]) -> AsyncIterator[SSEEvent]:
    """The events of ``chunks`` in order (module docstring)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    buffer = ""
    name = ""
    data: list[str] = []
    async for chunk in chunks:
        buffer += decoder.decode(chunk)
        *lines, buffer = buffer.split("\n")
        for raw in lines:
            line = raw.removesuffix("\r")
            if not line:
                if data:
                    yield SSEEvent(name or "message", "\n".join(data))
                name, data = "", []
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "data":
                data.append(value)
            elif field == "event":
                name = value
    decoder.decode(b"", final=True)  # a character cut in half at the very end


def decode_event(data: str, fail: Callable[[str], Exception]) -> dict[str, Any]:
    """An event's data as the JSON object it must be, or ``fail`` naming what came instead."""
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise fail(f"a reply stream event is not JSON: {excerpt(data)}") from exc
    if not isinstance(value, dict):
        raise fail(f"a reply stream event is a JSON {type(value).__name__}, not an object")
    return value
