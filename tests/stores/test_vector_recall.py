"""Approximate search keeps recall@10 >= 0.95 with each store's DEFAULT configuration.

The collections are larger than ``exact_threshold`` so the HNSW path (hnswlib / pgvector)
answers (the default HnswVectorStore: its int8 scan tier; ``hnsw-graph``: hnswlib), and the
ground truth is exact cosine top-10 computed with numpy on the same vectors.
Two data sets: isotropic random vectors (the hardest case for a graph index: no structure,
scores concentrated) and a clustered set (closer to real embeddings, many near-ties inside a
cluster). A regression to hnswlib's default ef (10), to pgvector's default ef_search (40), or
to a metric/normalisation mismatch between the store and the ground truth drops recall far
below the bound.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from remem.models import VectorMatch
from remem.stores.hnsw import HnswConfig, HnswVectorStore
from remem.stores.postgres.vector import PgVectorConfig, PgVectorStore
from remem.stores.vector import VectorStore

N, D, K, Q = 5000, 64, 10, 50
GRAPH = HnswConfig(scan_threshold=0)  # every collection on hnswlib with its default tuning
Matrix = np.ndarray[Any, np.dtype[np.float32]]


def random_set(seed: int) -> tuple[Matrix, Matrix]:
    rng = np.random.default_rng(seed)
    data = rng.standard_normal((N + Q, D)).astype(np.float32)
    return data[:N], data[N:]


def clustered_set(seed: int) -> tuple[Matrix, Matrix]:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((50, D)).astype(np.float32) * 3
    which = rng.integers(0, len(centres), N + Q)
    data = (centres[which] + rng.standard_normal((N + Q, D))).astype(np.float32)
    return data[:N], data[N:]


def exact_top_k(matrix: Matrix, queries: Matrix) -> list[set[int]]:
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    scores = (queries / np.linalg.norm(queries, axis=1, keepdims=True)) @ unit.T
    return [set(np.argsort(-row, kind="stable")[:K].tolist()) for row in scores]


def recall_at_k(found: list[list[VectorMatch]], truth: list[set[int]]) -> float:
    hits = [
        len({int(m.id[1:]) for m in row} & want) for row, want in zip(found, truth, strict=True)
    ]
    return float(np.mean(hits)) / K


@pytest.fixture(params=["hnsw", "hnsw-graph", pytest.param("postgres", marks=pytest.mark.postgres)])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[VectorStore]:
    s: VectorStore
    if request.param == "hnsw":
        s = HnswVectorStore(tmp_path / "v")  # the default: the in-memory int8 scan tier
    elif request.param == "hnsw-graph":
        s = HnswVectorStore(tmp_path / "v", GRAPH)
    else:
        s = PgVectorStore(request.getfixturevalue("pg_dsn"))
    async with s:
        yield s


@pytest.mark.parametrize("data", [random_set, clustered_set], ids=["random", "clustered"])
async def test_default_config_recall_at_10(store: VectorStore, data: Any) -> None:
    matrix, queries = data(7)
    await store.create_collection("c", model_name="m", dimension=D)
    ids = [f"v{i:05d}" for i in range(N)]
    # Two writes: the second lands on an existing index (pgvector maintains it row by row).
    await store.add("c", ids[: N - 500], matrix[: N - 500])
    await store.add("c", ids[N - 500 :], matrix[N - 500 :])
    truth = exact_top_k(matrix, queries)
    found = await store.query("c", queries, k=K)
    recall = recall_at_k(found, truth)
    assert recall >= 0.95, f"recall@10 = {recall:.3f}"


async def test_hnsw_reloaded_index_keeps_recall(tmp_path: Path) -> None:
    """ef is a query-time setting hnswlib does not save: a reloaded index must get it back."""
    matrix, queries = random_set(11)
    ids = [f"v{i:05d}" for i in range(N)]
    async with HnswVectorStore(tmp_path / "v", GRAPH) as s:
        await s.create_collection("c", model_name="m", dimension=D)
        await s.add("c", ids, matrix)
    async with HnswVectorStore(tmp_path / "v", GRAPH) as s:
        assert await s.index_status("c") == "loaded"
        found = await s.query("c", queries, k=K)
    truth = exact_top_k(matrix, queries)
    recall = recall_at_k(found, truth)
    assert recall >= 0.95, f"recall@10 after reload = {recall:.3f}"


@pytest.mark.postgres
async def test_pg_index_built_after_bulk_load_and_rebuilt_for_big_batches(pg_dsn: str) -> None:
    """No index while exact search answers; built once past the threshold; a batch at least as
    large as the collection drops and rebuilds it; recall holds through all three."""

    matrix, queries = clustered_set(3)
    ids = [f"v{i:05d}" for i in range(N)]

    async def index_names() -> list[str]:
        async with await psycopg.AsyncConnection.connect(pg_dsn) as conn:
            cur = await conn.execute(
                "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%USING hnsw%'"
            )
            return [r[0] for r in await cur.fetchall()]

    async with PgVectorStore(pg_dsn, PgVectorConfig(exact_threshold=1000)) as s:
        await s.create_collection("c", model_name="m", dimension=D)
        await s.add("c", ids[:1000], matrix[:1000])
        assert await index_names() == []
        await s.add("c", ids[1000:2000], matrix[1000:2000])  # past the threshold: built
        assert len(await index_names()) == 1
        await s.add("c", ids[2000:N], matrix[2000:N])  # 3000 >= 2000 existing: rebuilt
        assert len(await index_names()) == 1
        found = await s.query("c", queries, k=K)
    assert recall_at_k(found, exact_top_k(matrix, queries)) >= 0.95
