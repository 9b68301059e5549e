"""The summary written without a model: the day's first sentences, in the user's words.

Rule: the first sentence of each user message (the assistant's words are left out: they are
replies, not memories), in turn order, skipping empty messages and exact repeats, up to
:data:`MAX_SENTENCES` sentences and :data:`MAX_CHARS` characters. When the user said nothing
that day, the assistant's first sentences are used instead, so a day with turns always gets a
non-empty summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from remem.models import TranscriptEntry

MAX_SENTENCES = 12
MAX_CHARS = 2_000
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    return _SENTENCE_END.split(flat, maxsplit=1)[0] if flat else ""


def extractive_summary(entries: Sequence[TranscriptEntry]) -> str:
    """The day's summary by the rule above ("" only for a day without any words)."""
    for side in ("user_message", "assistant_message"):
        picked: list[str] = []
        size = 0
        for entry in entries:
            sentence = first_sentence(getattr(entry, side))[: MAX_CHARS - 1]
            if not sentence or sentence in picked:
                continue
            if len(picked) == MAX_SENTENCES or size + len(sentence) + 1 > MAX_CHARS:
                break
            picked.append(sentence)
            size += len(sentence) + 1
        if picked:
            return " ".join(picked)
    return ""
