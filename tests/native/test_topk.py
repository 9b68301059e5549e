"""Exact top-k: native (remem._native / remem.kernels.topk) against the pure-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from remem import _native
from remem.errors import (
    DTypeError,
    InvalidArgumentError,
    LayoutError,
    NonFiniteError,
    ShapeError,
)
from remem.kernels import topk
from remem.reference import topk as ref

METRICS: list[topk.Metric] = ["cosine", "dot"]
# Scores of the float32 kernel vs the float64 reference (see remem.reference.topk).
TOL = 2e-5


def small_ints(n: int, d: int, seed: int, lo: int = -4, hi: int = 4) -> NDArray[np.float32]:
    """Small-integer matrices: many exact ties, and float32 dots are exact."""
    return np.random.default_rng(seed).integers(lo, hi + 1, size=(n, d)).astype(np.float32)


def full_sort(
    q: NDArray[np.float32], m: NDArray[np.float32], k: int, metric: topk.Metric
) -> NDArray[np.int64]:
    """Top-k by a stable full sort on -score (NaN last), ties to the lower index."""
    s = m.astype(np.float64) @ q.astype(np.float64)
    if metric == "cosine":
        den = np.linalg.norm(m.astype(np.float64), axis=1) * np.linalg.norm(q.astype(np.float64))
        with np.errstate(invalid="ignore", divide="ignore"):
            s = np.where(den == 0, 0.0, s / np.where(den == 0, 1.0, den))
    key = np.where(np.isnan(s), np.inf, -s)
    return np.argsort(key, kind="stable")[:k].astype(np.int64)


shapes = st.tuples(st.integers(0, 30), st.integers(1, 8))


@settings(max_examples=60, deadline=None)
@given(
    shape=shapes, k=st.integers(0, 35), seed=st.integers(0, 2**16), metric=st.sampled_from(METRICS)
)
def test_native_matches_reference_with_ties(
    shape: tuple[int, int], k: int, seed: int, metric: topk.Metric
) -> None:
    n, d = shape
    m = small_ints(n, d, seed)
    q = small_ints(1, d, seed + 1)[0]
    idx, scores = topk.top_k(q, m, k, metric=metric)
    ridx, rscores = ref.top_k(q.tolist(), m.tolist(), k, metric=metric)
    assert idx.dtype == np.int64
    assert scores.dtype == np.float32
    assert idx.shape == (min(k, n),)
    if metric == "dot":  # small integers: exact in float32, so ties are exact too
        assert idx.tolist() == ridx
    np.testing.assert_allclose(scores, np.asarray(rscores, dtype=np.float64), atol=TOL, rtol=TOL)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 300),
    d=st.integers(1, 40),
    k=st.integers(0, 20),
    seed=st.integers(0, 2**16),
    metric=st.sampled_from(METRICS),
)
def test_equals_full_sort_on_separated_scores(
    n: int, d: int, k: int, seed: int, metric: topk.Metric
) -> None:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, d)).astype(np.float32)
    q = rng.standard_normal(d).astype(np.float32)
    idx, scores = topk.top_k(q, m, k, metric=metric)
    want = full_sort(q, m, k, metric)
    # Gaussian scores are separated far beyond float32 error except by rare accident; compare
    # index sets where neighbouring reference scores differ by more than the tolerance.
    assert len(idx) == len(want)
    assert np.all(np.diff(scores.astype(np.float64)) <= 0)
    if len(want) and len(set(idx.tolist()) ^ set(want.tolist())):
        s = np.sort(scores)
        assert np.min(np.diff(s)) < 1e-4  # only a near-tie may reorder
    else:
        assert idx.tolist() == want.tolist()


@settings(max_examples=40, deadline=None)
@given(
    shape=shapes, k=st.integers(0, 12), seed=st.integers(0, 2**16), metric=st.sampled_from(METRICS)
)
def test_mask_respected(shape: tuple[int, int], k: int, seed: int, metric: topk.Metric) -> None:
    n, d = shape
    rng = np.random.default_rng(seed)
    m = small_ints(n, d, seed)
    mask = rng.random(n) < 0.5
    q = small_ints(1, d, seed + 7)[0]
    idx, _ = topk.top_k(q, m, k, metric=metric, mask=mask)
    assert len(idx) == min(k, int(mask.sum()))
    assert all(mask[i] for i in idx)
    ridx, _ = ref.top_k(q.tolist(), m.tolist(), k, metric=metric, mask=mask.tolist())
    if metric == "dot":
        assert idx.tolist() == ridx


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(0, 2500),
    nq=st.integers(0, 9),
    d=st.integers(1, 20),
    k=st.integers(0, 15),
    seed=st.integers(0, 2**16),
    metric=st.sampled_from(METRICS),
)
def test_batch_equals_stacked_singles(
    n: int, nq: int, d: int, k: int, seed: int, metric: topk.Metric
) -> None:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, d)).astype(np.float32)
    qs = rng.standard_normal((nq, d)).astype(np.float32)
    idx, scores = topk.top_k(qs, m, k, metric=metric)
    assert idx.shape == scores.shape == (nq, min(k, n))
    for i in range(nq):
        one_idx, one_scores = topk.top_k(qs[i], m, k, metric=metric)
        assert idx[i].tolist() == one_idx.tolist()
        assert scores[i].tobytes() == one_scores.tobytes()  # bit-identical


def test_duplicated_rows_lower_index_wins() -> None:
    base = np.random.default_rng(3).standard_normal((50, 16)).astype(np.float32)
    m = np.concatenate([base, base, base])  # every row three times
    q = base[7] * 2
    for metric in METRICS:
        idx, scores = topk.top_k(q, m, 3, metric=metric)
        assert idx.tolist() == [7, 57, 107]
        assert scores[0] == scores[1] == scores[2]


def test_large_parallel_matches_full_sort() -> None:
    rng = np.random.default_rng(11)
    m = rng.standard_normal((20000, 64)).astype(np.float32)
    qs = rng.standard_normal((5, 64)).astype(np.float32)
    for metric in METRICS:
        idx, _ = topk.top_k(qs, m, 10, metric=metric)
        for i in range(5):
            assert idx[i].tolist() == full_sort(qs[i], m, 10, metric).tolist()


def test_k_larger_than_n_and_empty() -> None:
    m = small_ints(4, 3, 0)
    idx, scores = topk.top_k([1.0, 2.0, 3.0], m, 100)
    assert sorted(idx.tolist()) == [0, 1, 2, 3]
    idx, scores = topk.top_k([1.0, 2.0, 3.0], np.zeros((0, 3), np.float32), 5)
    assert idx.shape == (0,)
    assert scores.shape == (0,)
    idx, scores = topk.top_k(np.ones((2, 3)), np.zeros((0, 3), np.float32), 5)
    assert idx.shape == (2, 0)
    idx, _ = topk.top_k([1.0, 2.0, 3.0], m, 0)
    assert idx.shape == (0,)


def test_d1_and_zero_vectors_cosine() -> None:
    m = np.array([[0.0], [-2.0], [3.0], [0.0]], np.float32)
    idx, scores = topk.top_k([5.0], m, 4)
    assert idx.tolist() == [2, 0, 3, 1]
    assert scores.tolist() == [1.0, 0.0, 0.0, -1.0]
    idx, scores = topk.top_k([0.0], m, 4)  # zero query: every cosine is 0, index order
    assert idx.tolist() == [0, 1, 2, 3]
    assert scores.tolist() == [0.0] * 4


@pytest.mark.parametrize("metric", METRICS)
def test_nan_rows_rank_last(metric: topk.Metric) -> None:
    m = np.array([[1.0, np.nan], [1.0, 0.0], [np.inf, 1.0], [-1.0, 0.0]], np.float32)
    idx, scores = topk.top_k([1.0, 0.0], m, 4, metric=metric)
    if metric == "cosine":  # inf/inf is NaN too: both NaN rows last, lower index first
        assert idx.tolist() == [1, 3, 0, 2]
        assert np.isnan(scores[2:]).all()
    else:  # the dot with the inf row is +inf, a real (top) score; the NaN row is last
        assert idx.tolist() == [2, 1, 3, 0]
        assert np.isnan(scores[3])
    ridx, _ = ref.top_k([1.0, 0.0], m.astype(np.float64).tolist(), 4, metric=metric)
    assert ridx == idx.tolist()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_query_rejected(bad: float) -> None:
    m = small_ints(5, 2, 0)
    with pytest.raises(NonFiniteError):
        topk.top_k([1.0, bad], m, 2)
    with pytest.raises(NonFiniteError):
        ref.top_k([1.0, bad], m.tolist(), 2)


def test_invalid_arguments() -> None:
    m = small_ints(5, 3, 0)
    q = np.ones(3, np.float32)
    with pytest.raises(InvalidArgumentError):
        topk.top_k(q, m, 2, metric="l2")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        topk.top_k(q, m, -1)
    with pytest.raises(InvalidArgumentError):
        ref.top_k(q.tolist(), m.tolist(), -1)
    with pytest.raises(ShapeError):
        topk.top_k(np.ones(4), m, 2)
    with pytest.raises(ShapeError):
        topk.top_k(np.ones((2, 4)), m, 2)
    with pytest.raises(ShapeError):
        topk.top_k(q, m, 2, mask=[True, False])
    with pytest.raises(ShapeError):
        ref.top_k([1.0, 1.0], m.tolist(), 2)


def test_native_contracts_dtype_and_layout() -> None:
    m = small_ints(6, 4, 0)
    q = np.ones(4, np.float32)
    with pytest.raises(DTypeError):
        _native.top_k(q.astype(np.float64), m, 2)
    with pytest.raises(DTypeError):
        _native.top_k(q, m.astype(np.float64), 2)
    with pytest.raises(DTypeError):
        _native.top_k(q, m, 2, mask=np.ones(6, np.int8))
    with pytest.raises(LayoutError):
        _native.top_k(q, np.asfortranarray(small_ints(6, 4, 1)), 2)
    with pytest.raises(LayoutError):
        _native.top_k(np.ones(8, np.float32)[::2], m, 2)
    # the façade converts both
    idx, _ = topk.top_k(q.astype(np.float64), np.asfortranarray(m.astype(np.float64)), 2)
    assert idx.tolist() == _native.top_k(q, m, 2)[0].tolist()
