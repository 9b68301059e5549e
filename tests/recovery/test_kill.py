"""SIGKILL at random points of snapshot and restore: nothing incomplete is marked complete and
the source is as it was (same bytes in every participant; SQLite may leave its empty -wal/-shm
side files, which the next open removes)."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import pytest

from remem.recovery import Manifest, snapshot
from tests.recovery.killing import Kills, Worker, side_files_only
from tests.recovery.memory_dirs import build_memory, file_digests, recalled, table_rows

KILLS = 6
"""Kills per operation (the seed fixes where they land)."""


def _worker(operation: str, src: Path, dst: Path) -> Worker:
    return Worker("tests.recovery.recovery_worker", operation, src, dst)


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    asyncio.run(build_memory(path, memories=300))
    return path


def test_sigkill_during_snapshot(memory: Path, tmp_path: Path) -> None:
    pristine = tmp_path / "pristine"
    shutil.copytree(memory, pristine)  # a plain copy of the closed directory: the oracle
    digests = file_digests(memory)
    duration = _worker("snapshot", memory, tmp_path / "timed").finish()
    kills = Kills(duration, kills=KILLS, seed=18)
    for i, delay in enumerate(kills.delays()):
        out = tmp_path / f"snap{i}"
        _worker("snapshot", memory, out).kill_after(delay)
        if out.exists():  # killed after the rename: it must be whole
            Manifest.read(out).verify(out)
        kills.landed(not out.exists())
        side_files_only(memory, digests)
    kills.check("snapshot")

    manifest = snapshot(memory, tmp_path / "snap0-again")  # partials of a killed run are no bar
    assert manifest.participants_by_path()["memory.duckdb"].rows["memory_records"] == 300
    assert table_rows(memory) == table_rows(pristine)
    assert asyncio.run(recalled(memory)) == asyncio.run(recalled(pristine))


def test_sigkill_during_restore(memory: Path, tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    snapshot(memory, snap)
    snap_digests = file_digests(snap)
    expected_rows = table_rows(memory)
    duration = _worker("restore", snap, tmp_path / "timed").finish()
    kills = Kills(duration, kills=KILLS, seed=2)
    for i, delay in enumerate(kills.delays()):
        target = tmp_path / f"restored{i}"
        _worker("restore", snap, target).kill_after(delay)
        if target.exists():
            assert table_rows(target) == expected_rows
        kills.landed(not target.exists())
        assert file_digests(snap) == snap_digests
    kills.check("restore")


def test_sigkill_during_a_forced_restore_leaves_the_old_or_the_new(
    memory: Path, tmp_path: Path
) -> None:
    snap = tmp_path / "snap"
    snapshot(memory, snap)
    new_rows = table_rows(memory)
    target = tmp_path / "target"
    asyncio.run(build_memory(target, memories=3))
    old_rows = table_rows(target)
    duration = _worker("restore-force", snap, tmp_path / "timed").finish()
    rng = random.Random(3)
    outcomes = []
    for _ in range(KILLS):
        if table_rows(target) == new_rows:  # put the old content back for the next kill
            shutil.rmtree(target)
            asyncio.run(build_memory(target, memories=3))
            old_rows = table_rows(target)
        _worker("restore-force", snap, target).kill_after(rng.uniform(0.0, duration))
        rows = table_rows(target)
        assert rows in (old_rows, new_rows)
        outcomes.append("new" if rows == new_rows else "old")
    print(f"restore --force: kills left {outcomes}")
    assert "old" in outcomes
