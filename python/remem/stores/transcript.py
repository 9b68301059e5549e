"""The TranscriptStore protocol: sessions and immutable, append-only turns."""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from remem.errors import InvalidArgumentError, shown
from remem.models import TranscriptEntry, TranscriptSession, check_text
from remem.scopes import Namespaces

MAX_INT64 = 2**63 - 1
MAX_SESSION_ID_CHARS = 512
"""The longest session id (the models' ``Identifier`` limit)."""


@runtime_checkable
class TranscriptStore(Protocol):
    """Durable conversation transcripts.

    Contract (every backend, checked by the parity suite):
    - entries are immutable; appending an id that exists raises DuplicateIdError and changes
      nothing; a batch append is all-or-nothing (a duplicate inside the batch counts too);
    - a (session_id, turn_number) pair is unique (DuplicateIdError), and appending to an unknown
      session raises NotFoundError;
    - ``get_entries`` returns turns in turn order, ``since_turn`` exclusive, with no silent cap
      (``limit=None`` returns everything); an unknown session raises NotFoundError; a negative
      ``since_turn`` or ``limit`` raises InvalidArgumentError (``limit=0`` returns []);
    - ``get_session`` and ``delete_session`` of an unknown session raise NotFoundError;
    - ``create_session`` of an existing session_id raises DuplicateIdError;
    - ``list_sessions`` orders by created_at then session_id; ``namespace`` (one name, several,
      or None for all; :mod:`remem.scopes`) keeps only the sessions of those scopes, in the query;
    - a session's ``namespace`` is stored with it and is the scope of its turns;
    - ``delete_session`` removes the session and its entries: the only way anything is deleted;
    - a write is acknowledged (the awaited call returns) only after it committed; cancelling the
      awaiting task does not undo a write that was already handed to the backend;
    - passing something other than a TranscriptSession/TranscriptEntry raises
      InvalidArgumentError; after ``aclose()`` every call raises StoreClosedError.

    The backends (SQLite, PostgreSQL) derive from
    :class:`~remem.stores.base.transcript.TranscriptStoreBase`, which checks the arguments once.
    """

    async def create_session(self, session: TranscriptSession) -> None: ...
    async def get_session(self, session_id: str) -> TranscriptSession: ...
    async def list_sessions(self, *, namespace: Namespaces = None) -> list[TranscriptSession]: ...
    async def append_entry(self, entry: TranscriptEntry) -> None: ...
    async def append_entries(self, entries: Sequence[TranscriptEntry]) -> None: ...
    async def get_entries(
        self, session_id: str, *, since_turn: int | None = None, limit: int | None = None
    ) -> list[TranscriptEntry]: ...
    async def delete_session(self, session_id: str) -> None: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def check_session(session: object) -> TranscriptSession:
    if not isinstance(session, TranscriptSession):
        raise InvalidArgumentError(
            f"expected a TranscriptSession, got {type(session).__name__}; build one first"
        )
    return session


def check_entries(entries: Sequence[object]) -> tuple[TranscriptEntry, ...]:
    """The entries as a tuple, or InvalidArgumentError if one is not a TranscriptEntry."""
    if isinstance(entries, str | bytes) or not isinstance(entries, Sequence):
        raise InvalidArgumentError(
            f"expected a sequence of TranscriptEntry, got {type(entries).__name__}"
        )
    checked: list[TranscriptEntry] = []
    for position, entry in enumerate(entries):
        if not isinstance(entry, TranscriptEntry):
            raise InvalidArgumentError(
                f"entries[{position}] is a {type(entry).__name__}, not a TranscriptEntry; "
                "build TranscriptEntry objects first"
            )
        if entry.turn_number > MAX_INT64:
            raise InvalidArgumentError(
                f"entries[{position}].turn_number {entry.turn_number} exceeds {MAX_INT64}, "
                "the largest turn number a database column holds"
            )
        checked.append(entry)
    return tuple(checked)


def check_page(since_turn: int | None, limit: int | None) -> None:
    for name, value in (("since_turn", since_turn), ("limit", limit)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT64:
            raise InvalidArgumentError(
                f"{name} must be None or an int in 0..{MAX_INT64}, got {value!r}"
            )


def check_session_id(session_id: object) -> str:
    """``session_id`` if it is a storable id (a non-empty str of at most
    :data:`MAX_SESSION_ID_CHARS`, no NUL or lone surrogate), else InvalidArgumentError — the one
    session id rule every store and the controller apply."""
    if not isinstance(session_id, str) or not session_id:
        raise InvalidArgumentError(f"session_id must be a non-empty str, got {shown(session_id)}")
    if len(session_id) > MAX_SESSION_ID_CHARS:
        raise InvalidArgumentError(
            f"session_id has {len(session_id)} characters; use at most {MAX_SESSION_ID_CHARS}"
        )
    return check_text(session_id, field="session_id")
