"""Reference (pure-Python) budgeted selection: the specification of ``select_within_budget``.

Inputs: ``costs`` (integer token counts ≥ 0), ``values`` (finite floats), ``budget`` (≥ 0),
optional ``must_keep`` (bools). Output: chosen indices, ascending, as int64.

The algorithm, step by step (the native kernel follows it operation for operation, so chosen
index sets are identical — including among several optimal sets of equal value):

1. Validate: lengths equal (ShapeError), costs ≥ 0 and budget ≥ 0 (InvalidArgumentError), values
   finite (NonFiniteError), strategy "optimal" or "greedy" (InvalidArgumentError).
2. Must-keep items are always chosen. If their total cost exceeds the budget → BudgetError.
   ``cap = budget - must-keep cost``.
3. Candidates, in index order: not must-keep, ``value > 0``, ``cost ≤ cap``. (Items of value ≤ 0
   are never chosen unless must-keep.) If the candidates' values sum (left to right) past the f64
   range → InvalidArgumentError.
4. Shortcut: if the candidates' total cost ≤ cap, all are chosen (method "exact").
5. "greedy": candidates sorted by value/cost descending (cost 0 counts as +inf), then value
   descending, then index ascending; each is taken if it still fits. Method "greedy", no bound.
6. "optimal": zero-cost candidates are taken; the others (index order) form the DP items. If
   ``len(items) x (cap + 1) ≤ cell_limit`` the exact row DP runs: ``row[w] = 0``; for each item
   (c, v) in order, ``t = old[w - c] + v`` and the item is taken at w iff ``t > old[w]`` (strictly:
   on a tie the earlier items' solution is kept); reconstruction walks items backwards from
   ``w = cap``. Method "exact". Among optimal sets this picks the one that leaves out the
   highest-index items first. Before the DP, LP-bound variable fixing (:func:`_fix`) decides most
   items: the DP then runs only over the free items (index order) that fit the residual capacity
   ``cap - Σ fixed-in costs``, and the result is the fixed-in items plus its choice. Every
   optimal set agrees with the fixes, so the set chosen is the same as without them.
7. Above ``cell_limit`` (default 2**27 cells) the result is the best — by total value summed in
   ascending index order, the earlier option winning ties — of
   a. an FPTAS: ``K = (Σ DP-item values) / (cell_limit // n - 1)``, profits ``floor(v / K)``
      (items with profit 0 dropped), a min-cost DP over total profit (take iff strictly cheaper;
      walk back from the largest profit whose min cost ≤ cap); skipped if ``cell_limit // n < 2``;
   b. the greedy solution of step 5;
   c. the zero-cost candidates plus the single DP item of highest value (lowest index on ties).
   Method "approximate", guarantee ``max(½, 1 - n·K / best_value)``: the FPTAS loses < K per item
   so its value ≥ OPT - n·K, and greedy + best single item ≥ OPT (the classic ½ bound).
"""

from __future__ import annotations

import bisect
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem.errors import BudgetError, InvalidArgumentError, NonFiniteError, ShapeError

__all__ = ["DEFAULT_CELL_LIMIT", "select_with_method", "select_within_budget"]

DEFAULT_CELL_LIMIT = 1 << 27


def _total(values: list[float], idx: list[int]) -> float:
    total = 0.0
    for i in sorted(idx):
        total += values[i]
    return total


def _greedy(costs: list[int], values: list[float], cands: list[int], cap: int) -> list[int]:
    def key(i: int) -> tuple[float, float, int]:
        density = math.inf if costs[i] == 0 else values[i] / costs[i]
        return (-density, -values[i], i)

    left = cap
    chosen = []
    for i in sorted(cands, key=key):
        if costs[i] <= left:
            left -= costs[i]
            chosen.append(i)
    return chosen


def _exact(items: list[tuple[int, float]], cap: int) -> list[int]:
    old = [0.0] * (cap + 1)
    takes: list[list[bool]] = []
    for c, v in items:
        new = old[:]
        row = [False] * (cap + 1)
        for w in range(c, cap + 1):
            t = old[w - c] + v
            if t > old[w]:
                new[w] = t
                row[w] = True
        takes.append(row)
        old = new
    chosen = []
    w = cap
    for j in range(len(items) - 1, -1, -1):
        c = items[j][0]
        if w >= c and takes[j][w]:
            chosen.append(j)
            w -= c
    return chosen[::-1]


