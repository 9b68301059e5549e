"""What every DuckDB-backed store shares: a DuckDBDatabase, lazy opening, use-after-close errors."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TypeVar

from remem.stores.duckdb.database import (
    DEFAULT_LOCK_TIMEOUT,
    Conn,
    DuckDBDatabase,
    raise_wrapped,
)
from remem.stores.lifecycle import StoreLifecycle, StoreState

T = TypeVar("T")


class DuckDBStore(StoreLifecycle):
    """Opens on ``async with`` or on first use; ``aclose()`` releases the shared database."""

    def __init__(
        self,
        database: str | os.PathLike[str] | DuckDBDatabase,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        if isinstance(database, DuckDBDatabase):
            self._db = database
        else:
            self._db = DuckDBDatabase.shared(database, lock_timeout=lock_timeout)
        self._opening = asyncio.Lock()

    @property
    def database(self) -> DuckDBDatabase:
        return self._db

    async def _open(self) -> None:
        await self._db.acquire()

    async def _close(self) -> None:
        if self._state is StoreState.OPEN:
            await self._db.release()

    async def _ready(self) -> None:
        self._check_open()
        if self._state is StoreState.UNOPENED:
            async with self._opening:
                if self._state is StoreState.UNOPENED:
                    await self.open()

    async def _tx(self, fn: Callable[[Conn], T], *, action: str) -> T:
        await self._ready()
        return await self._db.transaction(fn, action=action)

    async def _read(self, fn: Callable[[Conn], T], *, action: str) -> T:
        """Run a read-only ``fn`` on the worker as one statement-level transaction: no
        BEGIN/COMMIT round (~0.5 ms), still ordered after every write queued before it."""
        await self._ready()
        try:
            return await self._db.run(fn)
        except BaseException as exc:
            raise_wrapped(exc, action)
            raise
