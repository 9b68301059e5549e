"""BM25 top-k over a CSR postings index: native kernel, numpy, pure-Python reference.

Groups "bm25 1q N" (one query) and "bm25 64q N" (a batch of 64), N = 10k and 100k documents;
k = 10. Corpus (fixed seed): documents of 8-40 tokens drawn from a 20k-term Zipf(1.1) vocabulary
— chat-like, a few very common terms; queries of 2-6 terms drawn from the same distribution,
so most queries hold a common term and read thousands of postings (the case that makes FTS5
slow). The index and the idf are built outside the timed part.

numpy: per query term, the postings' contributions are added into a dense float64 accumulator
(``acc[docs] += ...``; documents are unique within a term), then ``argpartition`` over the
touched documents and a sort of the best k. The pure-Python reference runs one query, one round
(pedantic), at both sizes. ``correct``: the first k documents equal the reference's (1q) or
each query's single-query native result (64q), and numpy's equal native's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from remem.kernels import bm25
from remem.reference import bm25 as ref

K = 10
SIZES = [10_000, 100_000]
VOCAB = 20_000

Index = tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.uint32], NDArray[np.uint32]]
Query = tuple[NDArray[np.int64], NDArray[np.float64]]


@functools.cache
def corpus(n: int) -> tuple[Index, float, list[Query]]:
    rng = np.random.default_rng(n)
    p = 1.0 / np.arange(1, VOCAB + 1) ** 1.1
    p /= p.sum()
    lengths = rng.integers(8, 41, size=n)
    ids = rng.choice(VOCAB, size=int(lengths.sum()), p=p)
    doc_of = np.repeat(np.arange(n), lengths)
    keys, tfs = np.unique(ids * n + doc_of, return_counts=True)
    terms = keys // n
    offsets = np.zeros(VOCAB + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=VOCAB), out=offsets[1:])
    index: Index = (
        offsets,
        (keys - terms * n).astype(np.int32),
        tfs.astype(np.uint32),
        lengths.astype(np.uint32),
    )
    df = np.diff(offsets)
    queries: list[Query] = []
    for _ in range(64):
        q = rng.choice(VOCAB, size=int(rng.integers(2, 7)), p=p).astype(np.int64)
        idf = np.array([bm25.fts5_idf(n, int(df[t])) for t in q])
        queries.append((q, idf))
    return index, float(lengths.mean()), queries


def numpy_one(index: Index, query: Query, avgdl: float) -> NDArray[np.int64]:
    offsets, docs, tfs, lengths = index
    acc = np.zeros(len(lengths))
    hit = np.zeros(len(lengths), dtype=bool)
    for t, w in zip(*query, strict=True):
        lo, hi = offsets[t], offsets[t + 1]
        d = docs[lo:hi]
        f = tfs[lo:hi].astype(np.float64)
        acc[d] += w * ((f * 2.2) / (f + 1.2 * (0.25 + 0.75 * lengths[d] / avgdl)))
        hit[d] = True
    cand = np.flatnonzero(hit)
    s = acc[cand]
    if len(cand) > K:
        part = np.argpartition(-s, K - 1)[:K]
        cand, s = cand[part], s[part]
    return cand[np.lexsort((cand, -s))].astype(np.int64)


def _lists(index: Index) -> tuple[list[int], list[int], list[int], list[int]]:
    return index[0].tolist(), index[1].tolist(), index[2].tolist(), index[3].tolist()


def run(benchmark: Any, impl: str, n: int, nq: int) -> None:
    index, avgdl, queries = corpus(n)
    batch = queries[:nq]
    benchmark.group = f"bm25 {nq}q {n // 1000}k"
    fn: Callable[[], list[NDArray[np.int64]]]
    if impl == "native":
        fn = lambda: [d for d, _ in bm25.bm25_top_k_many(*index, batch, avgdl=avgdl, k=K)]  # noqa: E731
    elif impl == "numpy":
        fn = lambda: [numpy_one(index, q, avgdl) for q in batch]  # noqa: E731
    else:
        lists = _lists(index)
        q = [(t.tolist(), w.tolist()) for t, w in batch]
        fn = lambda: [  # noqa: E731
            np.asarray(ref.bm25_top_k(*lists, t, w, avgdl=avgdl, k=K)[0], dtype=np.int64)
            for t, w in q
        ]
        got = benchmark.pedantic(fn, rounds=1, iterations=1)
        want = [bm25.bm25_top_k(*index, *qq, avgdl=avgdl, k=K)[0] for qq in batch]
        benchmark.extra_info["correct"] = all(
            g[:K].tolist() == w[:K].tolist() for g, w in zip(got, want, strict=True)
        )
        return
    got = benchmark(fn)
    native = [bm25.bm25_top_k(*index, *qq, avgdl=avgdl, k=K)[0] for qq in batch]
    lists = _lists(index)
    t0, w0 = batch[0]
    first = ref.bm25_top_k(*lists, t0.tolist(), w0.tolist(), avgdl=avgdl, k=K)[0]
    ok = native[0][:K].tolist() == first[:K] and all(
        g[:K].tolist() == w[:K].tolist() for g, w in zip(got, native, strict=True)
    )
    benchmark.extra_info["correct"] = bool(ok)
    benchmark.extra_info["postings_read"] = int(
        sum(int(index[0][t + 1] - index[0][t]) for qq in batch for t in qq[0])
    )


@pytest.mark.parametrize("impl", ["native", "numpy", "reference"])
@pytest.mark.parametrize("n", SIZES, ids=lambda n: f"{n // 1000}k")
def test_bm25_one_query(benchmark: Any, impl: str, n: int) -> None:
    run(benchmark, impl, n, 1)


@pytest.mark.parametrize("impl", ["native", "numpy"])
@pytest.mark.parametrize("n", SIZES, ids=lambda n: f"{n // 1000}k")
def test_bm25_batch_64(benchmark: Any, impl: str, n: int) -> None:
    run(benchmark, impl, n, 64)
