"""HnswVectorStore reliability: index files missing/stale/corrupt, two processes, SIGKILL."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from remem.stores.hnsw import HnswConfig, HnswVectorStore

D = 8
CONFIG = HnswConfig(exact_threshold=0, scan_threshold=0)  # always exercise the hnswlib path


def vecs(n: int, seed: int = 0) -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.random.default_rng(seed).standard_normal((n, D)).astype(np.float32)


async def _fill(directory: Path, n: int, start: int = 0) -> None:
    async with HnswVectorStore(directory, CONFIG) as store:
        await store.create_collection("c", model_name="m", dimension=D)
        await store.add("c", [f"id{i:05d}" for i in range(start, start + n)], vecs(n, seed=start))


async def _self_hits(directory: Path, n: int) -> tuple[str, int]:
    """(index status, how many stored vectors find themselves first)."""
    v = np.concatenate([vecs(50, seed=s) for s in range(0, n, 50)])
    async with HnswVectorStore(directory, CONFIG) as store:
        status = await store.index_status("c")
        results = await store.query("c", v[:n], k=1)
        hits = sum(r[0].id == f"id{i:05d}" for i, r in enumerate(results))
        assert await store.count("c") == n
    return status, hits


async def test_saved_index_is_reused(tmp_path: Path) -> None:
    await _fill(tmp_path, 50)
    assert await _self_hits(tmp_path, 50) == ("loaded", 50)


async def test_missing_index_is_rebuilt(tmp_path: Path) -> None:
    await _fill(tmp_path, 50)
    for path in list(tmp_path.glob("c*.hnsw")):  # noqa: ASYNC240 - test setup
        path.unlink()
    assert await _self_hits(tmp_path, 50) == ("rebuilt:missing", 50)
    assert await _self_hits(tmp_path, 50) == ("loaded", 50)  # the rebuilt index was saved


async def test_stale_index_is_rebuilt(tmp_path: Path) -> None:
    await _fill(tmp_path, 50)
    old = tmp_path / "old"
    old.mkdir()
    for path in list(tmp_path.glob("c*.hnsw*")):  # noqa: ASYNC240 - test setup
        shutil.copy(path, old / path.name)
    await _fill(tmp_path, 50, start=50)  # DuckDB moves on to a newer generation
    for path in old.iterdir():
        shutil.copy(path, tmp_path / path.name)  # put the older, self-consistent index back
    assert await _self_hits(tmp_path, 100) == ("rebuilt:stale", 100)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "sidecar"])
async def test_corrupt_index_is_rebuilt(tmp_path: Path, damage: str) -> None:
    await _fill(tmp_path, 50)
    index, sidecar = tmp_path / "c1.hnsw", tmp_path / "c1.hnsw.json"
    if damage == "truncate":
        index.write_bytes(index.read_bytes()[:100])
    elif damage == "garbage":
        index.write_bytes(os.urandom(index.stat().st_size))
    else:
        sidecar.write_text("{not json")
    assert await _self_hits(tmp_path, 50) == ("rebuilt:corrupt", 50)


_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    import numpy as np
    from remem.stores.hnsw import HnswConfig, HnswVectorStore

    async def main(directory, tag, batches, timeout, hold):
        store = HnswVectorStore(directory, HnswConfig(lock_timeout=timeout))
        async with store:
            await store.create_collection("c", model_name="m", dimension=8)
            print("open", flush=True)
            for b in range(batches):
                ids = [f"{tag}-{b}-{i}" for i in range(200)]
                vecs = np.random.default_rng(b).standard_normal((200, 8)).astype(np.float32)
                await store.add("c", ids, vecs)
                print("batch", b, flush=True)
            if hold:
                print("done", flush=True)
                sys.stdin.readline()  # keep the directory open until the parent says so

    asyncio.run(
        main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1")
    )
    """
)


def _spawn(
    directory: Path, tag: str, batches: int, timeout: float, *, hold: bool = False
) -> subprocess.Popen[str]:
    args = [str(directory), tag, str(batches), str(timeout), "1" if hold else "0"]
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_are_serialised_or_refused(tmp_path: Path) -> None:
    """DuckDB allows one writer process: a second one waits (lock_timeout) or gets BackendError."""
    first = _spawn(tmp_path, "a", 40, 0.0, hold=True)
    assert first.stdout is not None
    assert first.stdout.readline().strip() == "open"
    refused = _spawn(tmp_path, "b", 5, 0.0)
    _, err = refused.communicate(timeout=60)
    assert refused.returncode != 0
    assert "BackendError" in err
    assert "another process" in err
    waiting = _spawn(tmp_path, "c", 5, 60.0)  # waits for `first` to let go, then writes
    time.sleep(1.0)
    assert waiting.poll() is None  # still waiting for the lock
    first.communicate("go\n", timeout=120)
    assert first.returncode == 0
    assert waiting.wait(timeout=120) == 0

    async def check() -> None:
        async with HnswVectorStore(tmp_path) as store:
            assert await store.count("c") == 40 * 200 + 5 * 200
            assert await store.get("c", ["b-0-0"]) == []
            assert len(await store.get("c", ["a-39-199", "c-4-199"])) == 2

    asyncio.run(check())


def test_sigkill_mid_batch_leaves_a_consistent_directory(tmp_path: Path) -> None:
    writer = _spawn(tmp_path, "k", 10_000, 0.0)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "open"
    for _ in range(5):
        writer.stdout.readline()  # a few batches committed, more in flight
    time.sleep(0.05)
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)

    async def check() -> None:
        async with HnswVectorStore(tmp_path, CONFIG) as store:
            count = await store.count("c")
            assert count >= 5 * 200
            assert count % 200 == 0  # batches are all-or-nothing
            # the index (never saved, or saved for an older generation) is detected and rebuilt
            assert (await store.index_status("c")).startswith("rebuilt:")
            last = count // 200 - 1
            probe = np.random.default_rng(last).standard_normal((200, 8)).astype(np.float32)
            [hits] = await store.query("c", probe[7], k=1)
            assert hits[0].score == pytest.approx(1.0, abs=1e-5)

    asyncio.run(check())
    con = duckdb.connect(str(tmp_path / "vectors.duckdb"))
    try:
        rows = con.execute("SELECT count(*), count(DISTINCT id) FROM items").fetchone()
        assert rows is not None
        assert rows[0] == rows[1]
    finally:
        con.close()
