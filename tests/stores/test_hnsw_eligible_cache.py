"""HnswVectorStore keeps a filter's eligible labels per collection generation: a repeated
scoped query reads them once, and every write brings them up to date for the next query."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from remem.stores.hnsw import HnswConfig, HnswVectorStore

D = 8


def vectors(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, D)).astype(np.float32)


@pytest.mark.parametrize("tier", ["scan", "graph"])
async def test_writes_invalidate_the_cached_eligible_labels(tmp_path: Path, tier: str) -> None:
    # "graph": hnswlib holds every collection, so a scoped query takes the exact path over it.
    config = HnswConfig(scan_threshold=0) if tier == "graph" else HnswConfig()
    async with HnswVectorStore(tmp_path / "v", config) as store:
        await store.create_collection("c", model_name="m", dimension=D)
        await store.add(
            "c",
            [f"a{i}" for i in range(20)],
            vectors(20, 1),
            metadatas=[{"namespace": "A"}] * 20,
        )
        where = {"namespace": {"$in": ["B"]}}
        query = vectors(1, 2)[0]
        assert await store.query("c", query, k=5, where=where) == [[]]
        in_a = await store.query("c", query, k=3, where={"namespace": "A"})
        assert in_a == await store.query("c", query, k=3, where={"namespace": "A"})
        assert len(in_a[0]) == 3
        await store.add("c", ["b0"], vectors(1, 3), metadatas=[{"namespace": "B"}])
        assert [m.id for m in (await store.query("c", query, k=5, where=where))[0]] == ["b0"]
        # Same filter, 1 vs True vs 1.0: distinct filters, never one cache entry.
        await store.add("c", ["t"], vectors(1, 4), metadatas=[{"namespace": "B", "flag": True}])
        flag_true = await store.query("c", query, k=5, where={"flag": True})
        flag_one = await store.query("c", query, k=5, where={"flag": 1})
        assert [m.id for m in flag_true[0]] == ["t"]
        assert flag_one == [[]]
        await store.delete("c", ["b0"])
        assert [m.id for m in (await store.query("c", query, k=5, where=where))[0]] == ["t"]
        await store.upsert("c", ["t"], vectors(1, 5), metadatas=[{"namespace": "A"}])
        assert await store.query("c", query, k=5, where=where) == [[]]
