"""Connection pools for the PostgreSQL backends, and wrapping of driver errors."""

from __future__ import annotations

from typing import NoReturn

import psycopg
from psycopg_pool import AsyncConnectionPool

from remem.errors import BackendError, DuplicateIdError


async def open_pool(dsn: str, *, min_size: int = 1, max_size: int = 8) -> AsyncConnectionPool:
    """Open an async pool to ``dsn`` and wait until one connection works."""
    pool: AsyncConnectionPool = AsyncConnectionPool(
        dsn, min_size=min_size, max_size=max_size, open=False, kwargs={"autocommit": True}
    )
    try:
        await pool.open(wait=True, timeout=30)
    except Exception as exc:
        await pool.close()
        raise BackendError(
            f"could not connect to PostgreSQL ({exc}); check the DSN and that the server is up"
        ) from exc
    return pool


def raise_backend(exc: psycopg.Error, action: str) -> NoReturn:
    """Re-raise a psycopg error as the remem error a caller can act on."""
    if isinstance(exc, psycopg.errors.UniqueViolation):
        raise DuplicateIdError(
            f"{action}: an id already exists ({exc.diag.message_detail})"
        ) from exc
    raise BackendError(f"{action} failed in PostgreSQL: {exc}") from exc
