"""Pure-Python specification of BM25 top-k over postings (twin of :mod:`remem.kernels.bm25`).

The index is CSR over ``n_terms`` terms and ``n_docs = len(doc_lengths)`` documents: term ``t``
owns the postings ``docs[offsets[t]:offsets[t+1]]`` (document indices, strictly ascending) with
their term frequencies ``tfs[...]`` (each ≥ 1); ``doc_lengths[d]`` is document ``d``'s number of
tokens. ``offsets`` has ``n_terms + 1`` entries, starts at 0 and ends at ``len(docs)``.

A query is a list of term ids with one ``idf`` each. The idf is the caller's, computed from
*global* statistics (:func:`fts5_idf`), so an index split into segments ranks like one index.

Score of document ``d`` (SQLite FTS5's ``bm25()``, negated so that higher is better)::

    score(d) = Σ over the query's terms t present in d, in query order, of
               idf_t · (tf·(k1 + 1)) / (tf + k1·((1 − b) + b·len_d / avgdl))

accumulated in float64 from 0.0 with exactly that operation order — FTS5's
``fts5Bm25Function`` (ext/fts5/fts5_aux.c: ``k1 = 1.2``, ``b = 0.75``, ``avgdl`` = total tokens
/ rows, ``idf = ln((N − n_t + 0.5)/(n_t + 0.5))`` clamped to ``1e-6`` when ≤ 0). So the native
kernel's scores equal SQLite's bit for bit on platforms where neither fuses multiply-adds
(x86-64); tests allow ``1e-12`` relative. A term id given twice counts twice (FTS5 sums a
repeated phrase twice).

Candidates are the documents holding at least one query term and allowed by ``mask`` (all when
``mask`` is None). Result: the ``k`` best by score descending, **ties by lower document
index**, then **every further candidate whose score equals the k-th best score** (so a caller
can apply its own tie-break exactly, as SQL's ``ORDER BY score DESC, ... LIMIT`` does after a
cut at the k-th score). Fewer than ``k`` candidates → all of them. ``k = 0`` → nothing.

Validation (typed errors, nothing panics): ``len(tfs) ≠ len(docs)``, ``len(idf) ≠
len(term_ids)`` or ``len(mask) ≠ n_docs`` → ShapeError; offsets not starting at 0 / not ending at
``len(docs)``, a term id outside ``0 .. n_terms``, the offsets of a queried term decreasing or out
of range, a queried posting's document outside ``0 .. n_docs`` or with ``tf = 0``, a negative
idf, ``k < 0``, ``k1 < 0``, ``b`` outside [0, 1], ``avgdl ≤ 0`` (pass 1.0 for an empty index) or
any of them non-finite, a score overflowing to infinity → InvalidArgumentError; documents not
strictly ascending within a queried term → InvalidArgumentError; a NaN or infinite idf →
NonFiniteError. Only the parts of the index a query reads are checked beyond its shape (a
whole-index scan per query would cost more than the search).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from remem.errors import InvalidArgumentError, NonFiniteError, ShapeError

__all__ = ["FTS5_B", "FTS5_K1", "bm25_top_k", "bm25_top_k_many", "fts5_idf"]

FTS5_K1 = 1.2
FTS5_B = 0.75

Hits = tuple[list[int], list[float]]
Query = tuple[Sequence[int], Sequence[float]]


def fts5_idf(n_docs: int, df: int) -> float:
    """FTS5's idf of a term held by ``df`` of ``n_docs`` rows: ``ln((N − df + 0.5)/(df + 0.5))``,
    ``1e-6`` when that is ≤ 0.

    >>> fts5_idf(5, 3)
    1e-06
    """
    idf = math.log((n_docs - df + 0.5) / (df + 0.5))
    return idf if idf > 0.0 else 1e-6


def _check_params(k: int, k1: float, b: float, avgdl: float) -> None:
    if k < 0:
        raise InvalidArgumentError(f"k is out of range: {k} is negative; pass k >= 0")
    if not (math.isfinite(k1) and k1 >= 0):
        raise InvalidArgumentError(f"k1 is out of range: {k1} must be a finite number >= 0")
    if not (math.isfinite(b) and 0 <= b <= 1):
        raise InvalidArgumentError(f"b is out of range: {b} must be between 0 and 1")
    if not (math.isfinite(avgdl) and avgdl > 0):
        raise InvalidArgumentError(f"avgdl is out of range: {avgdl} must be a finite number > 0")


def _check_index(
    offsets: Sequence[int],
    docs: Sequence[int],
    tfs: Sequence[int],
    n_docs: int,
    mask: Sequence[bool] | None,
) -> None:
    if len(tfs) != len(docs):
        raise ShapeError(f"tfs has length {len(tfs)} but {len(docs)} was expected")
    if not offsets or offsets[0] != 0 or offsets[-1] != len(docs):
        raise InvalidArgumentError(
            f"offsets is out of range: it must start at 0 and end at len(docs) = {len(docs)}"
        )
    if mask is not None and len(mask) != n_docs:
        raise ShapeError(f"mask has length {len(mask)} but {n_docs} was expected")


def _check_query(offsets: Sequence[int], n_postings: int, query: Query) -> None:
    terms, idf = query
    if len(idf) != len(terms):
        raise ShapeError(f"idf has length {len(idf)} but {len(terms)} was expected")
    for i, v in enumerate(idf):
        if not math.isfinite(v):
            raise NonFiniteError(f"idf[{i}] is {v}, but only finite values are allowed")
        if v < 0:
            raise InvalidArgumentError(f"idf is out of range: {v} is negative")
    for t in terms:
        if not 0 <= t < len(offsets) - 1:
            raise InvalidArgumentError(f"term_ids is out of range: {t} is not a term")
        if not 0 <= offsets[t] <= offsets[t + 1] <= n_postings:
            raise InvalidArgumentError(f"offsets is out of range: term {t} spans a bad range")


def _scores(
    offsets: Sequence[int],
    docs: Sequence[int],
    tfs: Sequence[int],
    doc_lengths: Sequence[int],
    query: Query,
    params: tuple[float, float, float],
    mask: Sequence[bool] | None,
) -> dict[int, float]:
    k1, b, avgdl = params
    scores: dict[int, float] = {}
    for t, idf in zip(*query, strict=True):
        previous = -1
        for j in range(offsets[t], offsets[t + 1]):
            d, tf = docs[j], tfs[j]
            if not 0 <= d < len(doc_lengths):
                raise InvalidArgumentError(f"docs is out of range: doc {d} is not a doc")
            if d <= previous:
                raise InvalidArgumentError("docs must be strictly ascending within each term")
            previous = d
            if tf < 1:
                raise InvalidArgumentError(f"tfs is out of range: doc {d} has tf {tf}")
            if mask is not None and not mask[d]:
                continue
            f, length = float(tf), float(doc_lengths[d])
            term = idf * ((f * (k1 + 1.0)) / (f + k1 * ((1.0 - b) + b * length / avgdl)))
            scores[d] = scores.get(d, 0.0) + term
    return scores


def _select(scores: dict[int, float], k: int) -> Hits:
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    if any(not math.isfinite(s) for _, s in ranked):
        raise InvalidArgumentError("k1 is out of range: a score overflowed; use a smaller k1")
    if k == 0:
        return [], []
    if len(ranked) > k:
        cut = ranked[k - 1][1]
        ranked = [r for i, r in enumerate(ranked) if i < k or r[1] == cut]
    return [d for d, _ in ranked], [s for _, s in ranked]


def bm25_top_k_many(
    offsets: Sequence[int],
    docs: Sequence[int],
    tfs: Sequence[int],
    doc_lengths: Sequence[int],
    queries: Sequence[Query],
    *,
    avgdl: float,
    k: int,
    k1: float = FTS5_K1,
    b: float = FTS5_B,
    mask: Sequence[bool] | None = None,
) -> list[Hits]:
    """:func:`bm25_top_k` for each ``(term_ids, idf)`` of ``queries``; every query is validated
    before any is scored."""
    _check_params(k, k1, b, avgdl)
    _check_index(offsets, docs, tfs, len(doc_lengths), mask)
    for q in queries:
        _check_query(offsets, len(docs), q)
    return [
        _select(_scores(offsets, docs, tfs, doc_lengths, q, (k1, b, avgdl), mask), k)
        for q in queries
    ]


def bm25_top_k(
    offsets: Sequence[int],
    docs: Sequence[int],
    tfs: Sequence[int],
    doc_lengths: Sequence[int],
    term_ids: Sequence[int],
    idf: Sequence[float],
    *,
    avgdl: float,
    k: int,
    k1: float = FTS5_K1,
    b: float = FTS5_B,
    mask: Sequence[bool] | None = None,
) -> Hits:
    """The best ``k`` documents for one query, plus ties at the k-th score (see the module
    docstring): ``(doc indices, scores)``, best first.

    >>> bm25_top_k([0, 3], [0, 1, 2], [1, 2, 1], [2, 2, 2], [0], [1.0], avgdl=2.0, k=2)
    ([1, 0, 2], [1.375, 1.0, 1.0])
    """
    return bm25_top_k_many(
        offsets, docs, tfs, doc_lengths, [(term_ids, idf)], avgdl=avgdl, k=k, k1=k1, b=b, mask=mask
    )[0]
