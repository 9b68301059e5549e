"""The scan tier's snapshot (remem.stores.hnsw.scan_file): a reopened store answers from the
saved cache without reading DuckDB's vectors, exactly as a rebuilt cache would, and a stale,
corrupt or truncated snapshot is never used."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem.models import VectorMatch
from remem.stores.hnsw import HnswConfig, HnswVectorStore, scan_file
from remem.stores.hnsw.tables import VectorTables

Matrix = np.ndarray[Any, np.dtype[np.float32]]
N, D = scan_file.MIN_ROWS + 500, 16
QUANTIZED = HnswConfig(exact_threshold=0)  # every query through the int8 scan + rescoring


def _data(seed: int) -> tuple[list[str], Matrix, Matrix]:
    rng = np.random.default_rng(seed)
    data = rng.standard_normal((N + 20, D)).astype(np.float32)
    return [f"v{i:05d}" for i in range(N)], data[:N], data[N:]


def _pairs(found: list[list[VectorMatch]]) -> list[list[tuple[str, float]]]:
    return [[(m.id, m.score) for m in row] for row in found]


class _CountedReads:
    """Counts VectorTables.vectors calls (the full columnar read the snapshot avoids)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = VectorTables.vectors

        def counted(tables: VectorTables, cid: int, dimension: int) -> Any:
            self.calls += 1
            return real(tables, cid, dimension)

        monkeypatch.setattr(VectorTables, "vectors", counted)


async def _build(path: Path, queries: Matrix) -> list[list[tuple[str, float]]]:
    ids, matrix, _ = _data(1)
    async with HnswVectorStore(path, QUANTIZED) as store:
        await store.create_collection("c", model_name="m", dimension=D)
        await store.add("c", ids[:3000], matrix[:3000])
        await store.query("c", queries, k=10)  # the cache exists before the next write
        await store.add("c", ids[3000:], matrix[3000:])
        await store.delete("c", ids[:40])  # tombstones: the snapshot holds live rows only
        return _pairs(await store.query("c", queries, k=10))


async def test_reopen_answers_from_the_snapshot_without_reading_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, queries = _data(1)
    before = await _build(tmp_path / "v", queries)
    assert list((tmp_path / "v").glob("c*.scan.npz"))
    reads = _CountedReads(monkeypatch)
    async with HnswVectorStore(tmp_path / "v", QUANTIZED) as store:
        after = _pairs(await store.query("c", queries, k=10))
        assert await store.index_status("c") == "scan"
        assert await store.count("c") == N - 40
    assert reads.calls == 0
    assert after == before  # ids and scores bit-identical to the rebuilt cache's


async def test_a_write_after_the_snapshot_makes_it_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, queries = _data(1)
    await _build(tmp_path / "v", queries)
    # A session that writes without ever querying leaves the snapshot one generation behind.
    async with HnswVectorStore(tmp_path / "v", QUANTIZED) as store:
        await store.add("c", ["new"], queries[:1] * 10)
    reads = _CountedReads(monkeypatch)
    async with HnswVectorStore(tmp_path / "v", QUANTIZED) as store:
        top = (await store.query("c", queries[:1], k=1))[0][0]
    assert reads.calls == 1  # rebuilt from DuckDB
    assert top.id == "new"


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
async def test_a_damaged_snapshot_is_rebuilt_from_duckdb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    _, _, queries = _data(1)
    before = await _build(tmp_path / "v", queries)
    (snapshot,) = (tmp_path / "v").glob("c*.scan.npz")
    raw = snapshot.read_bytes()
    if damage == "truncate":
        snapshot.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        middle = len(raw) // 2
        snapshot.write_bytes(raw[:middle] + bytes(64) + raw[middle + 64 :])
    else:
        snapshot.write_bytes(b"")
    reads = _CountedReads(monkeypatch)
    async with HnswVectorStore(tmp_path / "v", QUANTIZED) as store:
        after = _pairs(await store.query("c", queries, k=10))
    assert reads.calls == 1
    assert after == before


async def test_small_collections_and_dropped_ones_leave_no_snapshot(tmp_path: Path) -> None:
    ids, matrix, queries = _data(2)
    async with HnswVectorStore(tmp_path / "v", QUANTIZED) as store:
        await store.create_collection("small", model_name="m", dimension=D)
        await store.add("small", ids[:100], matrix[:100])
        await store.query("small", queries, k=3)
        await store.create_collection("big", model_name="m", dimension=D)
        await store.add("big", ids, matrix)
        await store.query("big", queries, k=3)
        await store.flush()
        assert len(list((tmp_path / "v").glob("c*.scan.npz"))) == 1
        await store.delete_collection("big")
        assert not list((tmp_path / "v").glob("c*.scan.npz"))
