"""int8 scan + float32 rescoring: recall against exact, exact rescoring, contracts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from remem import _native
from remem.errors import DTypeError, InvalidArgumentError, NonFiniteError, ShapeError
from remem.kernels import topk
from remem.reference import topk as ref


def recall_at(exact: NDArray[np.int64], approx: NDArray[np.int64]) -> float:
    hits = sum(len(set(a.tolist()) & set(e.tolist())) for a, e in zip(approx, exact, strict=True))
    return hits / exact.size


def gaussian(n: int, d: int, nq: int, seed: int) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, d)).astype(np.float32)
    return m, rng.standard_normal((nq, d)).astype(np.float32)


def clustered(
    n: int, d: int, nq: int, seed: int, clusters: int = 100, spread: float = 0.1
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, d))
    m = centres[rng.integers(0, clusters, n)] + spread * rng.standard_normal((n, d))
    q = centres[rng.integers(0, clusters, nq)] + spread * rng.standard_normal((nq, d))
    return m.astype(np.float32), q.astype(np.float32)


@pytest.mark.parametrize("data", [gaussian, clustered])
@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_recall_at_10(data: object, metric: topk.Metric) -> None:
    m, qs = data(20000, 384, 50, seed=1234)  # type: ignore[operator]
    index = topk.QuantizedIndex(m)
    exact, _ = topk.top_k(qs, m, 10, metric=metric)
    approx, scores = index.search(qs, 10, metric=metric)
    assert recall_at(exact, approx) >= 0.99
    assert np.all(np.diff(scores, axis=1) <= 0)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(0, 400),
    d=st.integers(1, 24),
    nq=st.integers(1, 4),
    k=st.integers(0, 12),
    seed=st.integers(0, 2**16),
    metric=st.sampled_from(["cosine", "dot"]),
)
def test_full_pool_equals_exact_bitwise(
    n: int, d: int, nq: int, k: int, seed: int, metric: topk.Metric
) -> None:
    rng = np.random.default_rng(seed)
    m = rng.integers(-3, 4, size=(n, d)).astype(np.float32)  # ties included
    qs = rng.standard_normal((nq, d)).astype(np.float32)
    mask = rng.random(n) < 0.7
    qz = topk.quantize(m)
    exact = topk.top_k(qs, m, k, metric=metric, mask=mask)
    got = topk.top_k_quantized(
        qs,
        qz,
        m,
        k,
        metric=metric,
        mask=mask,
        candidates=max(n, k),
    )
    assert got[0].tolist() == exact[0].tolist()
    assert got[1].tobytes() == exact[1].tobytes()


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 20), d=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_quantize_matches_reference(n: int, d: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = (rng.standard_normal((n, d)) * rng.uniform(0.001, 100)).astype(np.float32)
    m[rng.random((n, d)) < 0.1] = 0.0
    q = topk.quantize(m)
    codes, scales = ref.quantize(m.astype(np.float64).tolist())
    assert q.codes.dtype == np.int8
    assert q.shape == (n, d)
    # float32 vs float64 division may land either side of a .5 boundary
    assert (
        np.abs(q.codes.astype(int) - np.asarray(codes, dtype=int).reshape(n, d)).max(initial=0) <= 1
    )
    np.testing.assert_allclose(q.scales, np.asarray(scales), rtol=1e-6)
    np.testing.assert_allclose(q.norms, np.linalg.norm(m.astype(np.float64), axis=1), rtol=1e-5)


def test_reference_full_pool_equals_reference_exact() -> None:
    m, qs = gaussian(40, 6, 2, seed=5)
    ml, ql = m.tolist(), qs.tolist()
    assert ref.top_k_quantized(ql, ml, 5, candidates=40) == ref.top_k(ql, ml, 5)
    idx, _ = ref.top_k_quantized(ql, ml, 5, candidates=20)
    nidx, _ = topk.top_k_quantized(qs, topk.quantize(m), m, 5, candidates=20)
    assert idx == nidx.tolist()


def test_single_query_shape_and_mask() -> None:
    m, qs = gaussian(3000, 32, 1, seed=2)
    mask = np.arange(3000) % 3 == 0
    index = topk.QuantizedIndex(m)
    assert len(index) == 3000
    assert index.dim == 32
    idx, scores = index.search(qs[0], 10, mask=mask)
    assert idx.shape == scores.shape == (10,)
    assert all(i % 3 == 0 for i in idx)
    exact, _ = topk.top_k(qs[0], m, 10, mask=mask)
    assert len(set(exact.tolist()) & set(idx.tolist())) >= 9


def test_errors() -> None:
    m, qs = gaussian(50, 8, 2, seed=0)
    qz = topk.quantize(m)
    bad = m.copy()
    bad[3, 4] = np.nan
    with pytest.raises(NonFiniteError):
        topk.quantize(bad)
    with pytest.raises(NonFiniteError):
        ref.quantize(bad.tolist())
    with pytest.raises(InvalidArgumentError):
        topk.top_k_quantized(qs, qz, m, 10, candidates=5)
    with pytest.raises(InvalidArgumentError):
        topk.top_k_quantized(qs, qz, m, 10, metric="l2")  # type: ignore[arg-type]
    with pytest.raises(ShapeError):
        topk.top_k_quantized(qs, qz, m[:40], 10)
    with pytest.raises(ShapeError):
        topk.top_k_quantized(qs[:, :4], qz, m, 10)
    q_nan = qs.copy()
    q_nan[1, 2] = np.inf
    with pytest.raises(NonFiniteError):
        topk.top_k_quantized(q_nan, qz, m, 10)
    with pytest.raises(DTypeError):
        _native.top_k_quantized(qs, qz.codes.astype(np.int16), qz.scales, qz.norms, m, 3)
    with pytest.raises(DTypeError):
        _native.quantize(m.astype(np.float64))
