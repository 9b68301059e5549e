"""PostgresTranscriptStore: sessions and append-only turns in PostgreSQL."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import psycopg
from psycopg.types.json import Json

from remem.models import TranscriptEntry, TranscriptSession
from remem.stores.base.transcript import TranscriptStoreBase, stored_entry, unknown_session
from remem.stores.postgres.connection import raise_backend
from remem.stores.postgres.lazy_pool import LazyPool
from remem.stores.postgres.migrations import Migration

MIGRATIONS = (
    Migration(
        1,
        "transcript sessions and append-only entries",
        """
        CREATE TABLE remem_transcript_sessions (
            session_id text PRIMARY KEY,
            model_name text,
            title      text,
            created_at timestamptz NOT NULL,
            metadata   json NOT NULL
        );
        CREATE TABLE remem_transcript_entries (
            seq               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id                text NOT NULL UNIQUE,
            session_id        text NOT NULL
                              REFERENCES remem_transcript_sessions ON DELETE CASCADE,
            turn_number       bigint NOT NULL,
            user_message      text NOT NULL,
            assistant_message text NOT NULL,
            created_at        timestamptz NOT NULL,
            metadata          json NOT NULL,
            UNIQUE (session_id, turn_number)
        );
        CREATE FUNCTION remem_transcript_entries_immutable() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'transcript entries are immutable'; END $$;
        CREATE TRIGGER remem_transcript_entries_immutable
            BEFORE UPDATE ON remem_transcript_entries
            FOR EACH ROW EXECUTE FUNCTION remem_transcript_entries_immutable();
        """,
    ),
    Migration(
        2,
        "sessions carry their namespace (the scope); existing sessions are in 'default'",
        """
        ALTER TABLE remem_transcript_sessions
            ADD COLUMN namespace text NOT NULL DEFAULT 'default';
        CREATE INDEX remem_transcript_sessions_namespace
            ON remem_transcript_sessions (namespace, created_at);
        """,
    ),
)

_INSERT = (
    "INSERT INTO remem_transcript_entries (id, session_id, turn_number, user_message, "
    "assistant_message, created_at, metadata) VALUES (%s, %s, %s, %s, %s, %s, %s)"
)
_SESSION_COLUMNS = "session_id, model_name, title, created_at, metadata, namespace"


class PostgresTranscriptStore(TranscriptStoreBase):
    """Transcripts in the PostgreSQL database at ``dsn`` (tables ``remem_transcript_*``).

    The pool is opened and the schema migrated on first use (or on ``async with``). Durability is
    the server's: an append returns after its transaction committed, so with PostgreSQL's default
    ``synchronous_commit=on`` and ``fsync=on`` a committed turn survives an application crash,
    a server crash and power loss. A batch is one transaction.

    Example::

        async with PostgresTranscriptStore("postgresql://localhost/remem") as store:
            await store.create_session(TranscriptSession(session_id="s1"))
    """

    def __init__(self, dsn: str, *, max_connections: int = 8) -> None:
        self._pool = LazyPool(
            dsn, component="transcript", migrations=MIGRATIONS, max_size=max_connections
        )

    async def _open(self) -> None:
        await self._pool.get()

    async def _close(self) -> None:
        await self._pool.close()

    # -- the base class's hooks (arguments checked there) ----------------------------------------

    async def _create_session(self, session: TranscriptSession) -> None:
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn:
                await conn.execute(
                    f"INSERT INTO remem_transcript_sessions ({_SESSION_COLUMNS}) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    (
                        session.session_id,
                        session.model_name,
                        session.title,
                        session.created_at,
                        Json(session.metadata),
                        session.namespace,
                    ),
                )
        except psycopg.Error as exc:
            raise_backend(exc, f"creating session {session.session_id!r}")

    async def _get_session(self, session_id: str) -> TranscriptSession | None:
        rows = await self._fetch(
            f"SELECT {_SESSION_COLUMNS} FROM remem_transcript_sessions WHERE session_id = %s",
            (session_id,),
        )
        return _session(rows[0]) if rows else None

    async def _list_sessions(self, scopes: tuple[str, ...] | None) -> list[TranscriptSession]:
        where = "" if scopes is None else "WHERE namespace = ANY(%s) "
        rows = await self._fetch(
            f"SELECT {_SESSION_COLUMNS} FROM remem_transcript_sessions {where}"
            'ORDER BY created_at, session_id COLLATE "C"',
            () if scopes is None else (list(scopes),),
        )
        return [_session(row) for row in rows]

    async def _delete_session(self, session_id: str) -> bool:
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(
                    "DELETE FROM remem_transcript_sessions WHERE session_id = %s", (session_id,)
                )
                return cur.rowcount > 0
        except psycopg.Error as exc:
            raise_backend(exc, f"deleting session {session_id!r}")

    async def _append_entries(self, entries: tuple[TranscriptEntry, ...]) -> None:
        rows = [
            (
                e.id,
                e.session_id,
                e.turn_number,
                e.user_message,
                e.assistant_message,
                e.created_at,
                Json(e.metadata),
            )
            for e in entries
        ]
        session_ids = sorted({e.session_id for e in entries})
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn, conn.transaction():
                cur = await conn.execute(
                    "SELECT session_id FROM remem_transcript_sessions "
                    "WHERE session_id = ANY(%s) FOR KEY SHARE",
                    (session_ids,),
                )
                found = {row[0] for row in await cur.fetchall()}
                for session_id in session_ids:
                    if session_id not in found:
                        raise unknown_session(session_id)
                async with conn.cursor() as insert:
                    await insert.executemany(_INSERT, rows)
        except psycopg.Error as exc:
            raise_backend(exc, "appending transcript entries")

    async def _get_entries(
        self, session_id: str, since_turn: int, limit: int | None
    ) -> list[TranscriptEntry] | None:
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(
                    "SELECT id, session_id, turn_number, user_message, assistant_message, "
                    "created_at, metadata FROM remem_transcript_entries "
                    "WHERE session_id = %s AND turn_number > %s ORDER BY turn_number LIMIT %s",
                    (session_id, since_turn, limit),
                )
                rows = await cur.fetchall()
                if not rows:
                    cur = await conn.execute(
                        "SELECT 1 FROM remem_transcript_sessions WHERE session_id = %s",
                        (session_id,),
                    )
                    if await cur.fetchone() is None:
                        return None
        except psycopg.Error as exc:
            raise_backend(exc, f"reading session {session_id!r}")
        return [_entry(row) for row in rows]

    async def _get_turn_ranges(
        self, ranges: tuple[tuple[str, int, int], ...]
    ) -> list[list[TranscriptEntry]]:
        # One query for every range: the ranges as arrays, joined with their position.
        sessions = [r[0] for r in ranges]
        firsts = [r[1] for r in ranges]
        lasts = [r[2] for r in ranges]
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(
                    "SELECT r.i, e.id, e.session_id, e.turn_number, e.user_message, "
                    "e.assistant_message, e.created_at, e.metadata "
                    "FROM unnest(%s::text[], %s::bigint[], %s::bigint[]) "
                    "WITH ORDINALITY AS r(s, a, b, i) "
                    "JOIN remem_transcript_entries e ON e.session_id = r.s "
                    "AND e.turn_number BETWEEN r.a AND r.b ORDER BY r.i, e.turn_number",
                    (sessions, firsts, lasts),
                )
                rows = await cur.fetchall()
        except psycopg.Error as exc:
            raise_backend(exc, "reading transcript turn ranges")
        out: list[list[TranscriptEntry]] = [[] for _ in ranges]
        for row in rows:
            out[row[0] - 1].append(_entry(row[1:]))
        return out

    async def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(sql.encode(), params)
                return await cur.fetchall()
        except psycopg.Error as exc:
            raise_backend(exc, "reading transcripts")


def _session(row: tuple[Any, ...]) -> TranscriptSession:
    session_id, model_name, title, created_at, metadata, namespace = row
    return TranscriptSession.model_construct(
        session_id=session_id,
        namespace=namespace,
        model_name=model_name,
        title=title,
        created_at=created_at.astimezone(UTC),
        metadata=metadata,
    )


def _entry(row: tuple[Any, ...]) -> TranscriptEntry:
    id_, session_id, turn, user, assistant, created_at, metadata = row
    return stored_entry(
        id_, session_id, turn, user, assistant, created_at.astimezone(UTC), metadata
    )
