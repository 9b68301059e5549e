"""Native scoring kernels == the pure-Python reference, plus invariants and adversarial inputs.

Float tolerance: rel 1e-12, abs 1e-300 (the kernels differ from the reference only in exp).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import _native
from remem.errors import DTypeError, InvalidArgumentError, LayoutError, NonFiniteError, ShapeError
from remem.kernels import scoring as native
from remem.reference import scoring as reference

RTOL, ATOL = 1e-12, 1e-300
NOW = 1.8e9
HOUR = 3600.0

times = st.floats(NOW - 5000 * HOUR, NOW + 10 * HOUR)  # includes future times (clock skew)
scores = st.floats(-2.0, 2.0)
counts = st.integers(0, 10_000)
rates = st.floats(0.001, 0.5)
EXAMPLES = settings(max_examples=60, deadline=None)


def _close(a: Any, b: Any) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=RTOL, atol=ATOL)


def test_exp_fast_relative_error_against_math_exp() -> None:
    xs = np.concatenate([np.linspace(-708.0, 709.0, 300_001), np.linspace(-1.0, 1.0, 10_001)])
    got = native.exp_fast(xs)
    want = np.array([math.exp(x) for x in xs])
    assert float(np.max(np.abs(got - want) / want)) <= 1e-14
    assert native.exp_fast([-1e4, 1e4, 0.0]).tolist() == [0.0, math.inf, 1.0]


@EXAMPLES
@given(st.lists(st.tuples(scores, times), max_size=40), rates)
def test_decay_matches_reference(items: list[tuple[float, float]], rate: float) -> None:
    base = [b for b, _ in items]
    ref = [t for _, t in items]
    got = native.decay_scores(base, ref, now=NOW, decay_rate=rate)
    _close(got, reference.decay_scores(base, ref, now=NOW, decay_rate=rate))
    assert np.all((got >= 0) & (got <= 1))


@EXAMPLES
@given(st.floats(0.0, 1.0), rates, st.lists(st.floats(0, 10_000 * HOUR), min_size=2, max_size=20))
def test_decay_monotone_non_increasing_in_age(base: float, rate: float, ages: list[float]) -> None:
    ages = sorted(ages)
    got = native.decay_scores([base] * len(ages), [NOW - a for a in ages], now=NOW, decay_rate=rate)
    assert np.all(np.diff(got) <= 0)


@EXAMPLES
@given(
    st.floats(0.0, 1.0),
    rates,
    st.lists(st.floats(0.0, 96.0), max_size=30),
)
def test_maintenance_cycles_do_not_compound(base: float, rate: float, cycles: list[float]) -> None:
    """k maintenance runs at arbitrary times leave the 96 h score equal to one computation."""
    start = NOW
    stored_base, stored_ref = np.array([base]), np.array([start])
    for hours in sorted(cycles):
        # Maintenance reads the score (and may act on it) but never rewrites the base.
        native.decay_scores(stored_base, stored_ref, now=start + hours * HOUR, decay_rate=rate)
    after = native.decay_scores(stored_base, stored_ref, now=start + 96 * HOUR, decay_rate=rate)
    once = min(1.0, max(0.0, base * math.exp(-rate * 96)))
    assert after[0] == pytest.approx(once, rel=RTOL, abs=ATOL)
    # The defect we are immune to: re-multiplying the stored decayed score by exp(-rate·total age)
    # each cycle. Had we done that, a single intermediate cycle would already change the result.
    if base > 1e-100 and cycles and 0.01 < min(cycles) < 96:
        compounded = base * math.exp(-rate * min(cycles)) * math.exp(-rate * 96)
        assert compounded < after[0]


@EXAMPLES
@given(st.lists(st.tuples(scores, times), max_size=30), rates, st.floats(0.0, 1.0))
def test_reinforce_matches_reference(
    items: list[tuple[float, float]], rate: float, boost: float
) -> None:
    base = [b for b, _ in items]
    ref = [t for _, t in items]
    got = native.reinforce_scores(base, ref, now=NOW, decay_rate=rate, access_boost=boost)
    want = reference.reinforce_scores(base, ref, now=NOW, decay_rate=rate, access_boost=boost)
    _close(got, want)
    assert np.all((got >= 0) & (got <= 1))


item = st.tuples(scores, times, times, counts, st.floats(-1, 2), counts, st.floats(-1, 1))


@EXAMPLES
@given(st.lists(item, max_size=50), rates, st.floats(0, 0.05), st.floats(0, 1))
def test_fused_matches_reference(
    items: list[tuple[Any, ...]], rate: float, recency: float, hit_weight: float
) -> None:
    cols: list[Any] = list(zip(*items, strict=True)) if items else [[]] * 7
    args = [np.array(c, dtype=np.int64 if k in (3, 5) else np.float64) for k, c in enumerate(cols)]
    kw = {"now": NOW, "decay_rate": rate, "recency_rate": recency, "hit_weight": hit_weight}
    got = native.fused_scores(*args, **kw)
    want = reference.fused_scores(*args, **kw)
    for g, w in zip(got, want, strict=True):
        _close(g, w)
    assert np.all((got.decay >= 0) & (got.decay <= 1))
    assert np.all((got.promotion >= 0) & (got.promotion <= 1 + 1e-12))


@EXAMPLES
@given(st.lists(item, min_size=1, max_size=30), rates, st.floats(0, 0.05), st.floats(0, 1))
def test_scalar_forms_equal_the_batch_kernels(
    items: list[tuple[Any, ...]], rate: float, recency: float, hit_weight: float
) -> None:
    """decayed / inclusion_score (the lifecycle's and recall's one-item forms) == the kernels."""
    cols: list[Any] = list(zip(*items, strict=True))
    args = [np.array(c, dtype=np.int64 if k in (3, 5) else np.float64) for k, c in enumerate(cols)]
    kw = {"now": NOW, "decay_rate": rate, "recency_rate": recency, "hit_weight": hit_weight}
    batch = native.fused_scores(*args, **kw)
    base, ref_t, created, hits, _, _, sim = cols
    for i in range(len(items)):
        hours_ref, hours_created = (NOW - ref_t[i]) / HOUR, (NOW - created[i]) / HOUR
        _close(native.decayed(base[i], hours_ref, rate), batch.decay[i])
        one = native.inclusion_score(
            sim[i], hours_created, hits[i], recency_rate=recency, hit_weight=hit_weight
        )
        _close(one, batch.inclusion[i])
        parts = native.recency_factor(hours_created, recency) * native.usage_factor(
            hits[i], hit_weight
        )
        _close(sim[i] * parts, one)


def test_fused_large_input_crosses_chunks_and_threads() -> None:
    rng = np.random.default_rng(7)
    n = 250_003  # above the parallel threshold and not a multiple of the chunk size
    args = (
        rng.random(n),
        NOW - rng.random(n) * 1000 * HOUR,
        NOW - rng.random(n) * 2000 * HOUR,
        rng.integers(0, 6000, n),
        rng.random(n),
        rng.integers(0, 6, n),
        rng.random(n),
    )
    got = native.fused_scores(*args, now=NOW)
    idx = rng.choice(n, 2000, replace=False)
    want = reference.fused_scores(*(a[idx] for a in args), now=NOW)
    for g, w in zip(got, want, strict=True):
        _close(g[idx], w)


def test_empty_and_single() -> None:
    e = np.array([], dtype=np.float64)
    ei = np.array([], dtype=np.int64)
    out = native.fused_scores(e, e, e, ei, e, ei, e, now=NOW)
    assert [len(a) for a in out] == [0, 0, 0]
    one = native.fused_scores([1.0], [NOW], [NOW - 72 * HOUR], [5], [1.0], [3], [1.0], now=NOW)
    assert one.decay.tolist() == [1.0]
    assert one.promotion[0] == pytest.approx(1.0, rel=1e-15)


def test_huge_and_equal_values() -> None:
    got = native.decay_scores(
        [1e300, -1e300, 0.5, 0.5], [0.0, 0.0, NOW, NOW], now=NOW, decay_rate=0.5
    )
    assert got.tolist() == [0.0, 0.0, 0.5, 0.5]
    # Very old items decay to exactly 0 without underflow trouble.
    assert native.decay_scores([1.0], [-1e15], now=NOW, decay_rate=0.5).tolist() == [0.0]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_rejected(bad: float) -> None:
    with pytest.raises(NonFiniteError):
        native.decay_scores([1.0, bad], [0.0, 0.0], now=NOW)
    with pytest.raises(NonFiniteError):
        native.decay_scores([1.0], [bad], now=NOW)
    with pytest.raises(NonFiniteError):
        native.decay_scores([1.0], [0.0], now=bad)
    with pytest.raises(NonFiniteError):
        native.fused_scores([1.0], [0.0], [0.0], [1], [0.5], [1], [bad], now=NOW)
    with pytest.raises(NonFiniteError):
        reference.fused_scores([1.0], [0.0], [0.0], [1], [0.5], [1], [bad], now=NOW)


@pytest.mark.parametrize("rate", [0.0, 0.0009, 0.51, -0.01])
def test_rate_out_of_range(rate: float) -> None:
    with pytest.raises(InvalidArgumentError):
        native.decay_scores([1.0], [0.0], now=NOW, decay_rate=rate)
    with pytest.raises(InvalidArgumentError):
        reference.decay_scores([1.0], [0.0], now=NOW, decay_rate=rate)


def test_bad_weights_norms_and_counts() -> None:
    a = ([1.0], [0.0], [0.0], [1], [0.5], [1], [0.5])
    for kw in ({"w_age": 0.5}, {"w_age": -0.1, "w_access": 0.7}, {"access_norm": 0.0}):
        with pytest.raises(InvalidArgumentError):
            native.fused_scores(*a, now=NOW, **kw)
        with pytest.raises(InvalidArgumentError):
            reference.fused_scores(*a, now=NOW, **kw)
    with pytest.raises(InvalidArgumentError):
        native.fused_scores([1.0], [0.0], [0.0], [-1], [0.5], [1], [0.5], now=NOW)
    with pytest.raises(InvalidArgumentError):
        native.reinforce_scores([1.0], [0.0], now=NOW, access_boost=1.5)


def test_shape_dtype_layout_errors() -> None:
    f = np.zeros(4)
    with pytest.raises(ShapeError):
        native.decay_scores(f, np.zeros(3), now=NOW)
    with pytest.raises(ShapeError):
        native.fused_scores(
            f, f, f, np.zeros(3, dtype=np.int64), f, np.zeros(4, dtype=np.int64), f, now=NOW
        )
    with pytest.raises(ShapeError):
        reference.decay_scores(f, np.zeros(3), now=NOW)
    with pytest.raises(DTypeError):
        _native.decay_scores(f.astype(np.float32), f, now=NOW, decay_rate=0.01)
    with pytest.raises(DTypeError):
        _native.exp_fast(np.zeros(3, dtype=np.int64))
    with pytest.raises(LayoutError):
        _native.decay_scores(np.zeros(8)[::2], f, now=NOW, decay_rate=0.01)
    # The façade converts what the raw module rejects.
    assert native.decay_scores(np.ones(8, dtype=np.float32)[::2], f, now=NOW).shape == (4,)
    with pytest.raises(InvalidArgumentError):
        native.fused_scores([1.0], [0.0], [0.0], [1.5], [0.5], [1], [0.5], now=NOW)


@EXAMPLES
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0, 4095, 4096, 2**52 - 1, 2**52, 2**62, 2**63 - 1])
            | st.integers(0, 2**63 - 1),
            st.sampled_from([0, 3, 2**52 - 1, 2**52, 2**63 - 1]) | st.integers(0, 2**63 - 1),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_fused_huge_counts_match_reference(counts: list[tuple[int, int]]) -> None:
    """Counts past the ln(1 + n) table and past 2^52 (the kernel's slow path) score exactly."""
    n = len(counts)
    acc = np.array([a for a, _ in counts], dtype=np.int64)
    rel = np.array([r for _, r in counts], dtype=np.int64)
    f = np.linspace(0.1, 0.9, n)
    args = (f, NOW - f * 100 * HOUR, NOW - f * 900 * HOUR, acc, f, rel, f)
    kw = {"now": NOW, "access_norm": 1e17, "relationship_norm": 1e16, "hit_weight": 0.5}
    for g, w in zip(
        native.fused_scores(*args, **kw), reference.fused_scores(*args, **kw), strict=True
    ):
        _close(g, w)


@pytest.mark.parametrize("n", [5, 4096 * 3 + 7, 250_003])
def test_fused_error_names_the_reference_culprit(n: int) -> None:
    """The first bad value in the reference's order of arrays, wherever the chunks fall."""
    rng = np.random.default_rng(n)
    args: list[Any] = [
        rng.random(n),
        NOW - rng.random(n) * HOUR,
        NOW - rng.random(n) * HOUR,
        rng.integers(0, 50, n),
        rng.random(n),
        rng.integers(0, 5, n),
        rng.random(n),
    ]
    args[6][1] = math.nan  # early, in the last float array checked
    args[0][n - 2] = math.inf  # late, in the first
    for impl in (native, reference):
        with pytest.raises(NonFiniteError, match=rf"base_scores\[{n - 2}\] is inf"):
            impl.fused_scores(*args, now=NOW)
    args[0][n - 2] = 0.5
    args[5][n - 1] = -3
    for impl in (native, reference):
        with pytest.raises(NonFiniteError, match=r"similarity\[1\] is (?i:nan)"):
            impl.fused_scores(*args, now=NOW)
    args[6][1] = 0.5
    with pytest.raises(InvalidArgumentError, match=rf"element {n - 1} is -3"):
        native.fused_scores(*args, now=NOW)
    with pytest.raises(InvalidArgumentError, match=rf"relationship_counts\[{n - 1}\] is -3"):
        reference.fused_scores(*args, now=NOW)
