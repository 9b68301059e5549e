"""SIGKILL at random points of ``remem export`` and ``remem import``.

* export: the source is untouched (same bytes; SQLite may leave empty -wal/-shm side files), and
  an export directory exists only if its manifest and every checksum verify;
* import into an embedded directory: the target is **as it was** — absent, or (``--force``) its
  old content whole — or completely imported; never half. What a killed import leaves beside it
  (``.<name>.import-*``) is removed by the next import to that target;
* import into PostgreSQL: **as it was** (empty) or completely imported, since rows and vectors
  commit in one transaction; the same command run again completes it.
"""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import pytest

from remem.recovery import export_memory, read_export
from tests.recovery.killing import Kills, Worker, side_files_only
from tests.recovery.memory_dirs import build_memory, entries, file_digests, recalled
from tests.recovery.rich_memory import table_lines, vector_lines

KILLS = 6
"""Kills per operation (the seed fixes where they land)."""
PG_KILLS = 4


def _remem(*args: str | Path) -> Worker:
    return Worker("tests.recovery.cli_worker", *args)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("built") / "memory"
    asyncio.run(build_memory(path, memories=1500))
    return path


@pytest.fixture
def memory(built: Path, tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    shutil.copytree(built, path)
    return path


@pytest.fixture
def exported(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("exported") / "memory.export"
    export_memory(built, out, vectors=True)
    return out


def _imported_as(target: str | Path, exported: Path, check: Path) -> bool:
    """Whether ``target`` holds exactly what ``exported`` does (exported again to ``check``)."""
    export_memory(target, check, vectors=True)
    if table_lines(check) != table_lines(exported):
        return False
    got, want = vector_lines(check), vector_lines(exported)
    return {n: [i["id"] for i in v] for n, v in got.items()} == {
        n: [i["id"] for i in v] for n, v in want.items()
    }


def test_sigkill_during_export(memory: Path, tmp_path: Path) -> None:
    digests = file_digests(memory)
    duration = _remem("export", memory, "--out", tmp_path / "timed", "--vectors").finish()
    kills = Kills(duration, kills=KILLS, seed=18)
    for i, delay in enumerate(kills.delays()):
        out = tmp_path / f"x{i}"
        _remem("export", memory, "--out", out, "--vectors").kill_after(delay)
        if out.exists():  # killed after the rename: it must be whole
            read_export(out)
        kills.landed(not out.exists())
        side_files_only(memory, digests)
    kills.check("export")
    again = export_memory(memory, tmp_path / "x0-again", vectors=True)
    assert again.file("tables/memories.jsonl").rows == 1500
    assert table_lines(tmp_path / "x0-again") == table_lines(tmp_path / "timed")
    assert not [n for n in entries(tmp_path) if ".partial-" in n and "x0-again" in n]


def test_sigkill_during_import_leaves_nothing_or_everything(exported: Path, tmp_path: Path) -> None:
    export_digests = file_digests(exported)
    duration = _remem("import", exported, "--dir", tmp_path / "timed").finish()
    kills = Kills(duration, kills=KILLS, seed=2)
    for i, delay in enumerate(kills.delays()):
        target = tmp_path / f"imported{i}"
        _remem("import", exported, "--dir", target).kill_after(delay)
        kills.landed(not target.exists())
        if target.exists():
            assert _imported_as(target, exported, tmp_path / f"check{i}")
        else:
            _remem("import", exported, "--dir", target).finish()  # restartable: run it again
            assert _imported_as(target, exported, tmp_path / f"check{i}")
        assert not [n for n in entries(tmp_path) if n.startswith(f".imported{i}.import-")]
        assert file_digests(exported) == export_digests
    kills.check("import")


def test_sigkill_during_a_forced_import_leaves_the_old_or_the_new(
    exported: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    asyncio.run(build_memory(target, memories=3))
    checks = (tmp_path / f"check{i}" for i in range(1000))
    old = _lines(target, next(checks))
    new = table_lines(exported)
    duration = _remem("import", exported, "--dir", target, "--force").finish()
    assert _lines(target, next(checks)) == new
    rng = random.Random(3)
    outcomes: list[str] = []
    for _ in range(KILLS):
        if outcomes[-1:] != ["old"]:  # put the old content back for the next kill
            shutil.rmtree(target)
            asyncio.run(build_memory(target, memories=3))
            old = _lines(target, next(checks))
        _remem("import", exported, "--dir", target, "--force").kill_after(
            rng.uniform(0.0, duration)
        )
        now = _lines(target, next(checks))
        assert now in (old, new)
        outcomes.append("new" if now == new else "old")
    print(f"import --force: kills left {outcomes}")
    assert "old" in outcomes
    assert any(asyncio.run(recalled(target))), "what a kill left opens and recalls"


def _lines(memory: Path, check: Path) -> dict[str, list[dict[str, object]]]:
    export_memory(memory, check)
    return table_lines(check)


@pytest.mark.postgres
def test_sigkill_during_a_postgres_import_leaves_it_empty_or_complete(
    exported: Path, tmp_path: Path, pg_dsn: str
) -> None:
    duration = _remem("import", exported, "--dir", pg_dsn).finish()
    assert _imported_as(pg_dsn, exported, tmp_path / "timed-check")
    rng = random.Random(4)
    outcomes = []
    for i in range(PG_KILLS):
        _remem("import", exported, "--dir", pg_dsn, "--force").kill_after(
            rng.uniform(0.0, duration)
        )
        assert _imported_as(pg_dsn, exported, tmp_path / f"check{i}")  # old == new here
        outcomes.append("whole")
    for i in range(PG_KILLS):
        _reset_postgres(pg_dsn)
        _remem("import", exported, "--dir", pg_dsn).kill_after(rng.uniform(0.0, duration))
        if _postgres_empty(pg_dsn):
            outcomes.append("empty")
            _remem("import", exported, "--dir", pg_dsn).finish()  # restartable: run it again
        else:
            outcomes.append("complete")
        assert _imported_as(pg_dsn, exported, tmp_path / f"again{i}")
    print(f"postgres import ({duration:.2f} s): kills left {outcomes}")
    assert "empty" in outcomes


def _postgres_empty(dsn: str) -> bool:
    import psycopg

    from remem.recovery.portable_tables import TABLES

    with psycopg.connect(dsn) as conn:
        for name in [t.postgres_table for t in TABLES] + ["remem_vector_collections"]:
            exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
            if exists and exists[0]:  # a kill before the migrations leaves no table at all
                row = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {name})").fetchone()
                if row and row[0]:
                    return False
        return True


def _reset_postgres(dsn: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")
