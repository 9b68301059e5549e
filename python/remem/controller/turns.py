"""The turns ``record_turn`` and ``record_turns`` write: validation and numbering, then the port.

The write itself (transcript, then the episodic index; or a journal row) is the write port's
(:mod:`remem.writebehind.port`); here each session's turns are numbered under its lock.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

from remem.cancel_safe import run_to_end
from remem.controller.writes import MAX_TEXT_CHARS
from remem.errors import InputError, InvalidArgumentError, NotFoundError, shown
from remem.models import TranscriptEntry, TranscriptSession, check_text, require_aware
from remem.scopes import DEFAULT_NAMESPACE
from remem.stores.episodic import EpisodicStore
from remem.stores.shared.vector_input import check_id
from remem.stores.transcript import MAX_INT64, TranscriptStore
from remem.writebehind import WritePort


class TurnLog:
    """Each session's last turn number (cached) and its lock, in front of the write port.

    ``last_turn`` … the port's ``append_turns`` run under ``lock(session_id)``, so concurrent
    turns of one session get consecutive numbers; a failed write forgets the cached number (the
    next turn reads it from the stores again).

    Scopes: a session is created in the namespace of its first turn (``"default"`` when none is
    named) and keeps it; a later turn naming another namespace is refused
    (InvalidArgumentError), so one session's turns never straddle two scopes.
    """

    def __init__(
        self,
        transcript_store: TranscriptStore | None,
        episodic_store: EpisodicStore,
        writes: WritePort,
        *,
        now: Callable[[], datetime],
    ) -> None:
        self.transcript = transcript_store
        self.episodic = episodic_store
        self.writes = writes
        self.last_turns: dict[str, int] = {}
        self.scopes: dict[str, str] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._now = now

    def lock(self, session_id: str) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    async def last_turn(self, session_id: str, namespace: str | None = None) -> int:
        """The session's last turn number (0 if new; a new session is created in the transcript,
        in ``namespace`` or ``"default"``); InvalidArgumentError if the session exists in
        another namespace than ``namespace``."""
        known = self.last_turns.get(session_id)
        if known is not None:
            self._check_scope(session_id, namespace)
            return known
        last = 0
        await self.writes.barrier()  # the stores must hold every turn already acknowledged
        if self.transcript is not None:
            try:
                session = await self.transcript.get_session(session_id)
                self.scopes[session_id] = session.namespace
                self._check_scope(session_id, namespace)
                entries = await self.transcript.get_entries(session_id)
                last = max((e.turn_number for e in entries), default=0)
            except NotFoundError:
                scope = namespace if namespace is not None else DEFAULT_NAMESPACE
                await self.transcript.create_session(
                    TranscriptSession(
                        session_id=session_id, namespace=scope, created_at=self._now()
                    )
                )
                self.scopes[session_id] = scope
        else:
            days = await self.episodic.days(session_id)
            last = max((e.turn_number for d in days.values() for e in d), default=0)
        self.last_turns[session_id] = last
        return last

    def _check_scope(self, session_id: str, namespace: str | None) -> None:
        stored = self.scopes.get(session_id)
        if namespace is not None and stored is not None and stored != namespace:
            raise InvalidArgumentError(
                f"session {session_id!r} belongs to namespace {stored!r}, not {namespace!r}; "
                "use another session id for this scope"
            )

    async def record(
        self,
        session_id: str,
        user_message: str,
        assistant_message: str,
        *,
        turn_number: int | None,
        entry_id: str | None,
        created_at: datetime,
        metadata: dict[str, object],
        namespace: str | None = None,
    ) -> TranscriptEntry:
        """Number (under the session's lock) and write one validated turn.

        With a journaled port the turn is durable in the journal on return, in the transcript
        and index with the next batch; a caller's own number or id is confirmed by the stores
        at once (``confirm=True``), so a clash raises right here.

        Cancellation-safe: numbering and the write run to their end (:func:`run_to_end`), so a
        cancelled call leaves the turn wholly written (and counted) or not at all."""
        return await run_to_end(
            self._record(
                session_id,
                user_message,
                assistant_message,
                turn_number=turn_number,
                entry_id=entry_id,
                created_at=created_at,
                metadata=metadata,
                namespace=namespace,
            )
        )

    async def _record(
        self,
        session_id: str,
        user_message: str,
        assistant_message: str,
        *,
        turn_number: int | None,
        entry_id: str | None,
        created_at: datetime,
        metadata: dict[str, object],
        namespace: str | None,
    ) -> TranscriptEntry:
        async with self.lock(session_id):
            last = await self.last_turn(session_id, namespace)
            number = last + 1 if turn_number is None else turn_number
            entry = TranscriptEntry(
                id=entry_id if entry_id is not None else f"turn-{uuid.uuid4().hex}",
                session_id=session_id,
                turn_number=number,
                user_message=user_message,
                assistant_message=assistant_message,
                created_at=created_at,
                metadata=metadata,
            )
            confirm = turn_number is not None or entry_id is not None
            await self._write(session_id, [entry], max(last, number), confirm=confirm)
        return entry

    async def record_many(
        self,
        session_id: str,
        pairs: list[tuple[str, str]],
        *,
        created_at: datetime,
        metadata: dict[str, object],
        namespace: str | None = None,
    ) -> list[TranscriptEntry]:
        """Number (under the session's lock) and write validated turns as one batch per store;
        cancellation-safe like :meth:`record`."""
        return await run_to_end(
            self._record_many(
                session_id, pairs, created_at=created_at, metadata=metadata, namespace=namespace
            )
        )

    async def _record_many(
        self,
        session_id: str,
        pairs: list[tuple[str, str]],
        *,
        created_at: datetime,
        metadata: dict[str, object],
        namespace: str | None,
    ) -> list[TranscriptEntry]:
        async with self.lock(session_id):
            last = await self.last_turn(session_id, namespace)
            entries = [
                TranscriptEntry(
                    id=f"turn-{uuid.uuid4().hex}",
                    session_id=session_id,
                    turn_number=last + 1 + i,
                    user_message=user,
                    assistant_message=assistant,
                    created_at=created_at,
                    metadata=metadata,
                )
                for i, (user, assistant) in enumerate(pairs)
            ]
            await self._write(session_id, entries, last + len(entries), confirm=True)
        return entries

    async def _write(
        self, session_id: str, entries: list[TranscriptEntry], last: int, *, confirm: bool
    ) -> None:
        try:
            await self.writes.append_turns(entries, confirm=confirm)
        except BaseException:
            # The transcript may hold the turns even though indexing failed: read it again.
            self.last_turns.pop(session_id, None)
            raise
        self.last_turns[session_id] = last


def check_turn(user_message: object, assistant_message: object) -> tuple[str, str]:
    """The two messages of a turn, or the typed error naming the bad one (not a str, a NUL or
    lone surrogate, over ``MAX_TEXT_CHARS`` — the same cap as ``remember``)."""
    for name, value in (
        ("user_message", user_message),
        ("assistant_message", assistant_message),
    ):
        if not isinstance(value, str):
            raise InvalidArgumentError(f"{name} must be a str, got {type(value).__name__}")
        if len(value) > MAX_TEXT_CHARS:
            raise InvalidArgumentError(
                f"{name} has {len(value)} characters; split it below {MAX_TEXT_CHARS}"
            )
        check_text(value, field=name)
    assert isinstance(user_message, str)
    assert isinstance(assistant_message, str)
    if not (user_message.strip() or assistant_message.strip()):
        raise InvalidArgumentError("a turn needs a user or an assistant message; both are empty")
    return user_message, assistant_message


def check_turn_options(
    turn_number: object, entry_id: object, created_at: object
) -> datetime | None:
    """``record_turn``'s optional ``turn_number`` (an int in 1..2**63-1, not a bool),
    ``entry_id`` (a storable id) and ``created_at`` (an aware datetime, returned in UTC)."""
    if turn_number is not None and (
        isinstance(turn_number, bool)
        or not isinstance(turn_number, int)
        or not 1 <= turn_number <= MAX_INT64
    ):
        raise InvalidArgumentError(
            f"turn_number must be None (the next number) or an int in 1..{MAX_INT64}, "
            f"got {shown(turn_number)}"
        )
    if entry_id is not None:
        check_id(entry_id, field="entry_id")
    return None if created_at is None else require_aware(created_at, field="created_at")  # type: ignore[arg-type]


def check_turns(turns: object) -> list[tuple[str, str]]:
    """Every (user_message, assistant_message) pair checked; an error names the bad index."""
    if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
        raise InvalidArgumentError(
            "record_turns takes a list of (user_message, assistant_message) pairs"
        )
    out: list[tuple[str, str]] = []
    for i, pair in enumerate(turns):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise InvalidArgumentError(
                f"turn {i} is {pair!r}; pass a (user_message, assistant_message) pair"
            )
        try:
            out.append(check_turn(pair[0], pair[1]))
        except InputError as exc:
            raise type(exc)(f"turn {i}: {exc}") from exc
    return out
