"""The EpisodicStore protocol: full-text search over turns and notes, and day summaries."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol, Self, runtime_checkable

from remem.models import DaySummary, EpisodicHit, TranscriptEntry


@runtime_checkable
class EpisodicStore(Protocol):
    """Unbounded episodic memory searched on demand.

    Contract (every backend): ``search`` returns hits with higher ``score`` = more relevant, ties
    broken by newer ``created_at`` then id; the query is plain user text (operators and
    punctuation are never interpreted as query syntax, so any string is safe); an empty query
    returns []. ``days`` groups a session's turns by calendar day in the store's timezone (an IANA
    name, default UTC), so a turn at 23:59 and one at 00:01 fall on different days.
    """

    async def index_turns(self, entries: Sequence[TranscriptEntry]) -> None: ...
    async def add_note(
        self,
        note_id: str,
        text: str,
        *,
        created_at: datetime,
        session_id: str | None = None,
        metadata: dict[str, object] | None = None,
    ) -> None: ...
    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[EpisodicHit]: ...
    async def days(self, session_id: str) -> dict[date, list[TranscriptEntry]]: ...
    async def put_day_summary(self, summary: DaySummary) -> None: ...
    async def get_day_summaries(self, session_id: str) -> list[DaySummary]: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(self, *exc: object) -> None: ...
