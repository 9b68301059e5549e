"""HnswVectorStore keeps the labels a filter selects between writes: a repeated filtered query
does not re-scan DuckDB, and every write (add, upsert, delete) makes the next one see it —
carried forward from the written rows, still without a re-scan."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from remem.errors import BackendError
from remem.stores.hnsw import HnswConfig, HnswVectorStore
from remem.stores.hnsw.tables import VectorTables


def _no_scan(*_: object) -> object:
    raise BackendError("eligible_labels was called")


@pytest.mark.parametrize("scan_threshold", [10_000, 0], ids=["scan", "hnswlib"])
async def test_filtered_queries_reuse_labels_until_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scan_threshold: int
) -> None:
    config = HnswConfig(scan_threshold=scan_threshold, exact_threshold=16)
    rng = np.random.default_rng(7)
    v = rng.standard_normal((60, 8)).astype(np.float32)
    ids = [f"{i:03d}" for i in range(60)]
    metas = [{"namespace": "a" if i % 3 == 0 else "b"} for i in range(60)]
    where = {"namespace": "a"}
    async with HnswVectorStore(tmp_path, config) as store:
        await store.create_collection("c", model_name="m", dimension=8)
        await store.add("c", ids, v, metadatas=metas)
        first = await store.query_ids("c", v[:2], k=50, where=where)
        assert {h.id for h in first[0]} == {ids[i] for i in range(0, 60, 3)}
        real = VectorTables.eligible_labels
        monkeypatch.setattr(VectorTables, "eligible_labels", _no_scan)
        again = await store.query_ids("c", v[:2], k=50, where=where)
        assert again == first
        # Another filter is never answered from this one's entry.
        with pytest.raises(BackendError, match="eligible_labels"):
            await store.query_ids("c", v[:1], k=5, where={"namespace": {"$in": ["a", "b"]}})
        monkeypatch.setattr(VectorTables, "eligible_labels", real)
        # Nor is a boolean filter answered by the number filter it equals in Python (True == 1).
        assert await store.query_ids("c", v[:1], k=5, where={"flag": 1}) == [[]]
        monkeypatch.setattr(VectorTables, "eligible_labels", _no_scan)
        with pytest.raises(BackendError, match="eligible_labels"):
            await store.query_ids("c", v[:1], k=5, where={"flag": True})
        monkeypatch.setattr(VectorTables, "eligible_labels", real)

        await store.add("c", ["new"], -v[:1], metadatas=[{"namespace": "a"}])
        assert "new" in {h.id for h in (await store.query_ids("c", -v[:1], k=3, where=where))[0]}
        await store.upsert("c", ["new"], -v[:1], metadatas=[{"namespace": "b"}])
        assert "new" not in {
            h.id for h in (await store.query_ids("c", -v[:1], k=50, where=where))[0]
        }
        await store.delete("c", ["000"])
        hits = (await store.query_ids("c", v[:1], k=50, where=where))[0]
        assert "000" not in {h.id for h in hits}
        assert len(hits) == 19


@pytest.mark.parametrize("scan_threshold", [10_000, 0], ids=["scan", "hnswlib"])
async def test_writes_carry_the_cached_labels_without_a_rescan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scan_threshold: int
) -> None:
    config = HnswConfig(scan_threshold=scan_threshold, exact_threshold=16)
    rng = np.random.default_rng(3)
    v = rng.standard_normal((40, 8)).astype(np.float32)
    ids = [f"{i:03d}" for i in range(40)]
    metas = [{"namespace": "a" if i % 2 else "b", "n": i} for i in range(40)]
    filters: list[dict[str, object]] = [
        {"namespace": "a"},
        {"$and": [{"namespace": "b"}, {"n": {"$gte": 10}}]},
    ]
    async with HnswVectorStore(tmp_path / "warm", config) as warm:
        await warm.create_collection("c", model_name="m", dimension=8)
        await warm.add("c", ids, v, metadatas=metas)
        for where in filters:
            await warm.query_ids("c", v[:1], k=40, where=where)
        monkeypatch.setattr(VectorTables, "eligible_labels", _no_scan)
        await warm.add("c", ["x", "y"], -v[:2], metadatas=[{"namespace": "a"}, {"namespace": "b"}])
        await warm.upsert("c", ["001"], v[1:2], metadatas=[{"namespace": "b", "n": 99}])
        await warm.delete("c", ["002", "y"])
        carried = [await warm.query_ids("c", v[:3], k=40, where=w) for w in filters]
        monkeypatch.undo()
        # The same rows written to a store that never cached a filter: the same answers.
        async with HnswVectorStore(tmp_path / "cold", config) as cold:
            await cold.create_collection("c", model_name="m", dimension=8)
            await cold.add("c", ids, v, metadatas=metas)
            await cold.add(
                "c", ["x", "y"], -v[:2], metadatas=[{"namespace": "a"}, {"namespace": "b"}]
            )
            await cold.upsert("c", ["001"], v[1:2], metadatas=[{"namespace": "b", "n": 99}])
            await cold.delete("c", ["002", "y"])
            fresh = [await cold.query_ids("c", v[:3], k=40, where=w) for w in filters]
    assert [[{h.id for h in q} for q in r] for r in carried] == [
        [{h.id for h in q} for q in r] for r in fresh
    ]
    assert "x" in {h.id for h in carried[0][0]}
    assert "001" in {h.id for h in carried[1][0]}
