"""Every BlockStore backend, real ones: a DuckDB file under tmp_path and a fresh PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from remem.blocks import BlockStore
from remem.stores.duckdb.blocks import DuckDBBlockStore
from remem.stores.postgres.blocks import PostgresBlockStore

StoreFactory = Callable[[], BlockStore]


@pytest.fixture(params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    """A factory of stores over one database (call it again to 'reopen')."""
    if request.param == "duckdb":
        path = tmp_path / "memory.duckdb"
        return lambda: DuckDBBlockStore(path)
    dsn: str = request.getfixturevalue("pg_dsn")
    return lambda: PostgresBlockStore(dsn)


@pytest.fixture
async def store(make_store: StoreFactory) -> AsyncIterator[BlockStore]:
    s = make_store()
    try:
        yield s
    finally:
        await s.aclose()
