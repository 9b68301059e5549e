"""HnswVectorStore.query_ids answers from memory: no DuckDB row read on any search path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from remem.errors import BackendError
from remem.stores.hnsw import HnswConfig, HnswVectorStore
from remem.stores.hnsw.tables import VectorTables


def _no_row_reads(*_: object) -> object:
    raise BackendError("rows_by_label was called")


@pytest.mark.parametrize("scan_threshold", [10_000, 0], ids=["scan", "hnswlib"])
async def test_query_ids_reads_no_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scan_threshold: int
) -> None:
    config = HnswConfig(scan_threshold=scan_threshold, exact_threshold=16)
    v = np.random.default_rng(5).standard_normal((200, 8)).astype(np.float32)
    async with HnswVectorStore(tmp_path, config) as store:
        await store.create_collection("c", model_name="m", dimension=8)
        await store.add("c", [f"{i:03d}" for i in range(200)], v, documents=["d"] * 200)
        expected = await store.query("c", v[:3], k=7)
        monkeypatch.setattr(VectorTables, "rows_by_label", _no_row_reads)
        got = await store.query_ids("c", v[:3], k=7)
        assert [[(h.id, h.score) for h in r] for r in got] == [
            [(m.id, m.score) for m in r] for r in expected
        ]
        # A query for hits not yet in the row cache does read rows: the patch is in force.
        with pytest.raises(BackendError, match="rows_by_label"):
            await store.query("c", -v[:1], k=7)
        assert len((await store.query_ids("c", -v[:1], k=7))[0]) == 7
