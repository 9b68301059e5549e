"""Which normalisation built ``remem_episodes``' search text, and re-indexing when it changes.

The PostgreSQL twin of :mod:`remem.stores.sqlite.search_identity`: the stored ``search_text`` (from
which the ``tsv`` column is generated) is derived from ``text`` by
:meth:`~remem.stores.shared.search_text.FullTextConfig.search_text`, so when the config's
``identity`` differs from the one recorded in ``remem_episodes_search_identity`` (or none is
recorded but rows exist: :data:`LEGACY_IDENTITY`, remem before stemming), every row's
``search_text`` is recomputed from its ``text`` in one transaction, under an advisory lock so
concurrent openers re-index once; PostgreSQL regenerates ``tsv`` and the GIN index. Only the derived
columns change.

The tsvector stays on the ``simple`` configuration: stemming happens in Python, in the
normalisation every backend shares, so PostgreSQL and SQLite index the very same tokens (the
``english`` configuration would stem with its own tokenizer and stop words, and disagree).
"""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg

from remem.errors import BackendError
from remem.stores.shared.search_text import FullTextConfig

__all__ = ["IDENTITY_MIGRATION_SQL", "LEGACY_IDENTITY", "ensure_search_identity"]

LEGACY_IDENTITY = "remem-search-text-1:none"
"""What built the search text before identities were stored: folding, CJK bigrams, no stems."""

IDENTITY_MIGRATION_SQL = """
CREATE TABLE remem_episodes_search_identity (
    id       integer PRIMARY KEY CHECK (id = 1),
    identity text NOT NULL
);
"""

_BATCH = 2_000
_LOCK = int.from_bytes(
    hashlib.blake2b(b"remem:episodic-search-identity", digest_size=8).digest(), "big", signed=True
)


async def ensure_search_identity(conn: psycopg.AsyncConnection[Any], config: FullTextConfig) -> int:
    """Re-index ``remem_episodes`` if its search text was built with another identity than
    ``config``'s, and record ``config.identity``; returns the rows re-indexed."""
    try:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
            cur = await conn.execute("SELECT identity FROM remem_episodes_search_identity")
            row = await cur.fetchone()
            if row is not None:
                current: str | None = row[0]
            else:
                cur = await conn.execute("SELECT 1 FROM remem_episodes LIMIT 1")
                current = LEGACY_IDENTITY if await cur.fetchone() is not None else None
            if current == config.identity:
                return 0
            count = 0 if current is None else await _reindex(conn, config)
            await conn.execute(
                "INSERT INTO remem_episodes_search_identity (id, identity) VALUES (1, %s) "
                "ON CONFLICT (id) DO UPDATE SET identity = EXCLUDED.identity",
                (config.identity,),
            )
            return count
    except psycopg.Error as exc:
        raise BackendError(
            f"re-indexing the episodes for {config.identity} failed in PostgreSQL: {exc}"
        ) from exc


async def _reindex(conn: psycopg.AsyncConnection[Any], config: FullTextConfig) -> int:
    last, count = 0, 0
    while True:
        cur = await conn.execute(
            "SELECT seq, text FROM remem_episodes WHERE seq > %s ORDER BY seq LIMIT %s",
            (last, _BATCH),
        )
        rows = await cur.fetchall()
        if not rows:
            return count
        await conn.execute(
            "UPDATE remem_episodes AS e SET search_text = v.search_text "
            "FROM unnest(%s::bigint[], %s::text[]) AS v(seq, search_text) WHERE e.seq = v.seq",
            ([seq for seq, _ in rows], [config.search_text(text) for _, text in rows]),
        )
        last, count = rows[-1][0], count + len(rows)
