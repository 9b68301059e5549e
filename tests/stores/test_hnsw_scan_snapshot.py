"""The scan tier's snapshot (remem.stores.hnsw.scan_file): a reopened store answers from the
saved cache without reading DuckDB's vectors, exactly as a rebuilt cache would, and a stale,
corrupt or truncated snapshot is never used."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem.models import VectorMatch
from remem.stores.hnsw import HnswConfig, HnswVectorStore, scan_file
from remem.stores.hnsw.scan import ScanCache
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
    assert list((tmp_path / "v").glob("c*.scan"))
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
    (snapshot,) = (tmp_path / "v").glob("c*.scan")
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
        assert len(list((tmp_path / "v").glob("c*.scan"))) == 1
        await store.delete_collection("big")
        assert not list((tmp_path / "v").glob("c*.scan"))


def _snapshot(path: Path) -> Path:
    (snapshot,) = path.glob("c*.scan")
    return snapshot


def _rewrite_header(snapshot: Path, change: dict[str, Any]) -> None:
    """Rewrite the header with ``change`` applied and a matching CRC (a well-formed file)."""
    raw = bytearray(snapshot.read_bytes())
    magic, length, _ = struct.unpack_from("<8sII", raw)
    header = json.loads(bytes(raw[16 : 16 + length]))
    header.update(change)
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (length - len(blob))  # same length: JSON ignores trailing spaces
    struct.pack_into("<8sII", raw, 0, magic, length, zlib.crc32(blob))
    raw[16 : 16 + length] = blob
    snapshot.write_bytes(bytes(raw))


async def _rebuilt(
    path: Path, monkeypatch: pytest.MonkeyPatch, queries: Matrix
) -> list[list[tuple[str, float]]]:
    reads = _CountedReads(monkeypatch)
    async with HnswVectorStore(path, QUANTIZED) as store:
        found = _pairs(await store.query("c", queries, k=10))
    assert reads.calls == 1  # the snapshot was refused and the cache rebuilt from DuckDB
    return found


@pytest.mark.parametrize("damage", ["wrong format", "header byte", "magic"])
async def test_a_bad_header_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    _, _, queries = _data(1)
    before = await _build(tmp_path / "v", queries)
    snapshot = _snapshot(tmp_path / "v")
    if damage == "wrong format":
        _rewrite_header(snapshot, {"format": 99})
    else:
        raw = bytearray(snapshot.read_bytes())
        raw[40 if damage == "header byte" else 3] ^= 0xFF
        snapshot.write_bytes(bytes(raw))
    assert await _rebuilt(tmp_path / "v", monkeypatch, queries) == before


async def test_a_corrupt_sampled_block_of_a_large_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test file is small; with a smaller full-check bound it is sampled like a large one.
    monkeypatch.setattr(scan_file, "FULL_CHECK_BYTES", 1024)
    monkeypatch.setattr(scan_file, "BLOCK", 256)
    _, _, queries = _data(1)
    before = await _build(tmp_path / "v", queries)
    snapshot = _snapshot(tmp_path / "v")
    raw = bytearray(snapshot.read_bytes())
    length = struct.unpack_from("<8sII", raw)[1]
    samples = json.loads(bytes(raw[16 : 16 + length]))["samples"]
    assert len(samples) == scan_file.SAMPLES
    offset, size, _ = samples[len(samples) // 2]
    raw[offset + size // 2] ^= 0x01
    snapshot.write_bytes(bytes(raw))
    assert await _rebuilt(tmp_path / "v", monkeypatch, queries) == before


async def test_verify_finds_damage_the_samples_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan_file, "FULL_CHECK_BYTES", 1024)
    monkeypatch.setattr(scan_file, "BLOCK", 256)
    _, _, queries = _data(1)
    await _build(tmp_path / "v", queries)
    snapshot = _snapshot(tmp_path / "v")
    scan_file.verify_scan(snapshot)  # an intact file passes
    raw = bytearray(snapshot.read_bytes())
    length = struct.unpack_from("<8sII", raw)[1]
    samples = json.loads(bytes(raw[16 : 16 + length]))["samples"]
    first, size, _ = samples[0]
    gap = first + size + 8  # between the first two samples
    assert gap < samples[1][0]
    raw[gap] ^= 0x01
    snapshot.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="fails its CRC"):
        scan_file.verify_scan(snapshot)


async def test_an_old_npz_snapshot_is_removed_and_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, queries = _data(1)
    before = await _build(tmp_path / "v", queries)
    snapshot = _snapshot(tmp_path / "v")
    legacy = snapshot.with_name(snapshot.name + ".npz")
    np.savez(legacy, header=np.array([1, 0, 0], dtype=np.int64))  # what format 1 wrote
    snapshot.unlink()
    assert await _rebuilt(tmp_path / "v", monkeypatch, queries) == before
    assert not legacy.exists()
    assert _snapshot(tmp_path / "v").exists()  # saved again, in the new format


async def test_a_mapped_cache_answers_as_a_fresh_build_and_survives_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, matrix, queries = _data(1)
    await _build(tmp_path / "v", queries)
    async with HnswVectorStore(tmp_path / "fresh", QUANTIZED) as fresh:
        await fresh.create_collection("c", model_name="m", dimension=D)
        await fresh.add("c", ids[40:], matrix[40:])
        expected = _pairs(await fresh.query("c", queries, k=10))
        await fresh.delete("c", ids[40:2000])
        after_delete = _pairs(await fresh.query("c", queries, k=10))
    loaded: list[ScanCache | None] = []
    real = scan_file.load_scan

    def spy(*args: Any) -> ScanCache | None:
        loaded.append(real(*args))
        return loaded[-1]

    monkeypatch.setattr(scan_file, "load_scan", spy)
    async with HnswVectorStore(tmp_path / "v", QUANTIZED) as store:
        assert _pairs(await store.query("c", queries, k=10)) == expected
        cache = loaded[0]
        assert cache is not None
        mapped = cache._matrix
        assert not mapped.flags.owndata  # a view of the map
        assert not mapped.flags.writeable
        await store.delete("c", ids[40:2000])  # enough tombstones to compact the mapped arrays
        assert _pairs(await store.query("c", queries, k=10)) == after_delete
