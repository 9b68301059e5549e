"""A connection pool opened (and the schema migrated) on a store's first use."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import psycopg
from psycopg_pool import AsyncConnectionPool

from remem.errors import InvalidArgumentError
from remem.stores.postgres.connection import open_pool
from remem.stores.postgres.migrations import Migration, migrate


class LazyPool:
    """Opens a pool to ``dsn`` and applies ``component``'s migrations the first time it is used,
    then ``prepare`` (a data upgrade such as re-indexing, on one connection of the new pool;
    cheap when there is nothing to do)."""

    def __init__(
        self,
        dsn: str,
        *,
        component: str,
        migrations: Sequence[Migration],
        max_size: int = 8,
        prepare: Callable[[psycopg.AsyncConnection[object]], Awaitable[object]] | None = None,
    ) -> None:
        if not isinstance(dsn, str) or not dsn:
            raise InvalidArgumentError(f"dsn must be a non-empty str, got {dsn!r}")
        self._dsn = dsn
        self._component = component
        self._migrations = migrations
        self._max_size = max_size
        self._prepare = prepare
        self._pool: AsyncConnectionPool | None = None
        self._lock: asyncio.Lock | None = None

    async def get(self) -> AsyncConnectionPool:
        if self._pool is not None:
            return self._pool
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._pool is None:
                pool = await open_pool(self._dsn, max_size=self._max_size)
                try:
                    async with pool.connection() as conn:
                        await migrate(conn, self._component, self._migrations)
                        if self._prepare is not None:
                            await self._prepare(conn)
                except BaseException:
                    await pool.close()
                    raise
                self._pool = pool
        return self._pool

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
