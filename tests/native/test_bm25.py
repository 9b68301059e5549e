"""BM25 top-k: native (remem._native / remem.kernels.bm25) against the pure-Python reference, a
brute-force scorer over the raw documents, and SQLite FTS5's own bm25()."""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import _native
from remem.errors import (
    DTypeError,
    InvalidArgumentError,
    LayoutError,
    NonFiniteError,
    ShapeError,
)
from remem.kernels import bm25
from remem.reference import bm25 as ref

Docs = list[list[int]]  # each document: its term ids, in order (repeats = term frequency)


def csr(docs: Docs, n_terms: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """(offsets, docs, tfs, doc_lengths) of token-id documents, built the obvious way."""
    postings: list[list[tuple[int, int]]] = [[] for _ in range(n_terms)]
    for d, tokens in enumerate(docs):
        for t, tf in sorted(Counter(tokens).items()):
            postings[t].append((d, tf))
    offsets = [0]
    for p in postings:
        offsets.append(offsets[-1] + len(p))
    flat = [x for p in postings for x in p]
    return offsets, [d for d, _ in flat], [tf for _, tf in flat], [len(t) for t in docs]


def brute_force(
    docs: Docs, terms: list[int], idf: list[float], avgdl: float, k: int, mask: list[bool] | None
) -> tuple[list[int], list[float]]:
    """Score every document from its raw tokens, sort everything, cut at k plus ties. The
    arithmetic is FTS5's, operation for operation (so mathematically tied scores stay tied)."""
    scored = []
    for d, tokens in enumerate(docs):
        counts = Counter(tokens)
        if (mask is not None and not mask[d]) or not any(counts[t] for t in terms):
            continue
        s = 0.0
        for t, w in zip(terms, idf, strict=True):
            f = float(counts[t])
            s += w * ((f * (1.2 + 1.0)) / (f + 1.2 * ((1 - 0.75) + 0.75 * len(tokens) / avgdl)))
        scored.append((s, d))
    scored.sort(key=lambda x: (-x[0], x[1]))
    if k == 0:
        return [], []
    if len(scored) > k:
        cut = scored[k - 1][0]
        scored = [x for i, x in enumerate(scored) if i < k or x[0] == cut]
    return [d for _, d in scored], [s for s, _ in scored]


@st.composite
def cases(draw: Any) -> tuple[Docs, int, list[int], int, list[bool] | None]:
    n_terms = draw(st.integers(1, 6))
    # Few terms and short documents: many exact score ties (equal tf and length).
    docs = draw(st.lists(st.lists(st.integers(0, n_terms - 1), max_size=6), max_size=30))
    terms = draw(st.lists(st.integers(0, n_terms - 1), max_size=5))  # duplicates allowed
    k = draw(st.integers(0, 35))
    mask = draw(st.none() | st.lists(st.booleans(), min_size=len(docs), max_size=len(docs)))
    return docs, n_terms, terms, k, mask


def fts5_weights(docs: Docs, terms: list[int]) -> tuple[list[float], float]:
    """FTS5's idf for each query term and avgdl (1.0 when there are no tokens)."""
    n = len(docs)
    dfs = [sum(t in d for d in docs) for t in terms]
    tokens = sum(len(d) for d in docs)
    return [bm25.fts5_idf(n, df) for df in dfs], (tokens / n if tokens else 1.0)


@settings(max_examples=150, deadline=None)
@given(case=cases())
def test_native_equals_reference_and_brute_force(
    case: tuple[Docs, int, list[int], int, list[bool] | None],
) -> None:
    docs, n_terms, terms, k, mask = case
    index = csr(docs, n_terms)
    idf, avgdl = fts5_weights(docs, terms)
    got_docs, got_scores = bm25.bm25_top_k(*index, terms, idf, avgdl=avgdl, k=k, mask=mask)
    want_docs, want_scores = ref.bm25_top_k(*index, terms, idf, avgdl=avgdl, k=k, mask=mask)
    assert got_docs.dtype == np.int64
    assert got_scores.dtype == np.float64
    # Same float operations in the same order: bit-identical, not merely close.
    assert got_docs.tolist() == want_docs
    assert got_scores.tolist() == want_scores
    assert (got_docs.tolist(), got_scores.tolist()) == brute_force(docs, terms, idf, avgdl, k, mask)
    # Invariants: sorted, at most k unless tied with the k-th, only docs holding a query term.
    pairs = list(zip(got_scores.tolist(), got_docs.tolist(), strict=True))
    assert pairs == sorted(pairs, key=lambda x: (-x[0], x[1]))
    if len(pairs) > k:
        assert all(s == pairs[k - 1][0] for s, _ in pairs[k:])
    assert all(set(terms) & set(docs[d]) for d in got_docs.tolist())


@settings(max_examples=60, deadline=None)
@given(case=cases())
def test_equals_sqlite_fts5_bit_for_bit(
    case: tuple[Docs, int, list[int], int, list[bool] | None],
) -> None:
    docs, n_terms, terms, _, _ = case
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(t)")
    conn.executemany(
        "INSERT INTO f (rowid, t) VALUES (?, ?)",
        [(d, " ".join(f"w{t}" for t in tokens)) for d, tokens in enumerate(docs)],
    )
    if not terms or not any(docs):
        return
    match = " OR ".join(f'"w{t}"' for t in terms)
    want = conn.execute(
        "SELECT rowid, -bm25(f) FROM f WHERE f MATCH ? ORDER BY -bm25(f) DESC, rowid", (match,)
    ).fetchall()
    idf, avgdl = fts5_weights(docs, terms)
    got_docs, got_scores = bm25.bm25_top_k(*csr(docs, n_terms), terms, idf, avgdl=avgdl, k=1000)
    assert list(zip(got_docs.tolist(), got_scores.tolist(), strict=True)) == want


def test_ties_at_the_cut_are_all_returned() -> None:
    # Docs 0..4 identical ("a b"), doc 5 "a a": k = 2 gives doc 5 and all five tied docs.
    docs: Docs = [[0, 1]] * 5 + [[0, 0]]
    index = csr(docs, 2)
    got, scores = bm25.bm25_top_k(*index, [0], [1.0], avgdl=2.0, k=2)
    assert got.tolist() == [5, 0, 1, 2, 3, 4]
    assert len(set(scores[1:].tolist())) == 1
    got, _ = bm25.bm25_top_k(*index, [0], [1.0], avgdl=2.0, k=1)
    assert got.tolist() == [5]


def test_edge_cases() -> None:
    assert bm25.bm25_top_k([0], [], [], [], [], [], avgdl=1.0, k=5)[0].tolist() == []
    docs: Docs = [[0], [0, 1], [1]]
    index = csr(docs, 2)
    assert bm25.bm25_top_k(*index, [0], [1.0], avgdl=1.0, k=0)[0].tolist() == []
    assert bm25.bm25_top_k(*index, [0], [1.0], avgdl=1.0, k=99)[0].tolist() == [0, 1]
    none = [False] * 3
    assert bm25.bm25_top_k(*index, [0, 1], [1.0, 1.0], avgdl=1.0, k=9, mask=none)[0].size == 0
    # idf 0: the doc still matches (it holds a query term), with score 0.
    got, scores = bm25.bm25_top_k(*index, [1], [0.0], avgdl=1.0, k=9)
    assert got.tolist() == [1, 2]
    assert scores.tolist() == [0.0, 0.0]
    # A repeated term counts twice.
    once = bm25.bm25_top_k(*index, [0], [1.0], avgdl=1.0, k=9)[1]
    twice = bm25.bm25_top_k(*index, [0, 0], [1.0, 1.0], avgdl=1.0, k=9)[1]
    np.testing.assert_array_equal(twice, once + once)


def test_batch_equals_singles_and_parallel_path() -> None:
    # 20k docs over 30 terms, 128 queries: enough postings to take the parallel path.
    rng = np.random.default_rng(5)
    docs: Docs = [rng.integers(0, 30, size=rng.integers(1, 12)).tolist() for _ in range(20_000)]
    index = csr(docs, 30)
    offsets, postings, tfs, lengths = (np.asarray(a) for a in index)
    queries: list[tuple[list[int], list[float]]] = []
    for _ in range(128):
        terms = rng.integers(0, 30, size=3).tolist()
        queries.append((terms, fts5_weights(docs, terms)[0]))
    avgdl = sum(map(len, docs)) / len(docs)
    batch = bm25.bm25_top_k_many(offsets, postings, tfs, lengths, queries, avgdl=avgdl, k=10)
    for (terms, idf), (got, scores) in zip(queries, batch, strict=True):
        one, one_scores = bm25.bm25_top_k(
            offsets, postings, tfs, lengths, terms, idf, avgdl=avgdl, k=10
        )
        assert got.tolist() == one.tolist()
        assert scores.tolist() == one_scores.tolist()
    ref_docs, _ = ref.bm25_top_k(*index, *queries[0], avgdl=avgdl, k=10)
    assert batch[0][0].tolist() == ref_docs


def _native_args(**overrides: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "offsets": np.array([0, 2, 3], dtype=np.int64),
        "docs": np.array([0, 1, 1], dtype=np.int32),
        "tfs": np.array([1, 2, 1], dtype=np.uint32),
        "doc_lengths": np.array([1, 3], dtype=np.uint32),
        "query_offsets": np.array([0, 1], dtype=np.int64),
        "term_ids": np.array([0], dtype=np.int64),
        "idf": np.array([1.0]),
        "avgdl": 2.0,
        "k": 3,
    }
    args.update(overrides)
    return args


def _call(**overrides: Any) -> Any:
    a = _native_args(**overrides)
    mask = a.pop("mask", None)
    return _native.bm25_top_k(*a.values(), mask=mask)


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"docs": np.array([0, 1, 1], dtype=np.int64)}, DTypeError),
        ({"tfs": np.array([1.0, 2.0, 1.0])}, DTypeError),
        (
            {
                "term_ids": np.array([0, 1], dtype=np.int64),
                "query_offsets": np.array([0, 2], dtype=np.int64),
                "idf": np.array([1.0, 0.0, 2.0, 0.0])[::2],
            },
            LayoutError,
        ),
        ({"tfs": np.array([1, 2], dtype=np.uint32)}, ShapeError),
        ({"idf": np.array([1.0, 1.0])}, ShapeError),
        ({"mask": np.array([True])}, ShapeError),
        ({"idf": np.array([math.nan])}, NonFiniteError),
        ({"idf": np.array([math.inf])}, NonFiniteError),
        ({"idf": np.array([-0.5])}, InvalidArgumentError),
        ({"k": -1}, InvalidArgumentError),
        ({"avgdl": 0.0}, InvalidArgumentError),
        ({"avgdl": math.nan}, InvalidArgumentError),
        ({"term_ids": np.array([2], dtype=np.int64)}, InvalidArgumentError),
        ({"term_ids": np.array([-1], dtype=np.int64)}, InvalidArgumentError),
        ({"offsets": np.array([0, 2, 4], dtype=np.int64)}, InvalidArgumentError),
        ({"offsets": np.array([1, 2, 3], dtype=np.int64)}, InvalidArgumentError),
        ({"offsets": np.zeros(0, dtype=np.int64)}, InvalidArgumentError),
        ({"offsets": np.array([0, 3, 3], dtype=np.int64)}, InvalidArgumentError),  # docs 0,1,1
        ({"docs": np.array([0, 5, 1], dtype=np.int32)}, InvalidArgumentError),
        ({"docs": np.array([1, 0, 1], dtype=np.int32)}, InvalidArgumentError),
        ({"tfs": np.array([0, 2, 1], dtype=np.uint32)}, InvalidArgumentError),
        ({"query_offsets": np.array([0, 2], dtype=np.int64)}, InvalidArgumentError),
        ({"query_offsets": np.array([1], dtype=np.int64)}, InvalidArgumentError),
        ({"docs": np.zeros((3, 1), dtype=np.int32)}, InvalidArgumentError),
        ({"docs": [0, 1, 1]}, DTypeError),
    ],
)
def test_native_rejects_bad_input(overrides: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        _call(**overrides)


@pytest.mark.parametrize(("k1", "b"), [(-1.0, 0.75), (math.inf, 0.75), (1.2, 1.5), (1.2, -0.1)])
def test_native_rejects_bad_parameters(k1: float, b: float) -> None:
    args = list(_native_args().values())
    with pytest.raises(InvalidArgumentError):
        _native.bm25_top_k(*args, k1=k1, b=b)


def test_facade_converts_safely() -> None:
    index = csr([[0], [0, 0]], 1)
    # Lists and other integer dtypes convert; fractional or out-of-range values never do.
    got, _ = bm25.bm25_top_k(*index, np.array([0], dtype=np.int8), [1], avgdl=1.5, k=2)
    assert got.tolist() == [1, 0]
    with pytest.raises(DTypeError):
        bm25.bm25_top_k(index[0], [0.5, 1.0], *index[2:], [0], [1.0], avgdl=1.5, k=2)
    with pytest.raises(InvalidArgumentError):
        bm25.bm25_top_k(index[0], index[1], [-1, 2], index[3], [0], [1.0], avgdl=1.5, k=2)
    with pytest.raises(InvalidArgumentError):
        ref.bm25_top_k(*index, [0], [1.0], avgdl=1.5, k=-1)
    with pytest.raises(NonFiniteError):
        ref.bm25_top_k(*index, [0], [math.nan], avgdl=1.5, k=1)
