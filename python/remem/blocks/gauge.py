"""How a block's size is measured and shown: the live capacity gauge.

Size is the number of characters (Python ``str`` code points) of the block's rendered entries,
exactly as they appear in the prompt: each entry as ``"- " + text``, entries joined by ``"\\n"``.
An empty block has size 0. The header line with the gauge is not counted: it is the same
length whatever the model writes, and counting it would make the gauge measure itself.

>>> format_gauge(1474, 2200)
'[67% — 1,474/2,200 chars]'
>>> format_gauge(2464, 2200)
'[112% — 2,464/2,200 chars — OVER LIMIT: consolidate]'
"""

from __future__ import annotations

from collections.abc import Sequence

ENTRY_PREFIX = "- "
"""What precedes every entry in the rendered block."""

ENTRY_SEPARATOR = "\n"
"""What separates two rendered entries."""


def render_entries(entries: Sequence[str]) -> str:
    """The entries as the model sees them; ``len()`` of this is the block's size."""
    return ENTRY_SEPARATOR.join(ENTRY_PREFIX + text for text in entries)


def measure(entries: Sequence[str]) -> int:
    """The size of ``entries`` in characters, without building the rendered string."""
    if not entries:
        return 0
    return (
        sum(len(t) for t in entries)
        + len(ENTRY_PREFIX) * len(entries)
        + len(ENTRY_SEPARATOR) * (len(entries) - 1)
    )


def percent(used: int, limit: int) -> int:
    """``used/limit`` as a percentage rounded half up (67.5 → 68; never banker's rounding)."""
    return (200 * used + limit) // (2 * limit)


def format_gauge(used: int, limit: int) -> str:
    """``[67% — 1,474/2,200 chars]``; past the limit, flagged ``— OVER LIMIT: consolidate``."""
    gauge = f"[{percent(used, limit)}% — {used:,}/{limit:,} chars"
    if used > limit:
        gauge += " — OVER LIMIT: consolidate"
    return gauge + "]"
