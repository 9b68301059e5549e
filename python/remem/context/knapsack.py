"""The optional items' knapsack for the packer: LP relaxation, greedy and the reduced exact DP.

:class:`Relaxation` sorts the items by value density once; from it come the fractional bound
(for the packer's branch-and-bound over chain lengths), the greedy selection (identical to
``select_within_budget(strategy="greedy")``, without the native call) and
:func:`reduced_select`, the exact knapsack after LP-bound variable fixing. See
:mod:`remem.context.packing` for how the packer uses them and when each runs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from remem.kernels import select_within_budget_detailed

__all__ = ["Relaxation", "reduced_select"]


class Relaxation:
    """The LP relaxation of the optional items: items by value density, with prefix sums."""

    def __init__(self, costs: NDArray[np.int64], values: NDArray[np.float64]) -> None:
        density = np.where(costs > 0, values / np.maximum(costs, 1), np.inf)
        self.order = np.argsort(-density, kind="stable")
        self.density = density[self.order]
        self.pc = np.cumsum(costs[self.order])
        self.pv = np.cumsum(values[self.order])
        self.n = costs.size
        self.costs = costs
        self.values = values
        self._greedy_order = self.order
        self._greedy_pc: NDArray[np.int64] | None = None

    def greedy(self, cap: int) -> tuple[NDArray[np.int64], float, str]:
        """``select_within_budget(strategy="greedy")`` at ``cap``, without the native call.

        Identical result (indices ascending, value summed in index order, method ``"exact"`` when
        every item of cost ≤ cap fits, else ``"greedy"``): items by density, then value, then
        index, each taken if it still fits. The order is sorted once per packing and every probe
        reuses it: a prefix by ``searchsorted``, then the few later items that still fit.
        """
        costs = self.costs
        if self.n == 0:
            return np.zeros(0, dtype=np.int64), 0.0, "exact"
        fitting = costs <= cap
        if int(costs[fitting].sum()) <= cap:
            idx = np.flatnonzero(fitting)
            method = "exact"
        else:
            if self._greedy_pc is None:
                self._greedy_order = self._tie_broken()
                self._greedy_pc = np.cumsum(costs[self._greedy_order])
            order, pc = self._greedy_order, self._greedy_pc
            s = int(np.searchsorted(pc, cap, side="right"))
            room = cap - (int(pc[s - 1]) if s else 0)
            later = _fill(costs[order[s + 1 :]], room)
            idx = np.sort(np.concatenate([order[:s], order[s + 1 :][later]]))
            method = "greedy"
        total = float(np.cumsum(self.values[idx])[-1]) if idx.size else 0.0
        return idx, total, method

    def _tie_broken(self) -> NDArray[np.int64]:
        """The density order with equal-density runs re-sorted by value desc, then index.

        ``self.order`` is a stable density sort (ties by index); only the tied runs, usually a
        few short ones, are re-sorted (one small lexsort keyed by run).
        """
        d = self.density
        eq = d[1:] == d[:-1]
        if not eq.any():
            return self.order
        tied = np.zeros(self.n, dtype=np.bool_)
        tied[1:] |= eq
        tied[:-1] |= eq
        run = np.concatenate([[0], np.cumsum(~eq)])
        pos = np.flatnonzero(tied)
        sub = self.order[pos]
        order = self.order.copy()
        order[pos] = sub[np.lexsort((sub, -self.values[sub], run[pos]))]
        return order

    def bound(self, caps: NDArray[np.int64]) -> NDArray[np.float64]:
        """Fractional-knapsack value at each capacity: ≥ every 0/1 selection's value."""
        if self.n == 0:
            return np.zeros(caps.shape, dtype=np.float64)
        k = np.searchsorted(self.pc, caps, side="right")  # items that fit whole
        prev = np.maximum(k - 1, 0)
        whole = np.where(k > 0, self.pv[prev], 0.0)
        used = np.where(k > 0, self.pc[prev], 0)
        # The next item's density; a zero-cost (infinite density) item adds no fraction.
        dk = self.density[np.minimum(k, self.n - 1)]
        fin = np.isfinite(dk)
        frac = np.where((k < self.n) & fin, (caps - used) * np.where(fin, dk, 0.0), 0.0)
        return whole + frac


def _greedy_fill_value(
    lp: Relaxation, sc: NDArray[np.int64], sv: NDArray[np.float64], s: int, cap: int
) -> float:
    """Value of the density-order greedy at ``cap``: the prefix before the critical item ``s``,
    then every later item that still fits, in order. A feasible selection, so a valid ``LB``."""
    room = cap - (int(lp.pc[s - 1]) if s else 0)
    value = float(lp.pv[s - 1]) if s else 0.0
    for k in _fill(sc[s + 1 :], room):
        value += float(sv[s + 1 + k])
    return value


def _fill(costs: NDArray[np.int64], room: int) -> list[int]:
    """Positions taken by scanning ``costs`` in order and taking each that still fits."""
    pos = np.flatnonzero(costs <= room)
    if not pos.size:
        return []
    cand = costs[pos]
    least = int(cand.min())
    taken: list[int] = []
    for k, c in zip(pos.tolist(), cand.tolist(), strict=True):
        if c <= room:
            room -= c
            taken.append(k)
            if room < least:
                break
    return taken


def reduced_select(
    lp: Relaxation, costs: NDArray[np.int64], values: NDArray[np.float64], cap: int
) -> tuple[NDArray[np.int64], float, str]:
    """Exact 0/1 knapsack after the classic LP-bound variable fixing (Martello & Toth, 1990).

    ``LB`` is the value of a feasible solution (the density-order prefix that fits). An item
    the LP takes whole is fixed *in* when the bound without it, ``LP(cap + c) - v``, is below
    ``LB``; an item after the critical one is fixed *out* when the bound with it,
    ``v + LP(cap - c)``, is below ``LB``. Either way every optimal solution agrees with the fix,
    so solving the knapsack over the free items at the residual capacity is exact — and far
    smaller: only items near the critical density stay free.
    """
    n = lp.n
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0.0, "exact"
    s = int(np.searchsorted(lp.pc, cap, side="right"))  # critical position in density order
    if s >= n:  # everything fits
        return np.sort(lp.order), float(lp.pv[-1]), "exact"
    sc = costs[lp.order]
    sv = values[lp.order]
    lb = _greedy_fill_value(lp, sc, sv, s, cap)
    tol = 1e-9 * max(1.0, abs(lb))
    fix_in = np.zeros(n, dtype=np.bool_)
    fix_out = np.zeros(n, dtype=np.bool_)
    if s:
        fix_in[:s] = lp.bound(cap + sc[:s]) - sv[:s] + tol < lb
    tail = np.arange(s + 1, n)
    if tail.size:
        room = cap - sc[tail]
        fits = room >= 0
        upper = np.full(tail.size, -np.inf)
        upper[fits] = sv[tail[fits]] + lp.bound(room[fits])
        fix_out[tail] = upper + tol < lb
    free = ~(fix_in | fix_out)
    residual = cap - int(sc[fix_in].sum())
    sel = select_within_budget_detailed(sc[free], sv[free], residual, strategy="optimal")
    chosen = np.concatenate([np.flatnonzero(fix_in), np.flatnonzero(free)[sel.indices]])
    idx = np.sort(lp.order[chosen])
    return idx, float(values[idx].sum()), sel.method
