"""HnswVectorStore keeps a filter's eligible labels per collection generation: a repeated
scoped query reads them once, and every write makes the next query read them again."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from remem.stores.hnsw import HnswVectorStore

D = 8


def vectors(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, D)).astype(np.float32)


async def test_writes_invalidate_the_cached_eligible_labels(tmp_path: Path) -> None:
    async with HnswVectorStore(tmp_path / "v") as store:
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
