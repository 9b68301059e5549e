"""DuckDB specifics: the blocks schema lives beside the records schema in one memory file."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from remem.blocks import BlockChange
from remem.errors import BackendError
from remem.stores.duckdb import DuckDBDatabase, DuckDBRecordStore
from remem.stores.duckdb.blocks import COMPONENT, DuckDBBlockStore

T0 = datetime(2026, 11, 30, tzinfo=UTC)


async def test_shares_the_memory_file_with_records(tmp_path: Path) -> None:
    path = tmp_path / "memory.duckdb"
    db = DuckDBDatabase(path)
    async with DuckDBRecordStore(db) as records, DuckDBBlockStore(db) as blocks:
        await blocks.commit(
            "ada",
            "user",
            ["a fact"],
            [BlockChange("add", None, "a fact", 0, 8)],
            expected_revision=0,
            actor="m",
            at=T0,
        )
        assert await records.count() == 0
    with duckdb.connect(str(path)) as conn:
        rows = conn.execute(
            "SELECT component, version FROM remem_schema_migrations ORDER BY component"
        ).fetchall()
    assert rows == [("duckdb-blocks", 1), ("duckdb-memory", 1)]


async def test_refuses_a_newer_blocks_schema(tmp_path: Path) -> None:
    path = tmp_path / "memory.duckdb"
    async with DuckDBBlockStore(path) as blocks:
        assert await blocks.labels("ada") == []
    with duckdb.connect(str(path)) as conn:
        conn.execute(
            "INSERT INTO remem_schema_migrations VALUES (?, 99, 'from the future')", [COMPONENT]
        )
    store = DuckDBBlockStore(path)
    with pytest.raises(BackendError, match="upgrade remem"):
        await store.labels("ada")
    await store.aclose()
    with duckdb.connect(str(path)) as conn:  # the failed open released the file
        conn.execute("DELETE FROM remem_schema_migrations WHERE version = 99")
    async with DuckDBBlockStore(path) as again:
        assert await again.labels("ada") == []
