"""Typed façade over native budgeted selection (0/1 knapsack over token costs).

Specification (every step, tie-breaks, the approximation and its bound):
:mod:`remem.reference.selection`. In short: must-keep items are always chosen (BudgetError if
they alone exceed the budget); items of value ≤ 0 never are otherwise; ``"optimal"`` is an exact
DP up to ``cell_limit`` = n x (budget + 1) cells (default 2**27), above which it returns a
solution with a proven value ≥ ``guarantee`` x optimum (≥ ½, usually much closer to 1) and says
so in :class:`Selection`; ``"greedy"`` is value density, then value, then index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem import _native
from remem.errors import DTypeError, InvalidArgumentError, NonFiniteError
from remem.kernels._ints import bool_array, float_array, int64, option

__all__ = [
    "DEFAULT_CELL_LIMIT",
    "Selection",
    "select_within_budget",
    "select_within_budget_detailed",
]

DEFAULT_CELL_LIMIT = 1 << 27
"""Largest n x (budget + 1) solved exactly by ``"optimal"`` (16 MiB of choice bits)."""

Strategy = Literal["optimal", "greedy"]
Method = Literal["exact", "greedy", "approximate"]


@dataclass(frozen=True)
class Selection:
    """A selection with its totals and how it was found.

    ``method`` is ``"exact"`` (provably optimal), ``"greedy"`` (the greedy strategy; no bound) or
    ``"approximate"`` (above the cell limit; ``total_value ≥ guarantee x optimum``).
    """

    indices: NDArray[np.int64]
    total_value: float
    total_cost: int
    method: Method
    guarantee: float


def _costs(costs: ArrayLike) -> NDArray[np.int64]:
    try:
        arr = np.asarray(costs)
    except (TypeError, ValueError, RecursionError) as exc:
        raise DTypeError(f"costs must be an array of integer token counts ({exc})") from exc
    if arr.dtype.kind in "iu" or arr.size == 0:
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise InvalidArgumentError("costs exceed the int64 range; token counts must fit int64")
        return np.ascontiguousarray(arr, dtype=np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise NonFiniteError("costs contain NaN or infinity; pass integer token counts")
        if not np.all(arr == np.floor(arr)):
            raise InvalidArgumentError("costs have fractional values; pass integer token counts")
        return np.ascontiguousarray(arr, dtype=np.int64)
    raise DTypeError(f"costs must hold integers, got dtype {arr.dtype}; pass an int64 array")


def _cell_limit(value: object) -> int:
    limit = int64(value, "cell_limit")
    if limit < 0:
        raise InvalidArgumentError(f"cell_limit must be ≥ 0, got {limit}")
    return limit


def _run(
    costs: ArrayLike,
    values: ArrayLike,
    budget: int,
    strategy: Strategy,
    must_keep: ArrayLike | None,
    cell_limit: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], str, float]:
    c = _costs(costs)
    v = float_array(values, np.float64, "values")
    mk = None if must_keep is None else bool_array(must_keep, "must_keep")
    idx, method, guarantee = _native.select_within_budget(
        c,
        v,
        int64(budget, "budget"),
        strategy=option(strategy, "strategy"),
        must_keep=mk,
        cell_limit=_cell_limit(cell_limit),
    )
    return idx, c, v, method, guarantee


def select_within_budget(
    costs: ArrayLike,
    values: ArrayLike,
    budget: int,
    *,
    strategy: Strategy = "optimal",
    must_keep: ArrayLike | None = None,
    cell_limit: int = DEFAULT_CELL_LIMIT,
) -> NDArray[np.int64]:
    """Indices (ascending) of the items to keep within ``budget`` tokens.

    ``costs`` are non-negative integer token counts, ``values`` finite floats, ``must_keep`` an
    optional bool mask of items that are always kept. Raises BudgetError when the must-keep items
    alone exceed the budget; use :func:`select_within_budget_detailed` to learn which method ran.

    >>> select_within_budget([10, 4, 6], [60.0, 40.0, 50.0], 10).tolist()
    [1, 2]
    """
    return _run(costs, values, budget, strategy, must_keep, cell_limit)[0]


def select_within_budget_detailed(
    costs: ArrayLike,
    values: ArrayLike,
    budget: int,
    *,
    strategy: Strategy = "optimal",
    must_keep: ArrayLike | None = None,
    cell_limit: int = DEFAULT_CELL_LIMIT,
) -> Selection:
    """Like :func:`select_within_budget`, plus totals, the method that ran and its guarantee.

    >>> s = select_within_budget_detailed([10, 4, 6], [60.0, 40.0, 50.0], 10)
    >>> (s.indices.tolist(), s.total_value, s.total_cost, s.method, s.guarantee)
    ([1, 2], 90.0, 10, 'exact', 1.0)
    """
    idx, c, v, method, guarantee = _run(costs, values, budget, strategy, must_keep, cell_limit)
    total_value = 0.0
    for i in idx.tolist():
        total_value += float(v[i])
    if method not in ("exact", "greedy", "approximate"):
        raise AssertionError(f"unexpected method {method!r} from the native core")
    return Selection(
        indices=idx,
        total_value=total_value,
        total_cost=int(c[idx].sum()),
        method=method,  # type: ignore[arg-type]
        guarantee=guarantee,
    )
