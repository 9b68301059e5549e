"""Lifecycle stages and promotion states: one enum each, used everywhere."""

from __future__ import annotations

from enum import StrEnum


class MemoryStage(StrEnum):
    """Where a memory is in its life.

    ``episodic`` items are raw turns and notes; ``short_term`` and ``long_term`` are the staged
    semantic collections; ``decayed`` items are kept for ``decayed_retention_days`` and excluded
    from recall unless asked for; ``deleted`` is a tombstone (``forget``), never recalled.
    """

    EPISODIC = "episodic"
    SHORT_TERM = "short_term"
    LONG_TERM = "long_term"
    DECAYED = "decayed"
    DELETED = "deleted"


class PromotionState(StrEnum):
    """Where a memory stands with respect to promotion to long-term."""

    NONE = "none"
    CANDIDATE = "candidate"
    PROMOTED = "promoted"
    DEMOTED = "demoted"
