"""Snapshot and restore of an embedded memory vs a plain file copy of the quiesced directory.

``copy`` is the obvious baseline: ``shutil.copytree`` of the closed (so quiesced) directory (no
checkpoint, no verification, no manifest — and not consistent if a writer were live).
``snapshot`` and ``restore`` are :mod:`remem.recovery`'s (backup API / checkpoint + copy, row
counts, sha256 of every file written and re-read, fsync, atomic rename). The memory holds
memories (vectors, full-text), turns (one per ten memories) and a graph (one entity and one
relationship per ten memories). ``extra_info`` has the sizes, the bytes of the result and a
correctness flag (row-identical to the source).

Run: pytest benches/bench_snapshot.py --benchmark-group-by=group
     REMEM_BENCH_LARGE=1 pytest benches/bench_snapshot.py -s   # the issue's 100k, one round
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.recovery.memory_dirs import open_runtime, table_rows

from remem.models import Entity, Relationship
from remem.recovery import restore, snapshot

LARGE = os.environ.get("REMEM_BENCH_LARGE") == "1"
N = 100_000 if LARGE else int(os.environ.get("REMEM_BENCH_SNAPSHOT_N", "2000"))
"""Memories in the directory; turns, entities and relationships are N / 10 each."""
ROUNDS = 1 if LARGE else 3
_BATCH = 2_000


async def build_large_memory(path: Path, memories: int) -> None:
    """Memories in batches, N/10 turns over 10 sessions, N/10 entities in a chain of
    relationships; closed at the end (so the directory is quiesced)."""
    async with open_runtime(path) as rt:
        ctl = rt.controller
        for start in range(0, memories, _BATCH):
            await ctl.remember_many(
                [
                    f"fact number {i} about cats and {i % 7} dogs in city {i % 97}"
                    for i in range(start, min(memories, start + _BATCH))
                ]
            )
        for i in range(memories // 10):
            await ctl.record_turn(f"s{i % 10}", f"Ada moved to city {i}", f"Noted, city {i}.")
        graph = (await ctl.settled()).graph
        count = memories // 10
        for start in range(0, count, _BATCH):
            ids = range(start, min(count, start + _BATCH))
            await graph.upsert_entities(
                [Entity(id=f"ent-{i}", name=f"Person {i}", entity_type="person") for i in ids]
            )
        for start in range(0, count - 1, _BATCH):
            ids = range(start, min(count - 1, start + _BATCH))
            await graph.add_relationships(
                [
                    Relationship(
                        id=f"rel-{i}",
                        source_id=f"ent-{i}",
                        target_id=f"ent-{i + 1}",
                        relation_type="knows",
                    )
                    for i in ids
                ]
            )


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("snapshot-bench")
    memory = root / "memory"
    start = time.perf_counter()
    asyncio.run(build_large_memory(memory, memories=N))
    print(f"\nbuilt {N:,} memories in {time.perf_counter() - start:.1f} s")
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
    benchmark.extra_info["turns"] = N // 10
    benchmark.extra_info["entities"] = N // 10
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1)
    last = outs[-1]
    benchmark.extra_info["bytes"] = _bytes(last)
    benchmark.extra_info["source_bytes"] = _bytes(memory)
    benchmark.extra_info["correct"] = bool(table_rows(last) == table_rows(memory))
    # With --benchmark-disable (CI runs every bench once) there are no stats to print.
    mean = f"{benchmark.stats.stats.mean:.2f} s" if benchmark.stats else "untimed"
    print(
        f"\n{operation}: {mean}, {_bytes(last):,} bytes "
        f"(source {_bytes(memory):,}), correct={benchmark.extra_info['correct']}"
    )
    for out in outs:
        shutil.rmtree(out)
