"""Versioned schema migrations for the PostgreSQL backends.

Each store component (``transcript``, ``episodic``, ``records``, ``graph``, ``vectors``, ...) owns
an ordered list of migrations. ``migrate`` applies the ones not yet recorded in
``remem_schema_migrations``, each in its own transaction, under a transaction-scoped advisory lock
so that two processes opening the same database at once do not race. Applied migrations are never
edited: a change is a new, higher version.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import psycopg

from remem.errors import BackendError, IntegrityError


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    sql: str


_BOOTSTRAP = """
CREATE TABLE IF NOT EXISTS remem_schema_migrations (
    component   text        NOT NULL,
    version     integer     NOT NULL,
    description text        NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (component, version)
)
"""


def _lock_key(component: str) -> int:
    digest = hashlib.blake2b(f"remem:{component}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def migrate(
    conn: psycopg.AsyncConnection[object], component: str, migrations: Sequence[Migration]
) -> int:
    """Apply pending migrations of ``component``; return the schema version now in place."""
    versions = [m.version for m in migrations]
    if versions != sorted(set(versions)) or (versions and versions[0] < 1):
        raise IntegrityError(f"{component} migrations must have unique, increasing versions ≥ 1")
    try:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key("bootstrap"),))
            await conn.execute(_BOOTSTRAP)
        current = 0
        for migration in migrations:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key(component),))
                cur = await conn.execute(
                    "SELECT 1 FROM remem_schema_migrations WHERE component = %s AND version = %s",
                    (component, migration.version),
                )
                if await cur.fetchone() is None:
                    await conn.execute(migration.sql.encode())
                    await conn.execute(
                        "INSERT INTO remem_schema_migrations (component, version, description) "
                        "VALUES (%s, %s, %s)",
                        (component, migration.version, migration.description),
                    )
            current = migration.version
        cur = await conn.execute(
            "SELECT coalesce(max(version), 0) FROM remem_schema_migrations WHERE component = %s",
            (component,),
        )
        row = await cur.fetchone()
    except psycopg.Error as exc:
        raise BackendError(f"migrating the {component} schema failed: {exc}") from exc
    newest = int(row[0]) if row else current  # type: ignore[index]
    if newest > current:
        raise IntegrityError(
            f"the database's {component} schema is at version {newest}, newer than this remem "
            f"({current}); upgrade remem before opening it"
        )
    return current