def _fix(items: list[tuple[int, float]], cap: int) -> tuple[list[int], list[int]]:
    """LP-bound variable fixing (Martello & Toth): ``(fixed_in, free)`` positions, ascending.

    Items (cost ≥ 1, value > 0, cost ≤ cap) by density ``v / c`` descending, index ascending;
    prefix costs ``pc`` and values ``pv`` (summed in that order). ``s`` = the critical position
    (items whose prefix cost ≤ cap fit whole); if every item fits, nothing is fixed.
    ``lp(w) = pv[k-1] + (w - pc[k-1]) * density[k]`` with ``k`` = items whose prefix cost ≤ w
    (the empty prefix is 0; no fraction when ``k = m``) bounds every selection at capacity w.
    ``lb`` = greedy-with-fill: ``pv[s-1]``, plus each later item (density order) that still fits.
    ``tol = pv[m-1] * (1e-9 + 1e-15 * m)``. An item before ``s`` is fixed in when
    ``lp(cap + c) - v + tol < lb`` (no selection without it reaches lb); one after ``s`` is fixed
    out when ``v + lp(cap - c) + tol < lb``. The critical item stays free.
    """
    m = len(items)
    density = [v / c for c, v in items]
    order = sorted(range(m), key=lambda j: -density[j])
    pc: list[int] = []
    pv: list[float] = []
    sc, sv = 0, 0.0
    for j in order:
        sc += items[j][0]
        sv += items[j][1]
        pc.append(sc)
        pv.append(sv)
    s = bisect.bisect_right(pc, cap)
    if s >= m:
        return [], list(range(m))

    def lp(w: int) -> float:
        k = bisect.bisect_right(pc, w)
        whole, used = (pv[k - 1], pc[k - 1]) if k > 0 else (0.0, 0)
        frac = float(w - used) * density[order[k]] if k < m else 0.0
        return whole + frac

    lb = pv[s - 1] if s > 0 else 0.0
    room = cap - (pc[s - 1] if s > 0 else 0)
    for j in order[s + 1 :]:
        c, v = items[j]
        if c <= room:
            room -= c
            lb += v
    tol = pv[m - 1] * (1e-9 + 1e-15 * m)
    fixed = [0] * m
    for j in order[:s]:
        c, v = items[j]
        if lp(cap + c) - v + tol < lb:
            fixed[j] = 1
    for j in order[s + 1 :]:
        c, v = items[j]
        if v + lp(cap - c) + tol < lb:
            fixed[j] = -1
    return [j for j in range(m) if fixed[j] == 1], [j for j in range(m) if fixed[j] == 0]


def _by_profit(items: list[tuple[int, int]], cap: int) -> list[int]:
    width = sum(p for _, p in items) + 1
    inf = math.inf
    old: list[float] = [inf] * width
    old[0] = 0
    takes: list[list[bool]] = []
    for c, p in items:
        new = old[:]
        row = [False] * width
        for q in range(p, width):
            t = old[q - p] + c
            if t < old[q]:
                new[q] = t
                row[q] = True
        takes.append(row)
        old = new
    q = max((k for k in range(width) if old[k] <= cap), default=0)
    chosen = []
    for j in range(len(items) - 1, -1, -1):
        p = items[j][1]
        if q >= p and takes[j][q]:
            chosen.append(j)
            q -= p
    return chosen[::-1]


