"""A recalled memory with the signals that ranked it."""

from __future__ import annotations

import pydantic

from remem.models.base import Model
from remem.models.records import MemoryRecord


class ScoredMemory(Model):
    """One recall result.

    ``score`` is the final fused score (higher is better). ``signals`` holds each contributing
    signal by name (e.g. ``vector``, ``fulltext``, ``graph``, ``fusion``, ``inclusion``,
    ``recency``, ``usage``), so a caller can see why an item ranked where it did;
    ``explanation`` renders them in one line. ``sources`` names the retrievers that found it.
    """

    record: MemoryRecord
    score: float = pydantic.Field(allow_inf_nan=False)
    signals: dict[str, float] = pydantic.Field(default_factory=dict)
    sources: tuple[str, ...] = ()
    explanation: str = ""
