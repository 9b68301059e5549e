"""The first recall after opening a store, by store: where the warm-up goes (issue #21).

Run: ``python -m benches.first_recall_probe DIR N [--reopens R]`` — builds the
``bench_recall_many`` world of N memories in ``DIR/mN`` once (``remember_many`` with the
HashingEmbedder; kept for later runs), then R times (default 2) opens the runtime, times one
``recall`` and a second one, and prints each store's first-call span: the vector store's id maps
(``labels``) and scan cache (``load_scan``, or ``vectors`` when rebuilt from DuckDB), the
episodic index's ``catch_up`` (snapshot load plus newer rows), the record store's ``get`` and the
background row-cache warm-up (``warm_rows``, which the recall does not wait for). Spans on
different threads overlap, and share two cores and the GIL, so they do not add up to the total.
The first reopen after building may write the snapshots the later ones load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benches.bench_controller import _prose_text, _queries
from remem import Runtime
from remem.controller import retrieval
from remem.embeddings import HashingEmbedder
from remem.stores.duckdb import records
from remem.stores.hnsw import scan_file, tables
from remem.stores.sqlite import episode_index

Spans = list[tuple[str, float]]


def _wrap(spans: Spans, owner: Any, name: str, label: str) -> None:
    fn: Callable[..., Any] | None = getattr(owner, name, None)
    if fn is None:  # an older remem (a before/after comparison): not there to time
        return
    if asyncio.iscoroutinefunction(fn):

        async def timed_async(*a: Any, **kw: Any) -> Any:
            start = time.perf_counter()
            try:
                return await fn(*a, **kw)
            finally:
                spans.append((label, time.perf_counter() - start))

        setattr(owner, name, timed_async)
        return

    def timed(*a: Any, **kw: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            spans.append((label, time.perf_counter() - start))

    setattr(owner, name, timed)


def instrument(spans: Spans) -> None:
    """Time the warm-up steps (process-wide: this is a probe, not a library)."""
    _wrap(spans, tables.VectorTables, "labels", "vectors: id maps (labels)")
    _wrap(spans, scan_file, "load_scan", "vectors: load_scan")
    _wrap(spans, tables.VectorTables, "vectors", "vectors: rebuild from DuckDB")
    _wrap(spans, episode_index.EpisodeIndex, "catch_up", "episodic: catch_up")
    _wrap(spans, records.DuckDBRecordStore, "_get_rows", "records: get")
    _wrap(spans, records.DuckDBRecordStore, "_warm", "records: warm (before: awaited)")
    _wrap(spans, records, "warm_rows", "records: warm_rows (background)")
    for step in ("vectors", "texts", "graph", "eligible"):
        _wrap(spans, retrieval.Retrieval, step, f"retrieval.{step}")


async def build(path: Path, n: int) -> list[str]:
    """The bench_recall_many world of ``n`` memories in ``path``; its 20 first queries."""
    rt = Runtime.open(path, embedder=HashingEmbedder())
    await rt.start()
    rng = random.Random(n)
    texts = [_prose_text(rng, i) for i in range(n)]
    for lo in range(0, n, 2_000):
        await rt.controller.remember_many(texts[lo : lo + 2_000])
    await rt.controller.writes.barrier()
    await rt.aclose()
    return _queries("prose", texts, 20, seed=1)


async def reopen(path: Path, queries: list[str], spans: Spans) -> None:
    emb = HashingEmbedder()
    vectors = await emb.embed_documents(queries[:2])
    start = time.perf_counter()
    rt = Runtime.open(path, embedder=emb)
    await rt.start()
    opened = time.perf_counter() - start
    spans.clear()
    start = time.perf_counter()
    await rt.controller.recall(queries[0], vector=vectors[0])
    first = time.perf_counter() - start
    start = time.perf_counter()
    await rt.controller.recall(queries[1], vector=vectors[1])
    second = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"open {opened:.3f} s, first recall {first:.3f} s, second {second:.3f} s, ", end="")
    print(f"max RSS {rss:.0f} MiB")
    for label, seconds in spans:
        print(f"  {label:36s} {seconds:7.3f} s")
    start = time.perf_counter()
    await rt.aclose()
    print(f"  close {time.perf_counter() - start:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("n", type=int)
    parser.add_argument("--reopens", type=int, default=2)
    args = parser.parse_args()
    path = args.directory / f"m{args.n}"
    queries_file = path.with_suffix(".queries.json")
    if not path.exists():  # built once, kept for later runs
        queries_file.write_text(json.dumps(asyncio.run(build(path, args.n))))
    queries: list[str] = json.loads(queries_file.read_text())
    spans: Spans = []
    instrument(spans)
    for _ in range(args.reopens):
        asyncio.run(reopen(path, queries, spans))


if __name__ == "__main__":
    main()
