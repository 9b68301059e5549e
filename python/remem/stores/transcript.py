"""The TranscriptStore protocol: sessions and immutable, append-only turns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, Self, runtime_checkable

from remem.models import TranscriptEntry, TranscriptSession


@runtime_checkable
class TranscriptStore(Protocol):
    """Durable conversation transcripts.

    Contract (every backend, checked by the parity suite):
    - entries are immutable; appending an id that exists raises DuplicateIdError and changes
      nothing; a batch append is all-or-nothing;
    - a (session_id, turn_number) pair is unique (DuplicateIdError), and appending to an unknown
      session raises NotFoundError;
    - ``get_entries`` returns turns in turn order, ``since_turn`` exclusive, with no silent cap
      (``limit=None`` returns everything);
    - ``list_sessions`` orders by created_at then session_id;
    - ``delete_session`` removes the session and its entries: the only way anything is deleted.
    """

    async def create_session(self, session: TranscriptSession) -> None: ...
    async def get_session(self, session_id: str) -> TranscriptSession: ...
    async def list_sessions(self) -> list[TranscriptSession]: ...
    async def append_entry(self, entry: TranscriptEntry) -> None: ...
    async def append_entries(self, entries: Sequence[TranscriptEntry]) -> None: ...
    async def get_entries(
        self, session_id: str, *, since_turn: int | None = None, limit: int | None = None
    ) -> list[TranscriptEntry]: ...
    async def delete_session(self, session_id: str) -> None: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(self, *exc: object) -> None: ...
