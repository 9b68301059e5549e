"""SQLiteTranscriptStore: sessions and append-only turns in one SQLite file, with group commit."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from remem.errors import StoreError
from remem.models import TranscriptEntry, TranscriptSession
from remem.stores.base.transcript import TranscriptStoreBase, stored_entry, unknown_session
from remem.stores.sqlite.codec import dump_metadata, from_micros, load_metadata, to_micros
from remem.stores.sqlite.embedded import (
    Durability,
    EmbeddedDatabase,
    wrap_sqlite_error,
    write_transaction,
)

SCHEMA_VERSION = 2
"""The transcript schema version this remem writes (``remem migrate`` compares it).
v2: sessions carry their ``namespace`` (the scope); a v1 file's sessions get ``'default'``."""

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS transcript_sessions (
        session_id    TEXT PRIMARY KEY NOT NULL,
        model_name    TEXT,
        title         TEXT,
        created_at_us INTEGER NOT NULL,
        metadata      TEXT NOT NULL,
        namespace     TEXT NOT NULL DEFAULT 'default'
    )""",
    """CREATE TABLE IF NOT EXISTS transcript_entries (
        seq               INTEGER PRIMARY KEY,
        id                TEXT NOT NULL UNIQUE,
        session_id        TEXT NOT NULL
                          REFERENCES transcript_sessions (session_id) ON DELETE CASCADE,
        turn_number       INTEGER NOT NULL,
        user_message      TEXT NOT NULL,
        assistant_message TEXT NOT NULL,
        created_at_us     INTEGER NOT NULL,
        metadata          TEXT NOT NULL,
        UNIQUE (session_id, turn_number)
    )""",
    """CREATE TRIGGER IF NOT EXISTS transcript_entries_immutable
        BEFORE UPDATE ON transcript_entries
        BEGIN SELECT RAISE(ABORT, 'transcript entries are immutable'); END""",
)

_SESSION_COLUMNS = "session_id, model_name, title, created_at_us, metadata, namespace"


def _upgrade(conn: sqlite3.Connection) -> None:
    """v1 → v2: add the sessions' namespace column (existing sessions are in ``'default'``) and
    its index; a no-op once done."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(transcript_sessions)")}
    if "namespace" not in columns:
        conn.execute(
            "ALTER TABLE transcript_sessions ADD COLUMN namespace TEXT NOT NULL DEFAULT 'default'"
        )
    conn.execute(
        "CREATE INDEX IF NOT EXISTS transcript_sessions_namespace "
        "ON transcript_sessions (namespace, created_at_us)"
    )


_INSERT = (
    "INSERT INTO transcript_entries (id, session_id, turn_number, user_message, "
    "assistant_message, created_at_us, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_SELECT = (
    "SELECT id, session_id, turn_number, user_message, assistant_message, created_at_us, "
    "metadata FROM transcript_entries WHERE session_id = ? AND turn_number > ? "
    "ORDER BY turn_number LIMIT ?"
)
_SELECT_RANGE = (
    "SELECT id, session_id, turn_number, user_message, assistant_message, created_at_us, "
    "metadata FROM transcript_entries WHERE session_id = ? AND turn_number BETWEEN ? AND ? "
    "ORDER BY turn_number"
)


@dataclass(slots=True)
class _Append:
    rows: list[tuple[Any, ...]]
    session_ids: set[str]
    future: asyncio.Future[None]
    loop: asyncio.AbstractEventLoop


