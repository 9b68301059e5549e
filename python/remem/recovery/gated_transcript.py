"""GatedTranscriptStore: a :class:`TranscriptStore` whose writes pass a gate (quiescence hook).

A turn's entries go through the write port, but its *session* does not: the first
``record_turn`` of a new session (and the companion's scope check) creates the session row
directly. Wrapping the transcript store the Runtime hands out holds that write — and with it the
turn, which waits behind it — while the gate is closed::

    transcript = GatedTranscriptStore(SQLiteTranscriptStore(file), gate.passage)
    await transcript.create_session(session)   # waits while the gate is closed, then writes

Gated: ``create_session``, ``append_entry``, ``append_entries``, ``delete_session``. Reads never
wait. The port's own appends pass this gate too; it closes after the port's gate, when nothing
of the port is in flight (:mod:`remem.recovery.quiescence`). A write cancelled while it waits at
the gate writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from remem.gating import Gated
from remem.models import TranscriptEntry, TranscriptSession
from remem.scopes import Namespaces
from remem.stores.transcript import TranscriptStore

__all__ = ["GatedTranscriptStore"]


class _OpenableTranscriptStore(TranscriptStore, Protocol):
    async def open(self) -> Any: ...


class GatedTranscriptStore(Gated[_OpenableTranscriptStore]):
    """``inner`` with every transcript write inside ``passage()`` (module docstring)."""

    async def create_session(self, session: TranscriptSession) -> None:
        async with self._passage():
            await self.inner.create_session(session)

    async def append_entry(self, entry: TranscriptEntry) -> None:
        async with self._passage():
            await self.inner.append_entry(entry)

    async def append_entries(self, entries: Sequence[TranscriptEntry]) -> None:
        async with self._passage():
            await self.inner.append_entries(entries)

    async def delete_session(self, session_id: str) -> None:
        async with self._passage():
            await self.inner.delete_session(session_id)

    async def get_session(self, session_id: str) -> TranscriptSession:
        return await self.inner.get_session(session_id)

    async def list_sessions(self, *, namespace: Namespaces = None) -> list[TranscriptSession]:
        return await self.inner.list_sessions(namespace=namespace)

    async def get_entries(
        self, session_id: str, *, since_turn: int | None = None, limit: int | None = None
    ) -> list[TranscriptEntry]:
        return await self.inner.get_entries(session_id, since_turn=since_turn, limit=limit)

    async def get_turn_ranges(
        self, ranges: Sequence[tuple[str, int, int]]
    ) -> list[list[TranscriptEntry]]:
        return await self.inner.get_turn_ranges(ranges)
