"""TranscriptStoreBase: the TranscriptStore contract's front half, written once.

Every public method refuses use after ``aclose()``, checks its arguments here (so the SQLite
and PostgreSQL transcripts raise the same typed error, with the same message, for the same bad
input), answers the empty cases and raises the one "unknown session" error; a backend then
implements one hook per method, each receiving checked values. ``append_entry`` is an optional
ability with a default (a batch of one), and so is ``_get_turn_ranges`` (one ``_get_entries``
per range; a backend overrides it to read every range in one round trip).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from remem.errors import NotFoundError
from remem.models import TranscriptEntry, TranscriptSession
from remem.models.base import trusted
from remem.scopes import Namespaces, normalize_namespaces
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.transcript import (
    check_entries,
    check_page,
    check_ranges,
    check_session,
    check_session_id,
)


def unknown_session(session_id: str) -> NotFoundError:
    """The refusal for a session that was never created (or was deleted)."""
    return NotFoundError(
        f"transcript session {session_id!r} does not exist; create it with create_session() first"
    )


def stored_entry(
    entry_id: str,
    session_id: str,
    turn_number: int,
    user_message: str,
    assistant_message: str,
    created_at: datetime,
    metadata: dict[str, Any],
) -> TranscriptEntry:
    """The entry of a stored row, its values decoded by the backend (``created_at`` aware UTC).

    Every field given, from a row validated when written: built unvalidated (``trusted``, 3x
    faster than ``model_construct``); recall reads ~35 turns a question.
    """
    return trusted(
        TranscriptEntry,
        {
            "id": entry_id,
            "session_id": session_id,
            "turn_number": turn_number,
            "user_message": user_message,
            "assistant_message": assistant_message,
            "created_at": created_at,
            "metadata": metadata,
        },
    )


class TranscriptStoreBase(StoreLifecycle, ABC):
    """Implements :class:`~remem.stores.transcript.TranscriptStore` over the hooks below."""

    @abstractmethod
    async def _create_session(self, session: TranscriptSession) -> None:
        """Insert ``session``; an existing id raises DuplicateIdError."""

    @abstractmethod
    async def _get_session(self, session_id: str) -> TranscriptSession | None: ...

    @abstractmethod
    async def _list_sessions(self, scopes: tuple[str, ...] | None) -> list[TranscriptSession]:
        """Sessions of ``scopes`` (None: all), by created_at then session_id."""

    @abstractmethod
    async def _delete_session(self, session_id: str) -> bool:
        """Delete the session and its entries; False if there was no such session."""

    @abstractmethod
    async def _append_entries(self, entries: tuple[TranscriptEntry, ...]) -> None:
        """Append a non-empty checked batch all-or-nothing; an unknown session raises
        :func:`unknown_session`."""

    @abstractmethod
    async def _get_entries(
        self, session_id: str, since_turn: int, limit: int | None
    ) -> list[TranscriptEntry] | None:
        """Turns after ``since_turn`` in turn order (at most ``limit``); None when the session
        does not exist."""

    async def _get_turn_ranges(
        self, ranges: tuple[tuple[str, int, int], ...]
    ) -> list[list[TranscriptEntry]]:
        """Per checked range, its turns in turn order ([] for an unknown session)."""
        out: list[list[TranscriptEntry]] = []
        for session_id, first, last in ranges:
            found = await self._get_entries(session_id, first - 1, last - first + 1)
            out.append(found or [])
        return out

    async def create_session(self, session: TranscriptSession) -> None:
        self._check_open()
        await self._create_session(check_session(session))

    async def get_session(self, session_id: str) -> TranscriptSession:
        self._check_open()
        found = await self._get_session(check_session_id(session_id))
        if found is None:
            raise unknown_session(session_id)
        return found

    async def list_sessions(self, *, namespace: Namespaces = None) -> list[TranscriptSession]:
        self._check_open()
        return await self._list_sessions(normalize_namespaces(namespace))

    async def delete_session(self, session_id: str) -> None:
        self._check_open()
        if not await self._delete_session(check_session_id(session_id)):
            raise unknown_session(session_id)

    async def append_entry(self, entry: TranscriptEntry) -> None:
        await self.append_entries([entry])

    async def append_entries(self, entries: Sequence[TranscriptEntry]) -> None:
        self._check_open()
        checked = check_entries(entries)
        if checked:
            await self._append_entries(checked)

    async def get_entries(
        self, session_id: str, *, since_turn: int | None = None, limit: int | None = None
    ) -> list[TranscriptEntry]:
        self._check_open()
        check_session_id(session_id)
        check_page(since_turn, limit)
        found = await self._get_entries(session_id, since_turn or 0, limit)
        if found is None:
            raise unknown_session(session_id)
        return found

    async def get_turn_ranges(
        self, ranges: Sequence[tuple[str, int, int]]
    ) -> list[list[TranscriptEntry]]:
        """Per ``(session_id, first, last)``, the turns numbered ``first..last`` in turn order
        ([] for a session that does not exist), in the order of ``ranges``."""
        self._check_open()
        checked = check_ranges(ranges)
        if not checked:
            return []
        return await self._get_turn_ranges(checked)
