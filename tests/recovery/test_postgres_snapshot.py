"""Snapshot and restore of a real PostgreSQL memory: round trip, refusals, tampering."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from remem.recovery import (
    ChecksumMismatchError,
    RecoveryError,
    TargetNotEmptyError,
    export_memory,
    import_memory,
    restore_postgres,
    snapshot_postgres,
)
from tests.postgres import _with_database
from tests.recovery.rich_memory import build_rich_memory, table_lines, vector_lines

pytestmark = pytest.mark.postgres


@pytest.fixture
def second_dsn(pg_server: str) -> Iterator[str]:
    """Another fresh database on the same server (the restore target)."""
    name = f"remem_restore_{os.getpid()}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(pg_server, name)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_memory(tmp_path: Path, pg_dsn: str) -> str:
    """A PostgreSQL memory with every kind of row (loaded from a real embedded one)."""
    asyncio.run(build_rich_memory(tmp_path / "seed"))
    export_memory(tmp_path / "seed", tmp_path / "seed.export", vectors=True)
    import_memory(tmp_path / "seed.export", pg_dsn)
    return pg_dsn


def test_round_trip_is_row_identical_with_checksums_verified(
    pg_memory: str, second_dsn: str, tmp_path: Path
) -> None:
    manifest = snapshot_postgres(pg_memory, tmp_path / "snap")
    assert manifest.source == "postgres"
    assert manifest.vectors
    assert sum(f.rows for f in manifest.files if f.path.startswith("tables/")) > 50

    assert restore_postgres(tmp_path / "snap", second_dsn) == manifest
    again = snapshot_postgres(second_dsn, tmp_path / "again")
    tables = [(f.path, f.rows, f.sha256) for f in manifest.files if f.path.startswith("tables/")]
    assert [(f.path, f.rows, f.sha256) for f in again.files if f.path.startswith("tables/")] == (
        tables
    )
    assert table_lines(tmp_path / "again") == table_lines(tmp_path / "snap")
    assert {k: [i["id"] for i in v] for k, v in vector_lines(tmp_path / "again").items()} == {
        k: [i["id"] for i in v] for k, v in vector_lines(tmp_path / "snap").items()
    }
    # the source is untouched by the snapshot
    assert table_lines(tmp_path / "seed.export") == table_lines(tmp_path / "snap")


def test_a_non_empty_database_is_refused_without_force(
    pg_memory: str, second_dsn: str, tmp_path: Path
) -> None:
    snapshot_postgres(pg_memory, tmp_path / "snap")
    with pytest.raises(TargetNotEmptyError, match="not empty"):
        restore_postgres(tmp_path / "snap", pg_memory)
    restore_postgres(tmp_path / "snap", pg_memory, force=True)
    snapshot_postgres(pg_memory, tmp_path / "after")
    assert table_lines(tmp_path / "after") == table_lines(tmp_path / "snap")
    with pytest.raises(TargetNotEmptyError, match="already exists"):
        snapshot_postgres(pg_memory, tmp_path / "snap")


def test_a_tampered_snapshot_leaves_the_database_untouched(
    pg_memory: str, second_dsn: str, tmp_path: Path
) -> None:
    snapshot_postgres(pg_memory, tmp_path / "snap")
    memories = tmp_path / "snap" / "tables" / "memories.jsonl"
    memories.write_text(memories.read_text().replace("cats", "bats"))
    with pytest.raises(ChecksumMismatchError, match=r"memories\.jsonl"):
        restore_postgres(tmp_path / "snap", second_dsn)
    with psycopg.connect(second_dsn) as conn:
        row = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
    assert row == (0,)


def test_a_directory_is_not_a_dsn(tmp_path: Path) -> None:
    with pytest.raises(RecoveryError, match="not a PostgreSQL DSN"):
        snapshot_postgres(str(tmp_path / "memory"), tmp_path / "snap")