class SQLiteTranscriptStore(TranscriptStoreBase):
    """Transcripts in the SQLite file at ``path`` (created if missing), in WAL mode.

    Works with or without ``async with``: the file is opened on first use, and closed by
    ``aclose()`` — or, if that is never called, when the store is garbage-collected or the
    interpreter exits. Several processes may append to one file (writers queue on SQLite's lock,
    up to 30 s).

    Durability (see :mod:`remem.stores.sqlite.embedded`): an append returns only after its
    transaction committed. ``durability="normal"`` (default): committed turns survive an
    application crash or SIGKILL; on power loss the last commits may be lost but the file stays
    consistent, each batch present entirely or not at all. ``durability="full"``: committed turns
    also survive power loss.

    Group commit: appends that arrive while the worker is busy are written by the next job in
    ONE transaction, each call under its own savepoint — so one call's duplicate id fails only
    that call, and no call is acknowledged before the shared COMMIT.

    Example::

        store = SQLiteTranscriptStore(Path("data") / "transcript.db")
        await store.create_session(TranscriptSession(session_id="s1"))
        await store.append_entry(TranscriptEntry(id="e1", session_id="s1", turn_number=1))
    """

    def __init__(self, path: str | Path, *, durability: str | Durability = "normal") -> None:
        self._db = EmbeddedDatabase(
            path,
            name="transcript",
            schema=_SCHEMA,
            schema_version=SCHEMA_VERSION,
            durability=durability,
            upgrade=_upgrade,
        )
        self._pending: list[_Append] = []
        self._pending_lock = threading.Lock()
        self._flush_queued = False

    @property
    def path(self) -> Path:
        return self._db.path

    @property
    def durability(self) -> Durability:
        return self._db.durability

    async def _open(self) -> None:
        await self._db.run(lambda conn: None)

    async def _close(self) -> None:
        await self._db.close()

    # -- the base class's hooks (arguments checked there) ----------------------------------------

    async def _create_session(self, session: TranscriptSession) -> None:
        row = (
            session.session_id,
            session.model_name,
            session.title,
            to_micros(session.created_at),
            dump_metadata(session.metadata),
            session.namespace,
        )

        def insert(conn: sqlite3.Connection) -> None:
            conn.execute(
                f"INSERT INTO transcript_sessions ({_SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )

        try:
            await self._db.run(lambda conn: write_transaction(conn, insert))
        except sqlite3.Error as exc:
            raise wrap_sqlite_error(exc, f"creating session {session.session_id!r}") from exc

    async def _get_session(self, session_id: str) -> TranscriptSession | None:
        rows = await self._read(
            f"SELECT {_SESSION_COLUMNS} FROM transcript_sessions WHERE session_id = ?",
            (session_id,),
        )
        return _session(rows[0]) if rows else None

    async def _list_sessions(self, scopes: tuple[str, ...] | None) -> list[TranscriptSession]:
        where, params = "", tuple[str, ...]()
        if scopes is not None:
            where = f" WHERE namespace IN ({', '.join('?' * len(scopes))})"
            params = scopes
        rows = await self._read(
            f"SELECT {_SESSION_COLUMNS} FROM transcript_sessions{where} "
            "ORDER BY created_at_us, session_id",
            params,
        )
        return [_session(row) for row in rows]

    async def _delete_session(self, session_id: str) -> bool:
        def delete(conn: sqlite3.Connection) -> bool:
            conn.execute("DELETE FROM transcript_entries WHERE session_id = ?", (session_id,))
            cur = conn.execute(
                "DELETE FROM transcript_sessions WHERE session_id = ?", (session_id,)
            )
            return cur.rowcount > 0

        try:
            return await self._db.run(lambda conn: write_transaction(conn, delete))
        except sqlite3.Error as exc:
            raise wrap_sqlite_error(exc, f"deleting session {session_id!r}") from exc

    async def _append_entries(self, entries: tuple[TranscriptEntry, ...]) -> None:
        rows: list[tuple[Any, ...]] = [
            (
                e.id,
                e.session_id,
                e.turn_number,
                e.user_message,
                e.assistant_message,
                to_micros(e.created_at),
                dump_metadata(e.metadata),
            )
            for e in entries
        ]
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._pending_lock:
            self._pending.append(_Append(rows, {e.session_id for e in entries}, future, loop))
            queue_flush = not self._flush_queued
            self._flush_queued = True
        if queue_flush:
            self._db.submit_job(self._flush)
        await future

    def _flush(self) -> None:
        """Worker job: write every pending append in one transaction, then settle the callers."""
        with self._pending_lock:
            group, self._pending = self._pending, []
            self._flush_queued = False
        outcomes: list[BaseException | None] = []
        try:
            conn = self._db.connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                for append in group:
                    outcomes.append(_append_under_savepoint(conn, append))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            failure = wrap_sqlite_error(exc, "appending transcript entries")
            failure.__cause__ = exc
            outcomes = [failure] * len(group)
        except BaseException as exc:  # e.g. BackendError opening the file; never lose a caller
            outcomes = [exc] * len(group)
        for append, outcome in zip(group, outcomes, strict=True):
            # RuntimeError: the caller's event loop is closed, so nobody is waiting.
            with contextlib.suppress(RuntimeError):
                append.loop.call_soon_threadsafe(_settle, append.future, outcome)

    async def _get_entries(
        self, session_id: str, since_turn: int, limit: int | None
    ) -> list[TranscriptEntry] | None:
        params = (session_id, since_turn, -1 if limit is None else limit)

        def read(conn: sqlite3.Connection) -> list[TranscriptEntry] | None:
            rows = conn.execute(_SELECT, params).fetchall()
            if not rows and not _session_exists(conn, session_id):
                return None
            return [_entry(row) for row in rows]

        try:
            return await self._db.run(read)
        except sqlite3.Error as exc:
            raise wrap_sqlite_error(exc, f"reading session {session_id!r}") from exc

    async def _get_turn_ranges(
        self, ranges: tuple[tuple[str, int, int], ...]
    ) -> list[list[TranscriptEntry]]:
        # One worker round trip for every range (recall reads ~14 a question).
        def read(conn: sqlite3.Connection) -> list[list[TranscriptEntry]]:
            return [[_entry(row) for row in conn.execute(_SELECT_RANGE, r)] for r in ranges]

        try:
            return await self._db.run(read)
        except sqlite3.Error as exc:
            raise wrap_sqlite_error(exc, "reading transcript turn ranges") from exc

    async def _read(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return await self._db.run(lambda conn: conn.execute(sql, params).fetchall())
        except sqlite3.Error as exc:
            raise wrap_sqlite_error(exc, "reading transcripts") from exc


def _append_under_savepoint(conn: sqlite3.Connection, append: _Append) -> BaseException | None:
    conn.execute("SAVEPOINT append")
    try:
        for session_id in append.session_ids:
            if not _session_exists(conn, session_id):
                raise unknown_session(session_id)
        conn.executemany(_INSERT, append.rows)
    except (StoreError, sqlite3.IntegrityError) as exc:
        conn.execute("ROLLBACK TO append")
        conn.execute("RELEASE append")
        if isinstance(exc, sqlite3.Error):
            failure = wrap_sqlite_error(exc, "appending transcript entries")
            failure.__cause__ = exc
            return failure
        return exc
    conn.execute("RELEASE append")
    return None


def _settle(future: asyncio.Future[None], outcome: BaseException | None) -> None:
    if future.done():  # the caller was cancelled; the write itself stands
        return
    if outcome is None:
        future.set_result(None)
    else:
        future.set_exception(outcome)


def _session_exists(conn: sqlite3.Connection, session_id: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM transcript_sessions WHERE session_id = ?", (session_id,)
    ).fetchone()
    return row is not None


def _session(row: tuple[Any, ...]) -> TranscriptSession:
    session_id, model_name, title, created_at_us, metadata, namespace = row
    # Rows were validated on the way in; skip re-validation on the read path.
    return TranscriptSession.model_construct(
        session_id=session_id,
        namespace=namespace,
        model_name=model_name,
        title=title,
        created_at=from_micros(created_at_us),
        metadata=load_metadata(metadata),
    )


def _entry(row: tuple[Any, ...]) -> TranscriptEntry:
    id_, session_id, turn, user, assistant, created_at_us, metadata = row
    return stored_entry(
        id_, session_id, turn, user, assistant, from_micros(created_at_us), load_metadata(metadata)
    )


__all__ = ["SQLiteTranscriptStore"]
