"""Durable conversation transcripts: sessions and their append-only entries."""

from __future__ import annotations

from datetime import UTC, datetime

import pydantic

from remem.models.base import Model
from remem.models.metadata import Metadata
from remem.models.text import Identifier, StoredText
from remem.models.time import UTCDateTime


def _now() -> datetime:
    return datetime.now(UTC)


class TranscriptSession(Model):
    """A conversation session. ``model_name`` records which model answered in it."""

    session_id: Identifier
    model_name: str | None = None
    title: StoredText | None = None
    namespace: Identifier = "default"
    created_at: UTCDateTime = pydantic.Field(default_factory=_now)
    metadata: Metadata = pydantic.Field(default_factory=dict)


class TranscriptEntry(Model):
    """One turn: what the user said and what the assistant answered. Immutable once appended."""

    id: Identifier
    session_id: Identifier
    turn_number: int = pydantic.Field(ge=1)
    user_message: StoredText = ""
    assistant_message: StoredText = ""
    created_at: UTCDateTime = pydantic.Field(default_factory=_now)
    metadata: Metadata = pydantic.Field(default_factory=dict)
