"""Budgeted selection: 1,000 candidates x 4,000-token budget, costs 20-400 tokens.

Ids: ``native`` (optimal, exact DP), ``native-greedy``, ``numpy`` (row DP vectorised over the
budget axis with a boolean choice matrix and reconstruction; the baseline), ``reference``
(pure-Python DP, one pedantic round).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from remem.kernels import selection
from remem.reference import selection as reference

N, BUDGET = 1000, 4000


def _problem() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(5)
    return rng.integers(20, 401, N), rng.random(N) * 10


def numpy_knapsack(
    costs: np.ndarray[Any, Any], values: np.ndarray[Any, Any], budget: int
) -> np.ndarray[Any, Any]:
    """Exact 0/1 knapsack: one vectorised row update per item, then walk back the choices."""
    row = np.zeros(budget + 1)
    take = np.zeros((len(costs), budget + 1), dtype=bool)
    for j, (c, v) in enumerate(zip(costs.tolist(), values.tolist(), strict=True)):
        if c > budget or v <= 0:
            continue
        cand = row[: budget + 1 - c] + v
        better = cand > row[c:]
        take[j, c:] = better
        row[c:] = np.where(better, cand, row[c:])
    chosen = []
    w = budget
    for j in range(len(costs) - 1, -1, -1):
        if take[j, w]:
            chosen.append(j)
            w -= int(costs[j])
    return np.array(sorted(chosen), dtype=np.int64)


@pytest.mark.parametrize("impl", ["native", "native-greedy", "numpy", "reference"])
def test_selection(benchmark: Any, impl: str) -> None:
    costs, values = _problem()
    benchmark.group = "selection 1000 x 4000"
    trusted = selection.select_within_budget_detailed(costs, values, BUDGET)
    if impl == "native":
        idx = benchmark(lambda: selection.select_within_budget(costs, values, BUDGET))
    elif impl == "native-greedy":
        idx = benchmark(
            lambda: selection.select_within_budget(costs, values, BUDGET, strategy="greedy")
        )
    elif impl == "numpy":
        idx = benchmark(lambda: numpy_knapsack(costs, values, BUDGET))
    else:
        idx = benchmark.pedantic(
            lambda: reference.select_within_budget(costs, values, BUDGET), rounds=1
        )
    value = float(values[idx].sum())
    feasible = int(costs[idx].sum()) <= BUDGET
    if impl == "native-greedy":
        correct = feasible and value <= trusted.total_value + 1e-9
    else:
        correct = feasible and abs(value - trusted.total_value) <= 1e-9 * trusted.total_value
    benchmark.extra_info["correct"] = bool(correct and trusted.method == "exact")
