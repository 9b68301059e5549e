"""Versioned migrations: applied once, idempotent on reopen, refuse a newer schema."""

from __future__ import annotations

import psycopg
import pytest

from remem.errors import IntegrityError
from remem.stores.postgres.migrations import Migration, migrate

pytestmark = pytest.mark.postgres

V1 = Migration(1, "create t", "CREATE TABLE t (id text PRIMARY KEY)")
V2 = Migration(2, "add column", "ALTER TABLE t ADD COLUMN n integer NOT NULL DEFAULT 0")


async def test_applies_in_order_and_is_idempotent(pg_dsn: str) -> None:
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        assert await migrate(conn, "demo", [V1]) == 1
        assert await migrate(conn, "demo", [V1, V2]) == 2
        assert await migrate(conn, "demo", [V1, V2]) == 2
        cur = await conn.execute("SELECT version FROM remem_schema_migrations ORDER BY version")
        assert [r[0] for r in await cur.fetchall()] == [1, 2]


async def test_refuses_a_newer_schema(pg_dsn: str) -> None:
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        await migrate(conn, "demo", [V1, V2])
        with pytest.raises(IntegrityError, match="newer than this remem"):
            await migrate(conn, "demo", [V1])


async def test_rejects_unordered_versions(pg_dsn: str) -> None:
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        with pytest.raises(IntegrityError, match="increasing"):
            await migrate(conn, "demo", [V2, V1])
