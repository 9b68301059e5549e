"""The packer's shortcuts agree with the native kernels they replace or shrink."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.context.knapsack import Relaxation, reduced_select
from remem.kernels import select_within_budget_detailed


@st.composite
def knapsacks(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    n = draw(st.integers(0, 60))
    # Few distinct costs and values: ties in density, value and cost are common.
    costs = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    values = draw(
        st.lists(st.sampled_from([0.25, 0.5, 1.0, 1.5, 3.0, 0.3317]), min_size=n, max_size=n)
    )
    cap = draw(st.integers(0, 600))
    return np.asarray(costs, dtype=np.int64), np.asarray(values, dtype=np.float64), cap


@settings(max_examples=300, deadline=None)
@given(knapsacks())
def test_greedy_equals_the_native_greedy(problem: tuple[np.ndarray, np.ndarray, int]) -> None:
    costs, values, cap = problem
    lp = Relaxation(costs, values)
    for c in (cap, cap // 2, cap // 3):  # several probes share one sorted order
        idx, total, method = lp.greedy(c)
        native = select_within_budget_detailed(costs, values, c, strategy="greedy")
        assert idx.tolist() == native.indices.tolist()
        assert total == native.total_value
        assert method == native.method


@settings(max_examples=300, deadline=None)
@given(knapsacks())
def testreduced_select_is_optimal(problem: tuple[np.ndarray, np.ndarray, int]) -> None:
    costs, values, cap = problem
    idx, total, method = reduced_select(Relaxation(costs, values), costs, values, cap)
    full = select_within_budget_detailed(costs, values, cap, strategy="optimal")
    assert int(costs[idx].sum()) <= cap
    assert abs(total - full.total_value) <= 1e-9 * max(1.0, full.total_value)
    assert method == "exact"
