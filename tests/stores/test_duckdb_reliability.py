"""The DuckDB memory file under stress: shared owner, a second process, SIGKILL mid-batch."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from remem.errors import BackendError
from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
from tests.stores.factories import entity, record

ROOT = Path(__file__).resolve().parents[2]

_WRITER = """
import asyncio, sys
from tests.stores.factories import record
from remem.stores.duckdb import DuckDBRecordStore

async def main(path, first, batches, size, timeout, hold):
    async with DuckDBRecordStore(path, lock_timeout=timeout) as store:
        for b in range(batches):
            start = first + b * size
            await store.put([record(i) for i in range(start, start + size)])
            print(b, flush=True)
        if hold:
            print("holding", flush=True)
            sys.stdin.readline()

args = sys.argv[1:]
asyncio.run(main(args[0], int(args[1]), int(args[2]), int(args[3]), float(args[4]), args[5] == "1"))
"""


def _spawn(
    path: Path, first: int, batches: int, size: int, timeout: float, hold: bool
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(_WRITER),
            str(path),
            str(first),
            str(batches),
            str(size),
            str(timeout),
            "1" if hold else "0",
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


async def test_record_and_graph_stores_share_one_database(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    records, graph = DuckDBRecordStore(path), DuckDBGraphStore(str(path))
    assert records.database is graph.database
    async with records, graph:
        await records.put([record(1)])
        await graph.upsert_entities([entity("A")])
    async with DuckDBRecordStore(path) as again, DuckDBGraphStore(path) as graph2:
        assert again.database is graph2.database
        assert await again.count() == 1
        await graph.aclose()  # already closed: no effect on the others
        assert [e.id for e in await graph2.list_entities()] == ["a"]


async def test_closing_one_store_keeps_the_other_working(tmp_path: Path) -> None:
    db = DuckDBDatabase(tmp_path / "m.duckdb")
    records, graph = DuckDBRecordStore(db), DuckDBGraphStore(db)
    await records.open()
    await graph.open()
    await graph.aclose()
    await records.put([record(1)])
    assert await records.count() == 1
    await records.aclose()


async def test_second_process_gets_a_clear_lock_error(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    holder = _spawn(path, 0, 1, 10, 5.0, hold=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "0"
        assert holder.stdout.readline().strip() == "holding"
        started = time.monotonic()
        with pytest.raises(BackendError, match="in use by another process"):
            async with DuckDBRecordStore(path, lock_timeout=0.3) as store:
                await store.count()
        assert time.monotonic() - started >= 0.3
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.wait(timeout=30) == 0
    finally:
        holder.kill()
    # With the other process gone, the file opens and holds what it wrote.
    async with DuckDBRecordStore(path, lock_timeout=0.0) as store:
        assert await store.count() == 10


async def test_two_writer_processes_take_turns_and_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    procs = [_spawn(path, w * 100_000, 4, 500, 60.0, hold=False) for w in range(2)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    async with DuckDBRecordStore(path) as store:
        assert await store.count() == 2 * 4 * 500


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
async def test_sigkill_mid_batch_leaves_whole_batches(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    size = 2000
    proc = _spawn(path, 0, 1000, size, 5.0, hold=False)
    assert proc.stdout is not None
    for _ in range(3):  # three committed batches, then kill during a later one
        proc.stdout.readline()
    await asyncio.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    async with DuckDBRecordStore(path, lock_timeout=10.0) as store:
        cols = await store.lifecycle_columns()
        n = len(cols.ids)
        assert n >= 3 * size
        assert n % size == 0
        assert cols.ids == [f"rec-{i:05d}" for i in range(n)]
        await store.put([record(10**6)])  # still writable
