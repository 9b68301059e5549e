"""PostgresEpisodicStore: tsvector + GIN full-text search over turns and notes, day summaries."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Json

from remem.errors import ConfigError, DuplicateIdError
from remem.models import DaySummary, EpisodeKind, EpisodicHit, TranscriptEntry
from remem.scopes import DEFAULT_NAMESPACE, Namespaces, check_namespace, normalize_namespaces
from remem.stores.base.episodic import EpisodicStoreBase
from remem.stores.episodic import (
    NoteInput,
    check_note,
    check_notes,
    check_search,
    check_summary,
    group_by_day,
    load_timezone,
    turn_text,
)
from remem.stores.postgres.connection import raise_backend
from remem.stores.postgres.lazy_pool import LazyPool
from remem.stores.postgres.migrations import Migration
from remem.stores.postgres.search_identity import IDENTITY_MIGRATION_SQL, ensure_search_identity
from remem.stores.shared.search_text import DEFAULT_FULL_TEXT, FullTextConfig
from remem.stores.transcript import check_entries, check_session_id

MIGRATIONS = (
    Migration(
        1,
        "episodes with a tsvector index, and day summaries",
        """
        CREATE TABLE remem_episodes (
            seq               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id                text NOT NULL UNIQUE,
            kind              text NOT NULL,
            session_id        text,
            turn_number       bigint,
            user_message      text,
            assistant_message text,
            text              text NOT NULL,
            created_at        timestamptz NOT NULL,
            metadata          json NOT NULL,
            search_text       text NOT NULL,
            tsv               tsvector
                              GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, search_text))
                              STORED
        );
        CREATE INDEX remem_episodes_tsv ON remem_episodes USING gin (tsv);
        CREATE UNIQUE INDEX remem_episodes_turn ON remem_episodes (session_id, turn_number)
            WHERE kind = 'turn';
        CREATE INDEX remem_episodes_session_time ON remem_episodes (session_id, created_at);
        CREATE TABLE remem_day_summaries (
            session_id text NOT NULL,
            timezone   text NOT NULL,
            day        date NOT NULL,
            text       text NOT NULL,
            turn_count integer NOT NULL,
            first_turn bigint,
            last_turn  bigint,
            created_at timestamptz NOT NULL,
            PRIMARY KEY (session_id, timezone, day)
        );
        """,
    ),
    Migration(
        2,
        "the identity of the normalisation that built the search text",
        IDENTITY_MIGRATION_SQL,
    ),
    Migration(
        3,
        "every episode carries its namespace (the scope); notes take their memory's",
        """
        ALTER TABLE remem_episodes ADD COLUMN namespace text NOT NULL DEFAULT 'default';
        UPDATE remem_episodes SET namespace = metadata->>'namespace'
            WHERE kind = 'note' AND json_typeof(metadata->'namespace') = 'string'
            AND length(metadata->>'namespace') BETWEEN 1 AND 512;
        CREATE INDEX remem_episodes_namespace ON remem_episodes (namespace, session_id);
        """,
    ),
)

_COLUMNS = (
    "id, kind, session_id, turn_number, user_message, assistant_message, text, created_at, "
    "metadata, namespace, search_text"
)
_Row = tuple[Any, ...]


class PostgresEpisodicStore(EpisodicStoreBase):
    """Episodic search in the PostgreSQL database at ``dsn`` (tables ``remem_episodes``,
    ``remem_day_summaries``).

    Search: a stored ``tsvector`` generated with the ``simple`` configuration from the same
    normalised search text as SQLite (:mod:`remem.stores.shared.search_text`: accents folded, CJK
    bigrams, stems; ``simple`` adds no stemming or stop words of its own, so both backends match
    the same tokens),
    a GIN index, and ranking by ``ts_rank_cd(tsv, query, 1)`` (cover density, divided by
    1 + log(document length)). Scores are on another scale than SQLite's bm25 and ts_rank_cd has
    no inverse document frequency: only clear-cut orderings agree across backends.

    Durability: the server's (committed writes survive crashes and power loss with PostgreSQL's
    defaults). The pool is opened and the schema migrated on first use.

    Normalisation: ``full_text`` (:class:`~remem.stores.shared.search_text.FullTextConfig`, English
    stemming by default), applied in Python like SQLite's, so both index the same tokens; a
    database whose search text was built with another one is re-indexed from the stored texts
    on first use (:mod:`~remem.stores.postgres.search_identity`).
    """

    def __init__(
        self,
        dsn: str,
        *,
        timezone: str = "UTC",
        max_connections: int = 8,
        full_text: FullTextConfig = DEFAULT_FULL_TEXT,
    ) -> None:
        self._zone = load_timezone(timezone)
        self.timezone = timezone
        if not isinstance(full_text, FullTextConfig):
            raise ConfigError(
                f"full_text must be a FullTextConfig, got {type(full_text).__name__}; "
                "e.g. FullTextConfig(language='english')"
            )
        self.full_text = full_text
        self._pool = LazyPool(
            dsn,
            component="episodic",
            migrations=MIGRATIONS,
            max_size=max_connections,
            prepare=lambda conn: ensure_search_identity(conn, full_text),
        )

    async def _open(self) -> None:
        await self._pool.get()

    async def _close(self) -> None:
        await self._pool.close()

    async def index_turns(
        self, entries: Sequence[TranscriptEntry], *, namespace: str = DEFAULT_NAMESPACE
    ) -> None:
        self._check_open()
        scope = check_namespace(namespace)
        rows = [
            (
                e.id,
                EpisodeKind.TURN.value,
                e.session_id,
                e.turn_number,
                e.user_message,
                e.assistant_message,
                turn_text(e),
                e.created_at,
                e.metadata,
                scope,
                self.full_text.search_text(turn_text(e)),
            )
            for e in check_entries(entries)
        ]
        await self._insert(rows, "indexing turns")

    async def add_note(
        self,
        note_id: str,
        text: str,
        *,
        created_at: datetime,
        session_id: str | None = None,
        metadata: dict[str, object] | None = None,
        namespace: str = DEFAULT_NAMESPACE,
    ) -> None:
        self._check_open()
        note = check_note(note_id, text, created_at, session_id, metadata, namespace)
        await self._insert([_note_row(note, self.full_text)], f"adding note {note.note_id!r}")

    async def add_notes(self, notes: Sequence[NoteInput]) -> None:
        """Add many notes in one transaction, all or nothing (see the protocol)."""
        self._check_open()
        await self._insert(
            [_note_row(n, self.full_text) for n in check_notes(notes)], "adding notes"
        )

    async def _insert(self, rows: list[_Row], action: str) -> None:
        if not rows:
            return
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn, conn.transaction():
                cur = await conn.execute(
                    f"SELECT {_COLUMNS} FROM remem_episodes WHERE id = ANY(%s)",
                    ([row[0] for row in rows],),
                )
                stored = {row[0]: _comparable(row) for row in await cur.fetchall()}
                fresh = _new_rows(rows, stored)
                if fresh:
                    async with conn.cursor() as insert:
                        await insert.executemany(
                            f"INSERT INTO remem_episodes ({_COLUMNS}) "
                            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                            [(*row[:8], Json(row[8]), row[9], row[10]) for row in fresh],
                        )
        except psycopg.Error as exc:
            raise_backend(exc, action)

    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        namespace: Namespaces = None,
    ) -> list[EpisodicHit]:
        self._check_open()
        query, limit, since, until = check_search(query, limit, since, until)
        scopes = normalize_namespaces(namespace)
        if session_id is not None:
            check_session_id(session_id)
        terms = self.full_text.query_terms(query)
        if not terms or limit == 0:
            return []
        tsquery = sql.SQL(" || ").join(
            sql.SQL("plainto_tsquery('simple'::regconfig, {})").format(sql.Literal(t))
            for t in terms
        )
        filters: list[sql.Composable] = [sql.SQL("tsv @@ q.query")]
        params: list[object] = []
        if session_id is not None:
            filters.append(sql.SQL("session_id = %s"))
            params.append(session_id)
        if scopes is not None:
            filters.append(sql.SQL("namespace = ANY(%s)"))
            params.append(list(scopes))
        if since is not None:
            filters.append(sql.SQL("created_at >= %s"))
            params.append(since)
        if until is not None:
            filters.append(sql.SQL("created_at < %s"))
            params.append(until)
        params.append(limit)
        statement = sql.SQL(
            "SELECT id, kind, session_id, turn_number, text, ts_rank_cd(tsv, q.query, 1) AS score, "
            "created_at, metadata, namespace FROM remem_episodes, (SELECT {} AS query) AS q "
            "WHERE {} "
            'ORDER BY score DESC, created_at DESC, id COLLATE "C" LIMIT %s'
        ).format(tsquery, sql.SQL(" AND ").join(filters))
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(statement, params)
                rows = await cur.fetchall()
        except psycopg.Error as exc:
            raise_backend(exc, "searching episodes")
        return [_hit(row) for row in rows]

    async def search_many(
        self,
        queries: Sequence[str],
        *,
        limit: int = 10,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        namespace: Namespaces = None,
    ) -> list[list[EpisodicHit]]:
        """``[await search(q, ...) for q in queries]`` — the same hits — run concurrently on the
        pool's connections. Every query is validated before any runs."""
        self._check_open()
        for q in queries:
            check_search(q, limit, since, until)
        normalize_namespaces(namespace)
        return list(
            await asyncio.gather(
                *(
                    self.search(
                        q,
                        limit=limit,
                        session_id=session_id,
                        since=since,
                        until=until,
                        namespace=namespace,
                    )
                    for q in queries
                )
            )
        )

    async def days(
        self, session_id: str, *, namespace: Namespaces = None
    ) -> dict[date, list[TranscriptEntry]]:
        self._check_open()
        check_session_id(session_id)
        scopes = normalize_namespaces(namespace)
        scope = "" if scopes is None else "AND namespace = ANY(%s) "
        rows = await self._fetch(
            "SELECT id, session_id, turn_number, user_message, assistant_message, created_at, "
            f"metadata FROM remem_episodes WHERE session_id = %s AND kind = 'turn' {scope}"
            "ORDER BY turn_number",
            (session_id,) if scopes is None else (session_id, list(scopes)),
        )
        entries = [
            TranscriptEntry.model_construct(
                id=r[0],
                session_id=r[1],
                turn_number=r[2],
                user_message=r[3],
                assistant_message=r[4],
                created_at=r[5].astimezone(UTC),
                metadata=r[6],
            )
            for r in rows
        ]
        return group_by_day(entries, self._zone)

    async def put_day_summary(self, summary: DaySummary) -> None:
        self._check_open()
        check_summary(summary, self.timezone)
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn:
                await conn.execute(
                    "INSERT INTO remem_day_summaries VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (session_id, timezone, day) DO UPDATE SET text = EXCLUDED.text, "
                    "turn_count = EXCLUDED.turn_count, first_turn = EXCLUDED.first_turn, "
                    "last_turn = EXCLUDED.last_turn, created_at = EXCLUDED.created_at",
                    (
                        summary.session_id,
                        summary.timezone,
                        summary.day,
                        summary.text,
                        summary.turn_count,
                        summary.first_turn,
                        summary.last_turn,
                        summary.created_at,
                    ),
                )
        except psycopg.Error as exc:
            raise_backend(exc, "storing a day summary")

    async def get_day_summaries(
        self, session_id: str, *, namespace: Namespaces = None
    ) -> list[DaySummary]:
        """The session's summaries; with ``namespace``, only if the session's turns are indexed
        in one of those scopes (a summary is of a session, and a session is in one scope)."""
        self._check_open()
        check_session_id(session_id)
        scopes = normalize_namespaces(namespace)
        scope = (
            ""
            if scopes is None
            else "AND EXISTS (SELECT 1 FROM remem_episodes WHERE session_id = %s "
            "AND kind = 'turn' AND namespace = ANY(%s)) "
        )
        params: tuple[Any, ...] = (session_id, self.timezone)
        if scopes is not None:
            params += (session_id, list(scopes))
        rows = await self._fetch(
            "SELECT session_id, timezone, day, text, turn_count, first_turn, last_turn, "
            "created_at FROM remem_day_summaries WHERE session_id = %s AND timezone = %s "
            f"{scope}ORDER BY day",
            params,
        )
        return [
            DaySummary(
                session_id=r[0],
                timezone=r[1],
                day=r[2],
                text=r[3],
                turn_count=r[4],
                first_turn=r[5],
                last_turn=r[6],
                created_at=r[7],
            )
            for r in rows
        ]

    async def _fetch(self, query: str, params: tuple[Any, ...]) -> list[_Row]:
        pool = await self._pool.get()
        try:
            async with pool.connection() as conn:
                cur = await conn.execute(query.encode(), params)
                return await cur.fetchall()
        except psycopg.Error as exc:
            raise_backend(exc, "reading episodes")


