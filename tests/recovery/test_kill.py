"""SIGKILL at random points of snapshot and restore: nothing incomplete is marked complete and
the source is as it was (same bytes in every participant; SQLite may leave its empty -wal/-shm
side files, which the next open removes)."""

from __future__ import annotations

import asyncio
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from remem.recovery import Manifest, snapshot
from tests.recovery.memory_dirs import build_memory, file_digests, recalled, table_rows

KILLS = 6
"""Kills per operation (the seed fixes where they land)."""


class Worker:
    def __init__(self, operation: str, src: Path, dst: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.recovery.recovery_worker", operation, str(src), str(dst)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "ready"

    def go(self) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def finish(self) -> float:
        start = self.go()
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "done"
        elapsed = time.monotonic() - start
        assert self.proc.wait(timeout=60) == 0
        return elapsed

    def kill_after(self, delay: float) -> None:
        self.go()
        time.sleep(delay)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)


def _side_files_only(path: Path, expected: dict[str, str]) -> None:
    now = file_digests(path)
    assert {k: now[k] for k in expected} == expected
    extra = set(now) - set(expected)
    assert all(name.endswith(("-wal", "-shm")) for name in extra), extra
    assert all((path / name).stat().st_size == 0 for name in extra if name.endswith("-wal"))


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    asyncio.run(build_memory(path, memories=300))
    return path


def test_sigkill_during_snapshot(memory: Path, tmp_path: Path) -> None:
    pristine = tmp_path / "pristine"
    shutil.copytree(memory, pristine)  # a plain copy of the closed directory: the oracle
    digests = file_digests(memory)
    duration = Worker("snapshot", memory, tmp_path / "timed").finish()
    rng = random.Random(18)
    interrupted = 0
    for i in range(KILLS):
        out = tmp_path / f"snap{i}"
        Worker("snapshot", memory, out).kill_after(rng.uniform(0.0, duration))
        if out.exists():  # killed after the rename: it must be whole
            Manifest.read(out).verify(out)
        else:
            interrupted += 1
        _side_files_only(memory, digests)
    print(f"snapshot: {interrupted}/{KILLS} kills inside the operation ({duration:.3f} s)")
    assert interrupted >= KILLS // 2, f"only {interrupted} kills landed inside the snapshot"

    manifest = snapshot(memory, tmp_path / "snap0-again")  # partials of a killed run are no bar
    assert manifest.participants_by_path()["memory.duckdb"].rows["memory_records"] == 300
    assert table_rows(memory) == table_rows(pristine)
    assert asyncio.run(recalled(memory)) == asyncio.run(recalled(pristine))


def test_sigkill_during_restore(memory: Path, tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    snapshot(memory, snap)
    snap_digests = file_digests(snap)
    expected_rows = table_rows(memory)
    duration = Worker("restore", snap, tmp_path / "timed").finish()
    rng = random.Random(2)
    interrupted = 0
    for i in range(KILLS):
        target = tmp_path / f"restored{i}"
        Worker("restore", snap, target).kill_after(rng.uniform(0.0, duration))
        if target.exists():
            assert table_rows(target) == expected_rows
        else:
            interrupted += 1
        assert file_digests(snap) == snap_digests
    print(f"restore: {interrupted}/{KILLS} kills inside the operation ({duration:.3f} s)")
    assert interrupted >= KILLS // 2, f"only {interrupted} kills landed inside the restore"


def test_sigkill_during_a_forced_restore_leaves_the_old_or_the_new(
    memory: Path, tmp_path: Path
) -> None:
    snap = tmp_path / "snap"
    snapshot(memory, snap)
    new_rows = table_rows(memory)
    target = tmp_path / "target"
    asyncio.run(build_memory(target, memories=3))
    old_rows = table_rows(target)
    duration = Worker("restore-force", snap, tmp_path / "timed").finish()
    rng = random.Random(3)
    outcomes = []
    for _ in range(KILLS):
        if table_rows(target) == new_rows:  # put the old content back for the next kill
            shutil.rmtree(target)
            asyncio.run(build_memory(target, memories=3))
            old_rows = table_rows(target)
        Worker("restore-force", snap, target).kill_after(rng.uniform(0.0, duration))
        rows = table_rows(target)
        assert rows in (old_rows, new_rows)
        outcomes.append("new" if rows == new_rows else "old")
    print(f"restore --force: kills left {outcomes}")
    assert "old" in outcomes
