"""Snapshot and restore of an embedded memory vs a plain file copy of the closed directory.

``copy`` is the obvious baseline: ``shutil.copytree`` of the closed directory (no checkpoint,
no verification, no manifest — and not consistent if a writer were live). ``snapshot`` and
``restore`` are :mod:`remem.recovery`'s (backup API / checkpoint + copy, row counts, sha256 of
every file written and re-read, fsync, atomic rename). ``extra_info`` has the memories, the bytes
copied and a correctness flag (row-identical to the source).

Run: pytest benches/bench_snapshot.py --benchmark-group-by=group
     REMEM_BENCH_SNAPSHOT_N=100000 pytest benches/bench_snapshot.py   # the issue's size
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.recovery.memory_dirs import build_memory, table_rows

from remem.recovery import restore, snapshot

N = int(os.environ.get("REMEM_BENCH_SNAPSHOT_N", "2000"))
"""Memories in the directory (plus 5 turns); small by default."""
ROUNDS = 3


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("snapshot-bench")
    memory = root / "memory"
    asyncio.run(build_memory(memory, memories=N))
    snapshot(memory, root / "snap")
    return memory, root


def _bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


@pytest.mark.parametrize("operation", ["snapshot", "restore", "copy"])
def test_snapshot(benchmark: Any, source: tuple[Path, Path], operation: str) -> None:
    memory, root = source
    counter = itertools.count()
    outs: list[Path] = []

    def run() -> None:
        out = root / f"{operation}-{next(counter)}"
        outs.append(out)
        ops: dict[str, Callable[[], object]] = {
            "snapshot": lambda: snapshot(memory, out),
            "restore": lambda: restore(root / "snap", out),
            "copy": lambda: shutil.copytree(memory, out),
        }
        ops[operation]()

    benchmark.group = f"snapshot-{N}"
    benchmark.extra_info["memories"] = N
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1)
    last = outs[-1]
    benchmark.extra_info["bytes"] = _bytes(last)
    benchmark.extra_info["correct"] = bool(table_rows(last) == table_rows(memory))
    for out in outs:
        shutil.rmtree(out)
