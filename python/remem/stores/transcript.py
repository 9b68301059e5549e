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
    - ``get_turn_ranges`` reads many ``(session_id, first, last)`` ranges at once (recall's
      neighbour expansion): per range, in the order given, the turns numbered ``first..last``
      in turn order; a session that does not exist gives [] (it may have been deleted since
      the hit that named it); ``first < 1`` or ``last < first`` raises InvalidArgumentError;
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
    async def get_turn_ranges(
        self, ranges: Sequence[tuple[str, int, int]]
    ) -> list[list[TranscriptEntry]]: ...
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


def check_ranges(ranges: Sequence[object]) -> tuple[tuple[str, int, int], ...]:
    """``get_turn_ranges``' argument: a sequence of ``(session_id, first, last)`` with
    ``1 <= first <= last``."""
    if isinstance(ranges, str | bytes) or not isinstance(ranges, Sequence):
        raise InvalidArgumentError(
            f"ranges must be a sequence of (session_id, first, last), got {type(ranges).__name__}"
        )
    out: list[tuple[str, int, int]] = []
    for r in ranges:
        if not isinstance(r, tuple | list) or len(r) != 3:
            raise InvalidArgumentError(
                f"each range must be (session_id, first, last), got {shown(r)}"
            )
        session_id, first, last = r
        check_session_id(session_id)
        for name, value in (("first", first), ("last", last)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_INT64:
                raise InvalidArgumentError(
                    f"a range's {name} turn must be an int in 1..{MAX_INT64}, got {shown(value)}"
                )
        if last < first:
            raise InvalidArgumentError(
                f"range ({session_id!r}, {first}, {last}) ends before it starts; pass first <= last"
            )
        out.append((session_id, first, last))
    return tuple(out)


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
