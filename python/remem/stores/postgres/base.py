"""What every PostgreSQL-backed store shares: a pool, migrations, lazy opening, error wrapping."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool

from remem.errors import InvalidArgumentError
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.postgres.connection import open_pool, raise_backend
from remem.stores.postgres.migrations import Migration, migrate
from remem.stores.sql.dialect import POSTGRES, SqlDialect

T = TypeVar("T")
AConn = psycopg.AsyncConnection[Any]


class PostgresStore(StoreLifecycle):
    """Opens (pool + migrations) on ``async with`` or first use; every call is one transaction."""

    _components: Sequence[tuple[str, Sequence[Migration]]] = ()
    dialect: ClassVar[SqlDialect] = POSTGRES

    def __init__(self, dsn: str, *, max_connections: int = 8) -> None:
        if not isinstance(dsn, str) or not dsn:
            raise InvalidArgumentError("dsn must be a non-empty PostgreSQL connection string")
        self._dsn = dsn
        self._max = max_connections
        self._pool: AsyncConnectionPool | None = None

    async def _open(self) -> None:
        pool = await open_pool(self._dsn, max_size=self._max)
        try:
            async with pool.connection() as conn:
                for component, migrations in self._components:
                    await migrate(conn, component, migrations)
        except BaseException:
            await pool.close()
            raise
        self._pool = pool

    async def _close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _ready(self) -> AsyncConnectionPool:
        await self._ensure_open()
        assert self._pool is not None
        return self._pool

    async def _tx(self, fn: Callable[[AConn], Awaitable[T]], *, action: str) -> T:
        pool = await self._ready()
        try:
            async with pool.connection() as conn, conn.transaction():
                return await fn(conn)
        except psycopg.Error as exc:
            raise_backend(exc, action)

    async def _rows(
        self, sql: str, params: Sequence[object] | Mapping[str, object], *, action: str
    ) -> list[tuple[Any, ...]]:
        """All rows of one read statement, in a transaction."""

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            cur = await conn.execute(sql, params)
            return await cur.fetchall()

        return await self._tx(work, action=action)


async def copy_rows(
    conn: AConn, table: str, columns: Sequence[str], rows: Sequence[Sequence[object]]
) -> None:
    """Bulk-load ``rows`` into ``table`` with COPY FROM STDIN (no per-row statements)."""
    async with conn.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            await copy.write_row(row)


async def fetch_ids(
    conn: AConn, sql: str, params: Sequence[object] | dict[str, object]
) -> list[str]:
    cur = await conn.execute(sql, params)
    return [r[0] for r in await cur.fetchall()]