def _comparable(row: _Row) -> _Row:
    """A stored row in the shape of a new one, minus the derived search_text."""
    created_at = row[7]
    assert isinstance(created_at, datetime)
    return (*row[:7], created_at.astimezone(UTC), row[8], row[9])


def _new_rows(rows: list[_Row], stored: dict[object, _Row]) -> list[_Row]:
    fresh: dict[object, _Row] = {}
    for row in rows:
        key = row[0]
        known = fresh[key][:-1] if key in fresh else stored.get(key)
        if known is None:
            fresh[key] = row
        elif known != row[:-1]:
            raise DuplicateIdError(
                f"episode {key!r} already exists with other content; episodes are immutable, "
                "use a new id"
            )
    return list(fresh.values())


def _note_row(note: NoteInput, full_text: FullTextConfig) -> _Row:
    return (
        note.note_id,
        EpisodeKind.NOTE.value,
        note.session_id,
        None,
        None,
        None,
        note.text,
        note.created_at,
        note.metadata,
        note.namespace,
        full_text.search_text(note.text),
    )


def _hit(row: _Row) -> EpisodicHit:
    id_, kind, session_id, turn, text, score, created_at, metadata, namespace = row
    return EpisodicHit.model_construct(
        namespace=namespace,
        id=id_,
        kind=EpisodeKind(kind),
        session_id=session_id,
        turn_number=turn,
        text=text,
        score=float(score),
        created_at=created_at.astimezone(UTC),
        metadata=metadata,
    )
