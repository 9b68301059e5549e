"""BM25 top-k over an in-memory CSR postings index, scoring exactly as SQLite FTS5's ``bm25()``.

The index (one per segment of a :class:`~remem.stores.term_index.TermIndex`) is four arrays:
``offsets`` (int64, ``n_terms + 1``), ``docs`` (int32, ascending within each term), ``tfs``
(uint32, ≥ 1) and ``doc_lengths`` (uint32, tokens per document). A query is term ids (int64)
with one idf each (float64, from global statistics: :func:`fts5_idf`). Each query returns
``(doc indices int64, scores float64)``: the best ``k`` by score descending, ties to the lower
document, **plus every further document tied with the k-th score**. The formula, the edge cases
and the validation are specified in :mod:`remem.reference.bm25`.

This module converts inputs (``np.ascontiguousarray`` to the dtypes above — no copy when they
already match); the native kernel never copies, releases the GIL, and spreads a batch of
queries over threads once it reads enough postings.

Example::

    >>> import numpy as np
    >>> docs, scores = bm25_top_k([0, 3], [0, 1, 2], [1, 2, 1], [2, 2, 2], [0], [1.0],
    ...                           avgdl=2.0, k=1)
    >>> docs.tolist(), scores.tolist()
    ([1], [1.375])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate, pairwise
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem import _native
from remem.errors import InvalidArgumentError
from remem.kernels._ints import bool_array, float_array, int64, int_array, real

__all__ = ["FTS5_B", "FTS5_K1", "Hits", "bm25_top_k", "bm25_top_k_many", "fts5_idf"]

FTS5_K1 = 1.2
"""FTS5's k1 (``fts5Bm25Function``)."""
FTS5_B = 0.75
"""FTS5's b."""

Hits = tuple[NDArray[np.int64], NDArray[np.float64]]


def fts5_idf(n_docs: int, df: int) -> float:
    """FTS5's idf of a term held by ``df`` of ``n_docs`` rows: ``ln((N − df + 0.5)/(df + 0.5))``,
    or ``1e-6`` when that is ≤ 0 (a term in more than half the rows).

    InvalidArgumentError unless ``0 ≤ df ≤ n_docs`` are ints."""
    n_docs, df = int64(n_docs, "n_docs"), int64(df, "df")
    if not 0 <= df <= n_docs:
        raise InvalidArgumentError(
            f"df must lie in 0..n_docs, got df={df}, n_docs={n_docs}; a term cannot occur in "
            "more rows than there are"
        )
    idf = math.log((n_docs - df + 0.5) / (df + 0.5))
    return idf if idf > 0.0 else 1e-6


def _joined(parts: list[NDArray[Any]], dtype: type[np.generic]) -> NDArray[Any]:
    if len(parts) == 1:  # the common single query: no copy
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _mask(mask: ArrayLike | None) -> NDArray[np.bool_] | None:
    return None if mask is None else bool_array(mask, "mask")


def bm25_top_k_many(
    offsets: ArrayLike,
    docs: ArrayLike,
    tfs: ArrayLike,
    doc_lengths: ArrayLike,
    queries: Sequence[tuple[ArrayLike, ArrayLike]],
    *,
    avgdl: float,
    k: int,
    k1: float = FTS5_K1,
    b: float = FTS5_B,
    mask: ArrayLike | None = None,
) -> list[Hits]:
    """:func:`bm25_top_k` for every ``(term_ids, idf)`` of ``queries``, in one native call.

    Every query is validated before any is scored; the result arrays of query ``i`` are views
    into one buffer.
    """
    terms = [int_array(t, np.int64, "term_ids").reshape(-1) for t, _ in queries]
    idfs = [float_array(w, np.float64, "idf").reshape(-1) for _, w in queries]
    qoff = np.fromiter(
        accumulate((len(t) for t in terms), initial=0), dtype=np.int64, count=len(terms) + 1
    )
    hit_off, hit_docs, hit_scores = _native.bm25_top_k(
        int_array(offsets, np.int64, "offsets"),
        int_array(docs, np.int32, "docs"),
        int_array(tfs, np.uint32, "tfs"),
        int_array(doc_lengths, np.uint32, "doc_lengths"),
        qoff,
        _joined(terms, np.int64),
        _joined(idfs, np.float64),
        real(avgdl, "avgdl"),
        int64(k, "k"),
        k1=real(k1, "k1"),
        b=real(b, "b"),
        mask=_mask(mask),
    )
    return [(hit_docs[lo:hi], hit_scores[lo:hi]) for lo, hi in pairwise(hit_off.tolist())]


def bm25_top_k(
    offsets: ArrayLike,
    docs: ArrayLike,
    tfs: ArrayLike,
    doc_lengths: ArrayLike,
    term_ids: ArrayLike,
    idf: ArrayLike,
    *,
    avgdl: float,
    k: int,
    k1: float = FTS5_K1,
    b: float = FTS5_B,
    mask: ArrayLike | None = None,
) -> Hits:
    """The ``k`` best documents for one query, plus every document tied with the k-th score.

    Args:
        offsets, docs, tfs, doc_lengths: the CSR postings index (see the module docstring).
        term_ids: the query's term ids (a repeated id counts twice, like a repeated FTS5 phrase).
        idf: one idf per term id, finite and ≥ 0 (:func:`fts5_idf` for FTS5's).
        avgdl: average document length over the *whole* collection, > 0.
        k: hits wanted; 0 gives nothing.
        k1, b: BM25 parameters (FTS5's 1.2 and 0.75 by default).
        mask: optional booleans, one per document; only True documents may be returned.

    Returns:
        ``(docs, scores)``, best first (score descending, then lower document).

    Raises:
        ShapeError: ``tfs``/``docs``, ``idf``/``term_ids`` or ``mask``/``doc_lengths`` lengths
            differ.
        NonFiniteError: a NaN or infinite idf.
        InvalidArgumentError: bad offsets, term ids, postings, k, k1, b or avgdl; integers
            outside their array's dtype (e.g. a negative tf).
        DTypeError: a non-integer array where integers are expected.
    """
    return bm25_top_k_many(
        offsets,
        docs,
        tfs,
        doc_lengths,
        [(term_ids, idf)],
        avgdl=avgdl,
        k=k,
        k1=k1,
        b=b,
        mask=mask,
    )[0]