def select_with_method(
    costs: ArrayLike,
    values: ArrayLike,
    budget: int,
    *,
    strategy: str = "optimal",
    must_keep: ArrayLike | None = None,
    cell_limit: int = DEFAULT_CELL_LIMIT,
) -> tuple[NDArray[np.int64], str, float]:
    """(indices, method, guarantee): the full result of the algorithm in the module docstring."""
    if strategy not in ("optimal", "greedy"):
        raise InvalidArgumentError(f"unknown strategy {strategy!r}; use 'optimal' or 'greedy'")
    cost_list = [int(c) for c in np.asarray(costs, dtype=np.int64).ravel()]
    value_list = [float(v) for v in np.asarray(values, dtype=np.float64).ravel()]
    n = len(cost_list)
    if len(value_list) != n:
        raise ShapeError(f"values has length {len(value_list)} but {n} was expected")
    keep = [False] * n
    if must_keep is not None:
        keep = [bool(k) for k in np.asarray(must_keep, dtype=bool).ravel()]
        if len(keep) != n:
            raise ShapeError(f"must_keep has length {len(keep)} but {n} was expected")
    for i, v in enumerate(value_list):
        if not math.isfinite(v):
            raise NonFiniteError(f"values[{i}] is {v}, but only finite values are allowed")
    for i, c in enumerate(cost_list):
        if c < 0:
            raise InvalidArgumentError(f"costs[{i}] is {c}; token costs must be >= 0")
    if budget < 0:
        raise InvalidArgumentError(f"budget is {budget}; use a token budget >= 0")
    kept = [i for i in range(n) if keep[i]]
    required = sum(cost_list[i] for i in kept)
    if required > budget:
        raise BudgetError(f"the must-keep items cost {required} tokens but the budget is {budget}")
    cap = budget - required
    cands = [i for i in range(n) if not keep[i] and value_list[i] > 0 and cost_list[i] <= cap]
    if not math.isfinite(_total(value_list, cands)):
        raise InvalidArgumentError("the positive values sum past the f64 range; rescale them")

    def done(idx: list[int], method: str, guarantee: float) -> tuple[NDArray[np.int64], str, float]:
        return np.array(sorted(idx), dtype=np.int64), method, guarantee

    if sum(cost_list[i] for i in cands) <= cap:
        return done(kept + cands, "exact", 1.0)
    if strategy == "greedy":
        return done(kept + _greedy(cost_list, value_list, cands, cap), "greedy", 0.0)
    zero = [i for i in cands if cost_list[i] == 0]
    dp_items = [i for i in cands if cost_list[i] > 0]
    m = len(dp_items)
    if m * (cap + 1) <= cell_limit:
        items = [(cost_list[i], value_list[i]) for i in dp_items]
        fixed_in, free = _fix(items, cap)
        residual = cap - sum(items[j][0] for j in fixed_in)
        free = [j for j in free if items[j][0] <= residual]
        chosen = [free[k] for k in _exact([items[j] for j in free], residual)]
        return done(kept + zero + [dp_items[j] for j in fixed_in + chosen], "exact", 1.0)
    options: list[list[int]] = []
    p_budget = max(cell_limit // m - 1, 0)
    step = math.inf
    if p_budget >= 1:
        step = _total(value_list, dp_items) / p_budget
        scaled = [
            (j, cost_list[i], math.floor(value_list[i] / step)) for j, i in enumerate(dp_items)
        ]
        kept_items = [(j, c, p) for j, c, p in scaled if p >= 1]
        chosen = _by_profit([(c, p) for _, c, p in kept_items], cap)
        options.append(zero + [dp_items[kept_items[k][0]] for k in chosen])
    options.append(_greedy(cost_list, value_list, cands, cap))
    best = dp_items[0]
    for i in dp_items:
        if value_list[i] > value_list[best]:
            best = i
    options.append([*zero, best])
    winner, winner_value = 0, _total(value_list, options[0])
    for k in range(1, len(options)):
        v = _total(value_list, options[k])
        if v > winner_value:
            winner, winner_value = k, v
    ratio = 1.0 - m * step / winner_value if winner_value > 0 and math.isfinite(step) else 0.0
    return done(kept + options[winner], "approximate", max(ratio, 0.5))


def select_within_budget(
    costs: ArrayLike,
    values: ArrayLike,
    budget: int,
    *,
    strategy: str = "optimal",
    must_keep: ArrayLike | None = None,
    cell_limit: int = DEFAULT_CELL_LIMIT,
) -> NDArray[np.int64]:
    """Chosen indices, ascending (see the module docstring for the full specification).

    >>> select_within_budget([10, 4, 6], [60.0, 40.0, 50.0], 10).tolist()
    [1, 2]
    """
    return select_with_method(
        costs, values, budget, strategy=strategy, must_keep=must_keep, cell_limit=cell_limit
    )[0]
