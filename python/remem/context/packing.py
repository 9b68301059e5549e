"""Budgeted packing with history as one nested chain: exact, and the seed rules by construction.

The problem. Supporting items are independent 0/1 choices (cost = tokens of their rendered line,
value = score x section weight); core items are must-keep. History is not: the seed requires
that current-session history kept be the most recent turns, contiguous and in order, and that
prior-session turns be dropped before any current-session turn. Both rules together mean that
the only admissible history selections are the prefixes of one *chain*::

    current newest, current 2nd newest, …, current oldest, prior newest, …, prior oldest

keeping ``t`` history turns = keeping the first ``t`` links. Pruning shortens the chain from its
end, so prior turns go first (oldest first), then current turns (oldest first); the current turns
kept are always a most-recent contiguous suffix of the session. No other selection can be
returned, whatever the values, so the rules hold by construction.

The search. For a chain length ``t`` the best supporting selection is a 0/1 knapsack at capacity
``cap - H(t)`` (H, V: prefix cost and value of the chain), solved by the native
:func:`~remem.kernels.select_within_budget`. Rather than solving it for every ``t``, a
branch-and-bound over ``t`` uses the LP-relaxation bound ``UB(t) = V(t) + LP(cap - H(t))``
(fractional greedy over value density, an upper bound on any 0/1 solution): lengths are probed
in decreasing ``UB`` order and the search stops as soon as the best exact value found is ≥ the
next bound. The result is then optimal over *all* chain lengths (``exhaustive=True``), usually
after one or two knapsack runs, because the LP bound is within one item's value of the optimum.
``max_probes`` caps the runs; if it is reached, ``exhaustive=False`` is reported.

Formatting overhead. Each item's cost already includes its own rendering (bullet, timestamp,
role lines). Section headers and the context wrapper are charged only for non-empty sections:
they are reserved up front for every section that has eligible items, and after packing the
reservations of sections that ended empty are released and the freed tokens refilled (first by
extending the chain, then with the densest remaining items, paying a header if the item opens a
section). The refill only adds items, so the value never decreases. The search is therefore
exact *given* the reservation: a packing that saves a header by leaving a section empty (a few
tokens per section) can beat it, and ``"optimal"`` also runs the greedy search and keeps the
better of the two, so it is never worse than ``"greedy"``.

Speed. Before each exact knapsack the classic LP-bound variable fixing
(:func:`~remem.context.knapsack.reduced_select`) fixes every item whose inclusion or exclusion
provably cannot change the optimum, so the native DP runs only over the few items near the
critical value density, at the residual capacity. The lower bound it fixes against is the
density greedy *with* its fill (every later item that still fits), not just the prefix: within a
fraction of an item of the optimum, it fixes about six times more items (1,000 candidates at
4,000 tokens: ~40 free items at ~400 tokens instead of ~240 at ~2,000, a DP some 40x smaller).
Greedy probes never call the native kernel: the items are sorted once per packing
(:class:`~remem.context.knapsack.Relaxation`, same order and tie-breaks as
``select_within_budget(strategy="greedy")``, checked against it in the tests) and each probe is
a ``searchsorted`` plus the few items that still fit after the critical one.

When each method runs (unchanged by the speed-ups; the golden test pins the output):

* ``strategy="greedy"``: never the DP; greedy probes only.
* ``strategy="optimal"``: the exact search, then the greedy search, the better kept (ties to
  exact). In the exact search a probe runs no DP when every optional item fits at its capacity
  (the whole set is trivially optimal, method ``"exact"``); otherwise the native DP runs over
  the items the fixing left free, at the residual capacity (empty or fitting free sets are the
  kernel's own shortcut). A budget that is not binding therefore costs no DP at all.

Utilisation. At the end no remaining eligible item fits in the slack (the refill would have taken
it) and no further chain link fits; so ``slack < min(cost of every dropped eligible item,
including its header)``. With enough candidates of cost ≤ 5% of the budget, utilisation is
≥ 95%.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from remem.context.config import Strategy
from remem.context.knapsack import Relaxation, reduced_select
from remem.errors import BudgetError

__all__ = ["Packing", "PackingProblem", "pack"]

_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class PackingProblem:
    """Plain arrays: supporting items (with their section group), the chain and the budget.

    ``group_costs[g]`` is the header cost of group ``g``; ``wrapper_cost`` is charged once when
    any supporting item is kept. ``min_chain`` links are forced (BudgetError if they do not fit).
    """

    item_costs: NDArray[np.int64]
    item_values: NDArray[np.float64]
    item_groups: NDArray[np.int64]
    must_keep: NDArray[np.bool_]
    group_costs: NDArray[np.int64]
    wrapper_cost: int
    chain_costs: NDArray[np.int64]
    chain_values: NDArray[np.float64]
    min_chain: int
    budget: int


@dataclass(frozen=True, slots=True)
class Packing:
    """The chosen items (mask), chain length, accounted cost and how the search went."""

    kept: NDArray[np.bool_]
    chain_length: int
    cost: int
    value: float
    method: str
    probes: int
    exhaustive: bool


def _overhead(problem: PackingProblem, kept: NDArray[np.bool_]) -> int:
    if not kept.any():
        return 0
    present = np.bincount(problem.item_groups[kept], minlength=problem.group_costs.size) > 0
    return int(problem.group_costs[present].sum()) + problem.wrapper_cost


def accounted_cost(problem: PackingProblem, kept: NDArray[np.bool_], chain_length: int) -> int:
    """Items + headers of non-empty sections + wrapper + the chain prefix."""
    return (
        int(problem.item_costs[kept].sum())
        + _overhead(problem, kept)
        + int(problem.chain_costs[:chain_length].sum())
    )


def pack(problem: PackingProblem, strategy: Strategy = "optimal", max_probes: int = 8) -> Packing:
    """Choose the chain length and supporting items; see the module docstring for the method.

    ``"optimal"`` also runs the (cheap) greedy search and returns the better of the two: the
    exact search is exact *given* the header reservation, and a greedy packing that leaves a
    section empty may refill the freed header tokens more profitably. So optimal ≥ greedy always.
    Both searches share one setup (reservation, chain prefix sums, the bounds and probe order).
    """
    search = _Search(problem)
    if strategy == "optimal":
        exact = _pack(search, "optimal", max_probes)
        greedy = _pack(search, "greedy", max_probes)
        return exact if exact.value >= greedy.value else greedy
    return _pack(search, strategy, max_probes)


class _Search:
    """What both strategies share: the LP, the chain's prefix sums, each length's cap and bound."""

    def __init__(self, p: PackingProblem) -> None:
        self.problem = p
        n = p.item_costs.size
        self.opt_idx = np.flatnonzero(~p.must_keep & (p.item_values > 0))
        self.oc = p.item_costs[self.opt_idx]
        self.ov = p.item_values[self.opt_idx]
        self.lp = Relaxation(self.oc, self.ov)
        eligible = np.bincount(p.item_groups, minlength=p.group_costs.size) > 0
        reserve = int(p.group_costs[eligible].sum()) + (p.wrapper_cost if n else 0)
        core_cost = int(p.item_costs[p.must_keep].sum())
        cap0 = p.budget - reserve - core_cost
        self.prefix_cost = np.concatenate([[0], np.cumsum(p.chain_costs)]).astype(np.int64)
        self.prefix_value = np.concatenate([[0.0], np.cumsum(p.chain_values)])
        chain_len = p.chain_costs.size
        self.forced = forced = min(p.min_chain, chain_len)
        if cap0 < self.prefix_cost[forced]:
            raise BudgetError(
                f"core memory ({core_cost} tokens), section headers ({reserve}) and the "
                f"{forced} most recent turn(s) ({int(self.prefix_cost[forced])}) exceed the "
                f"{p.budget} tokens left for context; raise the budget or lower min_current_turns"
            )
        lengths = np.arange(forced, chain_len + 1)
        caps = cap0 - self.prefix_cost[lengths]
        self.lengths, self.caps = lengths[caps >= 0], caps[caps >= 0]
        self.bounds = self.prefix_value[self.lengths] + self.lp.bound(self.caps)
        # Highest bound first; longer history on ties.
        self.order = np.lexsort((-self.lengths, -self.bounds)).tolist()


def _pack(search: _Search, strategy: Strategy, max_probes: int) -> Packing:
    p = search.problem
    must = p.must_keep
    opt_idx, lp, oc, ov = search.opt_idx, search.lp, search.oc, search.ov
    lengths, caps, bounds, prefix_value = (
        search.lengths,
        search.caps,
        search.bounds,
        search.prefix_value,
    )
    chain_len = p.chain_costs.size
    best_t, best_value = search.forced, -np.inf
    best_sel, method = np.zeros(0, dtype=np.int64), "exact"
    probes, exhaustive = 0, True
    for j in search.order:
        if bounds[j] <= best_value + _EPS * max(1.0, abs(best_value)):
            break
        if probes == max_probes:
            exhaustive = False
            break
        if strategy == "optimal":
            idx, sel_value, sel_method = reduced_select(lp, oc, ov, int(caps[j]))
        else:
            idx, sel_value, sel_method = lp.greedy(int(caps[j]))
        probes += 1
        value = float(prefix_value[lengths[j]]) + sel_value
        if value > best_value:
            best_t, best_value, best_sel, method = int(lengths[j]), value, idx, sel_method

    kept = must.copy()
    kept[opt_idx[best_sel]] = True
    t = best_t
    slack = p.budget - accounted_cost(p, kept, t)
    # Refill the released header reservations: chain first (keeps it contiguous), then items.
    while t < chain_len and p.chain_costs[t] <= slack and p.chain_values[t] > 0:
        slack -= int(p.chain_costs[t])
        t += 1
    rest = opt_idx[~kept[opt_idx]]
    if rest.size and slack > 0 and int(p.item_costs[rest].min()) <= slack:
        # An item costing more than the slack never fits (the slack only shrinks): skip them.
        # ``rest`` stays in index order, so the stable density sort orders ties as before.
        rest = rest[p.item_costs[rest] <= slack]
        dens = p.item_values[rest] / np.maximum(p.item_costs[rest], 1)
        open_groups = set(np.unique(p.item_groups[kept]).tolist())
        any_kept = bool(kept.any())
        for i in rest[np.argsort(-dens, kind="stable")].tolist():
            g = int(p.item_groups[i])
            extra = int(p.item_costs[i])
            if g not in open_groups:
                extra += int(p.group_costs[g])
            if not any_kept:
                extra += p.wrapper_cost
            if extra <= slack:
                kept[i] = True
                slack -= extra
                open_groups.add(g)
                any_kept = True
    value = float(p.item_values[kept].sum()) + float(prefix_value[t])
    return Packing(
        kept=kept,
        chain_length=t,
        cost=p.budget - slack,
        value=value,
        method=method,
        probes=probes,
        exhaustive=exhaustive,
    )


def shrink(problem: PackingProblem, packing: Packing, by: int) -> Packing:
    """Drop the least dense optional items (then the oldest chain links) until ``by`` tokens go.

    Used only when the rendered prompt counts more than the sum of its parts (tokenizers are not
    exactly additive at joins); must-keep items and the forced chain prefix are never dropped.
    """
    p = problem
    kept = packing.kept.copy()
    t = packing.chain_length
    freed = 0
    optional = np.flatnonzero(kept & ~p.must_keep)
    dens = p.item_values[optional] / np.maximum(p.item_costs[optional], 1)
    before = accounted_cost(p, kept, t)
    for i in optional[np.argsort(dens, kind="stable")].tolist():
        if freed >= by:
            break
        kept[i] = False
        freed = before - accounted_cost(p, kept, t)
    while freed < by and t > min(p.min_chain, p.chain_costs.size):
        t -= 1
        freed = before - accounted_cost(p, kept, t)
    if freed < by:
        raise BudgetError(
            "the rendered prompt exceeds the budget even with only core memory and the forced "
            "recent turns; raise the budget or lower min_current_turns"
        )
    prefix_value = float(p.chain_values[:t].sum())
    return Packing(
        kept=kept,
        chain_length=t,
        cost=before - freed,
        value=float(p.item_values[kept].sum()) + prefix_value,
        method=packing.method,
        probes=packing.probes,
        exhaustive=packing.exhaustive,
    )
