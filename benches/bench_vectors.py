"""Vector stores: ingest and query latency on precomputed 384-d random vectors.

Sizes: 10k by default (fits the CI budget with --benchmark-disable); ``REMEM_BENCH_LARGE=1``
runs the brief's 100k. Ingest is a bulk import: one ``add`` of all precomputed vectors
(pgvector then builds its HNSW index once, after the COPY). Baseline id ``numpy``: brute-force
matvec + argpartition over the same unit-normalised matrix (cosine, the stores' default metric).
``chroma`` runs only when chromadb is importable. Query groups report p50/p99 (ms) of a separate
timed loop and recall@10 in ``extra_info`` and mark ``correct`` when recall@10 against exact
cosine search is at least 0.95 (exact for ``numpy``).

``hnsw`` runs HnswVectorStore's default configuration: at these sizes (below
``scan_threshold``) its in-memory int8 scan with exact rescoring answers, and no hnswlib graph is
built. Isotropic random 384-d vectors are the worst case for graph indexes (the 10th and the 1000th
neighbour score within 0.1 of each other); read the recall next to the latency.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import psycopg
import pytest

from remem.stores.hnsw import HnswVectorStore
from remem.stores.postgres.vector import PgVectorStore
from remem.stores.vector import VectorStore

N = 100_000 if os.environ.get("REMEM_BENCH_LARGE") == "1" else 10_000
D, K, Q = 384, 10, 100
BATCH = N
HAVE_CHROMA = importlib.util.find_spec("chromadb") is not None
BACKENDS = ["hnsw", "postgres", *(["chroma"] if HAVE_CHROMA else [])]
_db_counter = itertools.count()


def _data() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], list[str]]:
    rng = np.random.default_rng(1234)
    matrix = rng.standard_normal((N, D)).astype(np.float32)
    queries = rng.standard_normal((Q, D)).astype(np.float32)
    return matrix, queries, [f"m{i:06d}" for i in range(N)]


MATRIX, QUERIES, IDS = _data()
UNIT = MATRIX / np.linalg.norm(MATRIX, axis=1, keepdims=True)


def numpy_top_k(q: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    scores = UNIT @ (q / np.linalg.norm(q))
    top = np.argpartition(-scores, K)[:K]
    return top[np.argsort(-scores[top], kind="stable")]


EXACT = [set(numpy_top_k(q).tolist()) for q in QUERIES]


class _Backend:
    """Drives one store (or chromadb) from synchronous benchmark code on a private loop."""

    def __init__(self, kind: str, root: Path, server: str) -> None:
        self.kind, self.root, self.pg_server = kind, root, server
        self.loop = asyncio.new_event_loop()
        self.store: VectorStore | None = None
        self.chroma: Any = None
        self.dsn = ""

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def fresh(self) -> None:
        self.close()
        if self.kind == "hnsw":
            shutil.rmtree(self.root, ignore_errors=True)
            self.store = HnswVectorStore(self.root)
        elif self.kind == "postgres":
            name = f"remem_bench_{os.getpid()}_{next(_db_counter)}"
            with psycopg.connect(self.pg_server, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            self.dsn = urlunsplit(urlsplit(self.pg_server)._replace(path=f"/{name}"))
            self.store = PgVectorStore(self.dsn)
        else:
            import chromadb  # type: ignore[import-not-found,unused-ignore]

            shutil.rmtree(self.root, ignore_errors=True)
            client = chromadb.PersistentClient(path=str(self.root))
            self.chroma = client.create_collection("remem-bench", metadata={"hnsw:space": "cosine"})
            return
        store = self.store
        self.run(store.__aenter__())
        self.run(store.create_collection("c", model_name="random", dimension=D))

    def ingest(self) -> None:
        for start in range(0, N, BATCH):
            ids = IDS[start : start + BATCH]
            block = MATRIX[start : start + BATCH]
            if self.chroma is not None:
                # Chroma caps one add at its client's max_batch_size; feed it in such slices.
                step = self.chroma._client.get_max_batch_size()
                for i in range(0, len(ids), step):
                    self.chroma.add(ids=ids[i : i + step], embeddings=block[i : i + step].tolist())
            else:
                assert self.store is not None
                self.run(self.store.add("c", ids, block))

    def count(self) -> int:
        if self.chroma is not None:
            return int(self.chroma.count())
        assert self.store is not None
        return int(self.run(self.store.count("c")))

    def query(self, q: np.ndarray[Any, Any]) -> list[int]:
        if self.chroma is not None:
            res = self.chroma.query(query_embeddings=[q.tolist()], n_results=K)
            return [int(i[1:]) for i in res["ids"][0]]
        assert self.store is not None
        [hits] = self.run(self.store.query("c", q, k=K))
        return [int(h.id[1:]) for h in hits]

    def close(self) -> None:
        if self.store is not None:
            self.run(self.store.aclose())
            self.store = None
        self.chroma = None


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[_Backend]:
    server = request.getfixturevalue("pg_server") if request.param == "postgres" else ""
    root = Path(tempfile.mkdtemp(prefix="remem-bench-"))
    b = _Backend(request.param, root / "store", server)
    yield b
    b.close()
    b.loop.close()
    shutil.rmtree(root, ignore_errors=True)


def test_ingest(benchmark: Any, backend: _Backend) -> None:
    benchmark.group = f"vector ingest {N}"
    benchmark.name = backend.kind
    benchmark.pedantic(backend.ingest, setup=backend.fresh, rounds=1, iterations=1)
    benchmark.extra_info["correct"] = bool(backend.count() == N)


def _percentiles(fn: Callable[[np.ndarray[Any, Any]], object]) -> dict[str, float]:
    times = []
    for q in QUERIES:
        start = time.perf_counter()
        fn(q)
        times.append((time.perf_counter() - start) * 1000)
    return {"p50_ms": float(np.percentile(times, 50)), "p99_ms": float(np.percentile(times, 99))}


def _recall(fn: Callable[[np.ndarray[Any, Any]], list[int]]) -> float:
    return float(np.mean([len(set(fn(q)) & EXACT[i]) / K for i, q in enumerate(QUERIES)]))


def test_query_numpy(benchmark: Any) -> None:
    benchmark.group = f"vector query {N}"
    benchmark.name = "numpy"
    cycle = itertools.cycle(QUERIES)
    benchmark(lambda: numpy_top_k(next(cycle)))
    benchmark.extra_info.update(_percentiles(numpy_top_k))
    benchmark.extra_info["correct"] = _recall(lambda q: numpy_top_k(q).tolist()) == 1.0


def test_query(benchmark: Any, backend: _Backend) -> None:
    """Runs after test_ingest on the same module-scoped backend (ingests itself if needed)."""
    if backend.store is None and backend.chroma is None:
        backend.fresh()
        backend.ingest()
    benchmark.group = f"vector query {N}"
    benchmark.name = backend.kind
    cycle = itertools.cycle(QUERIES)
    benchmark(lambda: backend.query(next(cycle)))
    recall = _recall(backend.query)
    benchmark.extra_info.update(_percentiles(backend.query))
    benchmark.extra_info["recall_at_10"] = recall
    benchmark.extra_info["correct"] = recall >= 0.95
