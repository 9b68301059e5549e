"""Episodic search results and day summaries."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

import pydantic

from remem.models.base import Model
from remem.models.metadata import Metadata
from remem.models.text import Identifier, StoredText
from remem.models.time import UTCDateTime


class EpisodeKind(StrEnum):
    TURN = "turn"
    NOTE = "note"


class EpisodicHit(Model):
    """A full-text match: a turn or a note, with its backend relevance score (higher is better)."""

    id: Identifier
    kind: EpisodeKind
    session_id: Identifier | None
    turn_number: int | None
    text: StoredText
    score: float
    created_at: UTCDateTime
    metadata: Metadata = pydantic.Field(default_factory=dict)
    namespace: Identifier = "default"
    """The scope the turn (its session's) or the note was indexed in."""


class DaySummary(Model):
    """A summary of one session's turns on one calendar day in ``timezone``."""

    session_id: Identifier
    day: date
    timezone: str = "UTC"
    text: StoredText
    turn_count: int = pydantic.Field(ge=0)
    first_turn: int | None = None
    last_turn: int | None = None
    created_at: UTCDateTime
