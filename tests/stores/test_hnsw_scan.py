"""HnswVectorStore's scan tier: recall, cache coherence across writes and reopen, filters, ties."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem.models import VectorMatch
from remem.stores.hnsw import HnswConfig, HnswVectorStore

Matrix = np.ndarray[Any, np.dtype[np.float32]]
QUANTIZED = HnswConfig(exact_threshold=0)  # every query through the int8 scan + rescoring


def unit(m: Matrix) -> Matrix:
    out: Matrix = m / np.linalg.norm(m, axis=-1, keepdims=True)
    return out


def brute_force(live: dict[str, Matrix], q: Matrix, k: int) -> list[tuple[str, float]]:
    ids = sorted(live)
    scores = unit(np.stack([live[i] for i in ids])) @ unit(q)
    order = sorted(range(len(ids)), key=lambda j: (-scores[j], ids[j]))[:k]
    return [(ids[j], float(scores[j])) for j in order]


def assert_matches(hits: list[VectorMatch], want: list[tuple[str, float]]) -> None:
    assert [h.id for h in hits] == [w[0] for w in want]
    np.testing.assert_allclose([h.score for h in hits], [w[1] for w in want], rtol=0, atol=1e-5)


async def test_recall_at_10_on_random_384d(tmp_path: Path) -> None:
    n, d, q = 20_000, 384, 50
    rng = np.random.default_rng(5)
    data = rng.standard_normal((n + q, d)).astype(np.float32)
    matrix, queries = data[:n], data[n:]
    async with HnswVectorStore(tmp_path / "v") as store:
        await store.create_collection("c", model_name="m", dimension=d)
        await store.add("c", [f"v{i:05d}" for i in range(n)], matrix)
        found = await store.query("c", queries, k=10)
        assert await store.index_status("c") == "scan"
    truth = np.argsort(-(unit(queries) @ unit(matrix).T), axis=1, kind="stable")[:, :10]
    pairs = zip(found, truth, strict=True)
    hits = [len({int(m.id[1:]) for m in row} & set(t.tolist())) for row, t in pairs]
    assert np.mean(hits) / 10 >= 0.99
    names = [p.name for p in (tmp_path / "v").iterdir()]
    assert not [n for n in names if ".hnsw" in n]  # no hnswlib index was built or saved


async def test_recall_at_30_with_the_scan_pool_on_clustered_384d(tmp_path: Path) -> None:
    """Recall's depth (30 rows, 31 fetched) scans with a pool of 4 × the rows fetched (124
    here, not the kernel's default 310: ``remem.stores.hnsw.scan.POOL_FACTOR``), and still
    finds the exact top 30 on clustered data with queries away from the points."""
    n, d, q = 10_000, 384, 60
    rng = np.random.default_rng(11)
    centres = rng.standard_normal((40, d)).astype(np.float32)
    matrix = centres[rng.integers(0, 40, n)] + 0.4 * rng.standard_normal((n, d)).astype(np.float32)
    queries = matrix[rng.integers(0, n, q)] + 1.5 * rng.standard_normal((q, d)).astype(np.float32)
    async with HnswVectorStore(tmp_path / "v") as store:
        await store.create_collection("c", model_name="m", dimension=d)
        await store.add("c", [f"v{i:05d}" for i in range(n)], matrix)
        found = await store.query("c", queries, k=30)
        assert await store.index_status("c") == "scan"
    truth = np.argsort(-(unit(queries) @ unit(matrix).T), axis=1, kind="stable")[:, :30]
    pairs = zip(found, truth, strict=True)
    hits = [len({int(m.id[1:]) for m in row} & set(t.tolist())) for row, t in pairs]
    assert np.mean(hits) / 30 >= 0.99


async def test_cache_follows_add_upsert_delete_and_reopen(tmp_path: Path) -> None:
    d, rng = 16, np.random.default_rng(9)
    live: dict[str, Matrix] = {}
    queries = rng.standard_normal((5, d)).astype(np.float32)

    async def check(store: HnswVectorStore) -> None:
        results = await store.query("c", queries, k=7)
        for q, hits in zip(queries, results, strict=True):
            assert_matches(hits, brute_force(live, q, 7))
        assert await store.count("c") == len(live)

    async with HnswVectorStore(tmp_path / "v", QUANTIZED) as store:
        await store.create_collection("c", model_name="m", dimension=d)
        ids = [f"a{i:04d}" for i in range(1500)]
        v = rng.standard_normal((1500, d)).astype(np.float32)
        await store.add("c", ids, v)
        live.update(zip(ids, v, strict=True))
        await check(store)  # builds the cache
        more = [f"b{i:04d}" for i in range(700)]  # grows past the first capacity
        v = rng.standard_normal((700, d)).astype(np.float32)
        await store.add("c", more, v)
        live.update(zip(more, v, strict=True))
        await check(store)
        # Upsert: make some items the exact answer to the first query, replace others.
        moved = ids[::50] + [f"new{i}" for i in range(3)]
        v = rng.standard_normal((len(moved), d)).astype(np.float32)
        v[:4] = queries[0] * np.arange(1, 5, dtype=np.float32)[:, None]
        await store.upsert("c", moved, v)
        live.update(zip(moved, v, strict=True))
        await check(store)
        assert {h.id for h in (await store.query("c", queries[0], k=4))[0]} == set(moved[:4])
        # Delete over a quarter of the rows: tombstones, then a compaction.
        gone = [*ids[::2], "missing"]
        assert await store.delete("c", gone) == len(gone) - 1
        for item_id in gone[:-1]:
            live.pop(item_id)
        await check(store)
        assert await store.delete("c", more[:5]) == 5
        for item_id in more[:5]:
            live.pop(item_id)
        await check(store)
    async with HnswVectorStore(tmp_path / "v", QUANTIZED) as store:
        await check(store)  # rebuilt from DuckDB alone


@pytest.mark.parametrize("exact_threshold", [0, 2048])
async def test_filtered_queries_through_the_tier(tmp_path: Path, exact_threshold: int) -> None:
    n, d = 3000, 12
    rng = np.random.default_rng(3)
    v = rng.standard_normal((n, d)).astype(np.float32)
    ids = [f"{i:05d}" for i in range(n)]
    metas: list[dict[str, object]] = [{"g": i % 3, "rare": i % 500 == 0} for i in range(n)]
    config = HnswConfig(exact_threshold=exact_threshold)
    async with HnswVectorStore(tmp_path / "v", config) as store:
        await store.create_collection("c", model_name="m", dimension=d)
        await store.add("c", ids, v, metadatas=metas)
        await store.delete("c", ids[:30])  # tombstones must stay out of filtered results
        q = rng.standard_normal((3, d)).astype(np.float32)
        for where, key in (({"g": 1}, "g"), ({"rare": True}, "rare")):
            wanted = {
                ids[i]: v[i] for i in range(30, n) if metas[i][key] == next(iter(where.values()))
            }
            for k in (1, 10, 200):
                results = await store.query("c", q, k=k, where=where)
                for row, hits in zip(q, results, strict=True):
                    assert_matches(hits, brute_force(wanted, row, k))


def _noise_and_twins(
    rng: np.random.Generator, n: int, d: int = 8
) -> tuple[Matrix, Matrix, list[str], list[str]]:
    """(the twins' direction, n noise rows, their ids, 40 twin ids in reverse order: stored,
    and so labelled, in reverse, so a tie must be broken by id, not by label)."""
    same = np.ones(d, dtype=np.float32)
    noise = rng.standard_normal((n, d)).astype(np.float32)
    ids = [f"n{i:03d}" for i in range(n)]
    return same, noise, ids, [f"t{i:02d}" for i in reversed(range(40))]


async def _fill(
    s: HnswVectorStore, ids: list[str], noise: Matrix, twins: list[str], twin_rows: Matrix
) -> None:
    await s.create_collection("c", model_name="m", dimension=noise.shape[1])
    await s.add("c", ids, noise)
    await s.add("c", twins, twin_rows)


@pytest.mark.parametrize("exact_threshold", [0, 2048])
async def test_ties_across_the_kth_place_go_to_the_lower_id(
    tmp_path: Path, exact_threshold: int
) -> None:
    rng = np.random.default_rng(1)
    same, noise, ids, twins = _noise_and_twins(rng, 500)
    async with HnswVectorStore(tmp_path / "v", HnswConfig(exact_threshold=exact_threshold)) as s:
        await _fill(s, ids, noise, twins, np.tile(same, (40, 1)) * np.float32(2))
        [hits] = await s.query("c", same, k=5)
    assert [h.id for h in hits] == [f"t{i:02d}" for i in range(5)]
    assert len({h.score for h in hits}) == 1
    assert hits[0].score == pytest.approx(1.0)


@pytest.mark.parametrize("exact_threshold", [0, 2048])
async def test_a_batch_widens_only_its_tied_queries_and_equals_one_at_a_time(
    tmp_path: Path, exact_threshold: int
) -> None:
    rng = np.random.default_rng(3)
    same, noise, ids, twins = _noise_and_twins(rng, 600)
    # A batch of tied queries (the twins' direction) and untied ones (random directions).
    queries = np.stack([same, *rng.standard_normal((5, len(same))).astype(np.float32), same * 3])
    async with HnswVectorStore(tmp_path / "v", HnswConfig(exact_threshold=exact_threshold)) as s:
        await _fill(s, ids, noise, twins, np.tile(same, (40, 1)))
        batch = await s.query("c", queries, k=5)
        alone = [(await s.query("c", q, k=5))[0] for q in queries]
    assert [[h.id for h in hits] for hits in batch] == [[h.id for h in hits] for hits in alone]
    assert [h.id for h in batch[0]] == [f"t{i:02d}" for i in range(5)] == [h.id for h in batch[-1]]
    live = dict(zip(ids + twins, [*noise, *np.tile(same, (40, 1))], strict=True))
    for q, hits in zip(queries[1:-1], batch[1:-1], strict=True):
        assert_matches(hits, brute_force(live, q, 5))


async def test_crossing_scan_threshold_switches_to_hnswlib_and_back(tmp_path: Path) -> None:
    d = 8
    rng = np.random.default_rng(2)
    v = rng.standard_normal((300, d)).astype(np.float32)
    ids = [f"{i:03d}" for i in range(300)]
    config = HnswConfig(exact_threshold=0, scan_threshold=200)
    async with HnswVectorStore(tmp_path / "v", config) as store:
        await store.create_collection("c", model_name="m", dimension=d)
        await store.add("c", ids[:150], v[:150])
        assert await store.index_status("c") == "scan"
        await store.query("c", v[0], k=3)
        await store.add("c", ids[150:], v[150:])  # 300 > 200: hnswlib takes over
        assert await store.index_status("c") == "new"
        [hits] = await store.query("c", v[250], k=1)
        assert hits[0].id == ids[250]
        await store.delete("c", ids[:150])  # back under: the scan tier answers again
        live = dict(zip(ids[150:], v[150:], strict=True))
        [hits] = await store.query("c", v[7], k=5)
        assert_matches(hits, brute_force(live, v[7], 5))
    async with HnswVectorStore(tmp_path / "v", config) as store:
        assert await store.index_status("c") == "scan"
        [hits] = await store.query("c", v[7], k=5)
        assert_matches(hits, brute_force(live, v[7], 5))
