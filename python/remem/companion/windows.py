"""Conversation windows: a short recalled statement shown with what was said around it.

People type in fragments, and a fact is often split over two messages of one session: "Date
night tonight!" then "Rui booked that little place by the river."; "My dog is being a menace
today." then "Mochi ate a whole sock, I swear." Recall finds the message that shares the
question's words or meaning ("Who am I dating?" → "Date night tonight!"), and the one that
holds the answer shares neither. So each of the ``top`` best recalled user messages of at
most ``max_words`` words — a stored message memory (``metadata["origin"] == "user_message"``)
or a recalled past turn — is rendered with the user messages of the ``before`` turns before it
and the ``after`` turns after it in the same session (the previous/next-node context of
document retrievers, applied to a conversation)::

    [2026-03-05] Date night tonight! (next: "Rui booked that little place by the river.")

A longer message stands on its own and keeps its cost. The neighbours are read from the
transcript in one call for the whole turn (:meth:`TranscriptStore.get_turn_ranges`), and a
windowed item is packed as one item, so the budget counts its neighbours too (it is kept whole
or dropped whole). A message memory stored before message memories carried their turn number
(``metadata["turn_number"]``) has no window.

The companion's defaults (:class:`~remem.companion.CompanionConfig`: ``window_before=0``,
``window_after=1``, ``window_max_words=12``, ``window_top=5``) were chosen on the generated
weeks and year personas (the README's table): a window on both sides of every short message
(1 / 1 / 12 / 32) cost the year horizon 2.2 points of current-fact recall and raised its
stale-only rate from 0 to 3.1% — each window's tokens pushed other memories out of the
1,000-token prompt — while the next message alone, for the best five, kept the year at 100%
and lifted the weeks from 95.9 to 99.2%.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from remem.models import ScoredMemory, TranscriptEntry
from remem.stores.transcript import TranscriptStore

__all__ = [
    "USER_MESSAGE_ORIGIN",
    "Said",
    "Window",
    "turn_id_of",
    "turn_position",
    "window_note",
    "windows",
]

USER_MESSAGE_ORIGIN = "user_message"
"""``metadata["origin"]`` of a user message the companion stored as a memory."""


class Said(NamedTuple):
    """A neighbouring user message and when it was said."""

    text: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Window:
    """The user messages said just before and just after a recalled statement, in order."""

    before: tuple[Said, ...] = ()
    after: tuple[Said, ...] = ()


def turn_position(hit: ScoredMemory) -> tuple[str, int, str] | None:
    """``(session_id, turn_number, the user's words)`` of a recalled user message or past turn;
    None for anything else (extracted facts, graph paths, memories without a turn number)."""
    record = hit.record
    meta = record.metadata
    n = meta.get("turn_number")
    if record.session_id is None or isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return None
    if meta.get("source") == "turn":
        # A recalled turn's text is "user: …\nassistant: …" (remem.controller.candidates).
        first = record.text.split("\n", 1)[0]
        said = first.removeprefix("user: ") if first.startswith("user: ") else ""
        return record.session_id, n, said
    if meta.get("origin") == USER_MESSAGE_ORIGIN:
        return record.session_id, n, record.text
    return None


def turn_id_of(hit: ScoredMemory) -> str:
    """The turn a hit stands for: its own id, or the turn a stored user message came from."""
    meta = hit.record.metadata
    turn_id = meta.get("turn_id")
    if meta.get("origin") == USER_MESSAGE_ORIGIN and isinstance(turn_id, str):
        return turn_id
    return hit.record.id


async def windows(
    hits: Sequence[ScoredMemory],
    transcript: TranscriptStore | None,
    *,
    before: int,
    after: int,
    max_words: int,
    top: int = 32,
    history_ids: set[str] | frozenset[str] = frozenset(),
) -> dict[str, Window]:
    """Per record id, the window of each hit that gets one — the first ``top`` short user
    messages of ``hits``, which recall orders best first (module docstring); every range is
    read in one call. Empty when windows are off (``max_words`` 0, or no turns either side) or
    there is no transcript.

    Only messages the prompt will show count towards ``top``, as
    :func:`~remem.companion.prompt.recall_candidates` offers them: not a turn of the history
    (``history_ids``, already in the prompt), and one per turn (a turn recalled both as itself
    and as its stored message is shown once)."""
    if transcript is None or max_words == 0 or (before == 0 and after == 0):
        return {}
    wanted: dict[str, tuple[str, int]] = {}
    seen = set(history_ids)
    for hit in hits:
        if len(wanted) >= top:
            break
        position = turn_position(hit)
        if position is None:
            continue
        turn = turn_id_of(hit)
        if turn in seen:
            continue
        seen.add(turn)
        session, n, said = position
        if 0 < len(said.split()) <= max_words:
            wanted[hit.record.id] = (session, n)
    if not wanted:
        return {}
    ranges = [(s, max(1, n - before), n + after) for s, n in wanted.values()]
    found = await transcript.get_turn_ranges(ranges)
    return {
        record_id: _window(entries, n)
        for (record_id, (_, n)), entries in zip(wanted.items(), found, strict=True)
    }


def _window(entries: Sequence[TranscriptEntry], n: int) -> Window:
    said = [(e.turn_number, Said(e.user_message.strip(), e.created_at)) for e in entries]
    return Window(
        before=tuple(x for m, x in said if m < n and x.text),
        after=tuple(x for m, x in said if m > n and x.text),
    )


def window_note(window: Window | None, mark: Callable[[Said], str] | None = None) -> str:
    """`` (before: "…"; next: "…")`` for a window with any neighbour, else "". ``mark(said)``
    may add a note to a neighbour (the prompt marks one that names a value no longer held:
    ``"Long day at Acme again" [earlier: employer now Globex (since …)]``); "" adds none."""
    if window is None:
        return ""

    def said(messages: tuple[Said, ...]) -> str:
        out = []
        for m in messages:
            note = mark(m) if mark is not None else ""
            out.append(f'"{m.text}"' + (f" [{note}]" if note else ""))
        return " ".join(out)

    parts = []
    if window.before:
        parts.append("before: " + said(window.before))
    if window.after:
        parts.append("next: " + said(window.after))
    return f" ({'; '.join(parts)})" if parts else ""
