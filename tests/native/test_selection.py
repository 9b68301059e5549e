"""Native budgeted selection == the pure-Python reference, plus knapsack invariants.

Index sets are compared exactly: the specification fixes the tie-break (remem.reference.selection),
so even among several optimal sets of equal value native and reference choose the same one.
Against brute force (n ≤ 12) only the total value is compared (rel 1e-9), plus feasibility.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import _native
from remem.errors import (
    BudgetError,
    DTypeError,
    InvalidArgumentError,
    LayoutError,
    NonFiniteError,
    ShapeError,
)
from remem.kernels import selection as native
from remem.reference import selection as reference

EXAMPLES = settings(max_examples=60, deadline=None)

costs_st = st.integers(0, 60)
values_st = st.one_of(st.floats(-5, 50), st.sampled_from([0.0, 1.0, 2.0]))  # sampled: ties


@st.composite
def problems(
    draw: st.DrawFn, max_n: int = 25
) -> tuple[list[int], list[float], int, list[bool] | None]:
    n = draw(st.integers(0, max_n))
    costs = draw(st.lists(costs_st, min_size=n, max_size=n))
    values = draw(st.lists(values_st, min_size=n, max_size=n))
    budget = draw(st.integers(0, 150))
    must = draw(st.one_of(st.none(), st.lists(st.booleans(), min_size=n, max_size=n)))
    if must is not None and sum(c for c, m in zip(costs, must, strict=True) if m) > budget:
        must = None
    return costs, values, budget, must


def _value(values: list[float], idx: np.ndarray) -> float:
    return float(sum(values[i] for i in idx.tolist()))


def _check_feasible(
    costs: list[int], budget: int, idx: np.ndarray, must: list[bool] | None
) -> None:
    assert idx.dtype == np.int64
    assert idx.tolist() == sorted(set(idx.tolist()))
    assert sum(costs[i] for i in idx.tolist()) <= budget
    if must is not None:
        assert {i for i, m in enumerate(must) if m} <= set(idx.tolist())


@EXAMPLES
@given(problems(), st.sampled_from(["optimal", "greedy"]))
def test_matches_reference_exactly(
    p: tuple[list[int], list[float], int, list[bool] | None], strategy: str
) -> None:
    costs, values, budget, must = p
    got = native.select_within_budget(costs, values, budget, strategy=strategy, must_keep=must)  # type: ignore[arg-type]
    want = reference.select_within_budget(costs, values, budget, strategy=strategy, must_keep=must)
    assert got.tolist() == want.tolist()
    _check_feasible(costs, budget, got, must)
    for i in got.tolist():
        assert values[i] > 0 or (must is not None and must[i])


@EXAMPLES
@given(problems(max_n=12))
def test_optimal_equals_brute_force_and_beats_greedy(
    p: tuple[list[int], list[float], int, list[bool] | None],
) -> None:
    costs, values, budget, must = p
    n = len(costs)
    must_set = {i for i in range(n) if must is not None and must[i]}
    best = -np.inf
    for r in range(n + 1):
        for combo in itertools.combinations(range(n), r):
            if must_set <= set(combo) and sum(costs[i] for i in combo) <= budget:
                best = max(best, sum(values[i] for i in combo))
    opt = native.select_within_budget(costs, values, budget, must_keep=must)
    greedy = native.select_within_budget(costs, values, budget, strategy="greedy", must_keep=must)
    assert _value(values, opt) == pytest.approx(best, rel=1e-9, abs=1e-9)
    assert _value(values, opt) >= _value(values, greedy) - 1e-9


@EXAMPLES
@given(problems(max_n=20), st.integers(1, 200))
def test_approximation_above_cell_limit(
    p: tuple[list[int], list[float], int, list[bool] | None], cell_limit: int
) -> None:
    costs, values, budget, must = p
    got = native.select_within_budget_detailed(
        costs, values, budget, must_keep=must, cell_limit=cell_limit
    )
    idx, method, guarantee = reference.select_with_method(
        costs, values, budget, must_keep=must, cell_limit=cell_limit
    )
    assert got.indices.tolist() == idx.tolist()
    assert got.method == method
    assert got.guarantee == pytest.approx(guarantee, rel=1e-12)
    _check_feasible(costs, budget, got.indices, must)
    exact = native.select_within_budget_detailed(costs, values, budget, must_keep=must)
    assert exact.method == "exact"
    assert 0.5 <= got.guarantee <= 1.0
    assert got.total_value >= got.guarantee * exact.total_value - 1e-9


@EXAMPLES
@given(
    st.lists(st.tuples(st.integers(1, 40), st.integers(1, 6)), max_size=30),
    st.integers(0, 120),
)
def test_variable_fixing_keeps_the_unreduced_dp_choice(
    items: list[tuple[int, int]], budget: int
) -> None:
    # Integer-valued floats sum exactly, so the unreduced DP faces the same ties as the reduced
    # one: the chosen set must be the very same (values 1..6 make equal-value optima common).
    costs = [c for c, _ in items]
    values = [float(v) for _, v in items]
    dp_items = [i for i in range(len(items)) if costs[i] <= budget]
    if sum(costs[i] for i in dp_items) <= budget:
        return  # the all-fit shortcut, no DP
    unreduced = reference._exact([(costs[i], values[i]) for i in dp_items], budget)
    want = [dp_items[j] for j in unreduced]
    assert native.select_within_budget(costs, values, budget).tolist() == want
    assert reference.select_within_budget(costs, values, budget).tolist() == want


def test_variable_fixing_at_scale_matches_reference_and_unreduced_value() -> None:
    rng = np.random.default_rng(5)
    costs = rng.integers(20, 401, 400)
    values = rng.random(400) * 10
    got = native.select_within_budget_detailed(costs, values, 2000)
    assert got.indices.tolist() == reference.select_within_budget(costs, values, 2000).tolist()
    want = reference._exact(list(zip(costs.tolist(), values.tolist(), strict=True)), 2000)
    assert got.total_value == pytest.approx(float(values[want].sum()), rel=1e-12)
    fixed_in, free = reference._fix(list(zip(costs.tolist(), values.tolist(), strict=True)), 2000)
    assert fixed_in  # the fixing does decide most items
    assert len(free) < 100


def test_approximate_reports_itself() -> None:
    rng = np.random.default_rng(3)
    costs = rng.integers(20, 400, 300)
    values = rng.random(300) * 10
    s = native.select_within_budget_detailed(costs, values, 4000, cell_limit=1_000_000)
    e = native.select_within_budget_detailed(costs, values, 4000)
    assert (s.method, e.method) == ("approximate", "exact")
    assert s.guarantee > 0.5
    assert e.total_value >= s.total_value >= s.guarantee * e.total_value
    assert s.total_cost <= 4000


def test_realistic_size_matches_reference() -> None:
    rng = np.random.default_rng(11)
    costs = rng.integers(20, 401, 120)
    values = rng.random(120)
    got = native.select_within_budget(costs, values, 1500)
    assert got.tolist() == reference.select_within_budget(costs, values, 1500).tolist()


def test_shortcuts_and_edges() -> None:
    assert native.select_within_budget([], [], 0).tolist() == []
    assert native.select_within_budget([5], [1.0], 5).tolist() == [0]
    assert native.select_within_budget([5], [1.0], 4).tolist() == []
    assert native.select_within_budget([0, 3], [1.0, 2.0], 0).tolist() == [0]
    assert native.select_within_budget([1, 1], [0.0, -1.0], 10).tolist() == []
    assert (
        native.select_within_budget([1, 1], [-1.0, 2.0], 0, must_keep=[False, False]).tolist() == []
    )
    assert native.select_within_budget(
        [1, 2], [-1.0, 2.0], 3, must_keep=[True, False]
    ).tolist() == [0, 1]
    # All equal: ties broken by index (earlier items win).
    assert native.select_within_budget([2] * 5, [1.0] * 5, 6).tolist() == [0, 1, 2]
    assert native.select_within_budget([2] * 5, [1.0] * 5, 6, strategy="greedy").tolist() == [
        0,
        1,
        2,
    ]
    # Huge values and budgets.
    assert native.select_within_budget([1, 1, 1], [1e300, 1e300, 1.0], 2).tolist() == [0, 1]
    assert native.select_within_budget([10**15, 1], [1.0, 1.0], 10**18).tolist() == [0, 1]
    s = native.select_within_budget_detailed([3, 4, 5], [1.0, 2.0, 3.0], 9)
    assert (s.indices.tolist(), s.total_value, s.total_cost, s.method) == ([1, 2], 5.0, 9, "exact")


def test_budget_error_and_invalid_inputs() -> None:
    with pytest.raises(BudgetError):
        native.select_within_budget([5, 6], [1.0, 1.0], 10, must_keep=[True, True])
    with pytest.raises(BudgetError):
        reference.select_within_budget([5, 6], [1.0, 1.0], 10, must_keep=[True, True])
    with pytest.raises(BudgetError):
        native.select_within_budget([1], [1.0], 0, must_keep=[True])
    with pytest.raises(InvalidArgumentError):
        native.select_within_budget([-1], [1.0], 10)
    with pytest.raises(InvalidArgumentError):
        native.select_within_budget([1], [1.0], -1)
    with pytest.raises(InvalidArgumentError):
        native.select_within_budget([1], [1.0], 1, strategy="best")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        native.select_within_budget([1, 1], [1.7e308, 1.7e308], 1)
    with pytest.raises(InvalidArgumentError):
        native.select_within_budget([1.5], [1.0], 1)
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(NonFiniteError):
            native.select_within_budget([1, 1], [1.0, bad], 1)
        with pytest.raises(NonFiniteError):
            reference.select_within_budget([1, 1], [1.0, bad], 1)
    with pytest.raises(ShapeError):
        native.select_within_budget([1, 2], [1.0], 1)
    with pytest.raises(ShapeError):
        native.select_within_budget([1, 2], [1.0, 1.0], 1, must_keep=[True])
    with pytest.raises(ShapeError):
        reference.select_within_budget([1, 2], [1.0], 1)
    with pytest.raises(DTypeError):
        native.select_within_budget(np.array(["a"]), [1.0], 1)
    c, v = np.array([1, 2], dtype=np.int64), np.array([1.0, 2.0])
    with pytest.raises(DTypeError):
        _native.select_within_budget(c.astype(np.int32), v, 3)
    with pytest.raises(DTypeError):
        _native.select_within_budget(c, v.astype(np.float32), 3)
    with pytest.raises(LayoutError):
        _native.select_within_budget(np.arange(4, dtype=np.int64)[::2], v, 3)
    assert native.select_within_budget(np.arange(4, dtype=np.int32)[::2], v, 1).tolist() == [0]
