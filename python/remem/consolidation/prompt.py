"""The day-summary prompt: one model call per (session, day)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from zoneinfo import ZoneInfo

from remem.brains import Message
from remem.models import TranscriptEntry

MAX_MESSAGE_CHARS = 1_500
"""Each message is cut to this many characters, so a pasted document cannot crowd out a day."""
SUMMARY_MAX_TOKENS = 400

SYSTEM = (
    "You write the diary entry that a long-term memory keeps for one day of a conversation "
    "between a user and an assistant. Write 2 to 6 plain sentences in the third person "
    "('The user ...') about what the user said, did, decided, planned or felt, keeping names, "
    "places, numbers and dates exactly as said. Leave out small talk and the assistant's "
    "advice unless the user acted on it. Answer with the summary only: no title, no preamble."
)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…"


def summary_messages(
    day: date, entries: Sequence[TranscriptEntry], zone: ZoneInfo
) -> list[Message]:
    """System + user message asking for the summary of ``entries`` (one day, turn order)."""
    lines = [f"Day: {day.isoformat()} ({zone.key}), {len(entries)} turns.", ""]
    for e in entries:
        stamp = e.created_at.astimezone(zone).strftime("%H:%M")
        if e.user_message.strip():
            lines.append(f"[{stamp}] User: {_clip(e.user_message)}")
        if e.assistant_message.strip():
            lines.append(f"[{stamp}] Assistant: {_clip(e.assistant_message)}")
    lines += ["", "Summarise this day."]
    return [Message.system(SYSTEM), Message.user("\n".join(lines))]
