"""Bounded recency and usage priors: age and use nudge a ranking, they never bury a match.

Recall used to multiply the fused score by ``exp(-0.005 · hours)`` — 0.03 after 30 days — so a
month-old memory that answers the question lost to any fresh small talk. Here both are priors
bounded away from zero:

* ``recency = 1 − weight + weight · exp(−rate · hours since creation)`` ∈ (1 − weight, 1];
* ``usage = 1 + hit_weight · n / (1 + n)`` for ``n`` accesses ∈ [1, 1 + hit_weight).

With the default ``weight`` (:data:`DEFAULT_RECENCY_WEIGHT`, 0.05) the oldest memory keeps 95 %
of its fused score, so recency only reorders hits whose fused scores are within 5 % — a
tie-break, which is what it should be (under RRF that is still a few ranks: 1/61 vs 1/64).
Between memories that state *different values of one keyed fact* recency still decides outright
(:mod:`remem.controller.stages.conflicts`). ``rate`` and ``hit_weight`` stay those of
:class:`remem.lifecycle.InclusionScorerConfig` (the spec's inclusion scorer, which still gates
long-term inclusion where the spec uses it), and the unbounded terms are that scorer's own
(:func:`remem.kernels.scoring.recency_factor`, :func:`~remem.kernels.scoring.usage_factor`).

>>> round(recency_prior(24 * 180, rate=0.005, weight=0.1), 3)
0.9
>>> usage_prior(0, hit_weight=0.1)
1.0
"""

from __future__ import annotations

from dataclasses import dataclass

from remem.errors import ConfigError
from remem.kernels import scoring

__all__ = ["DEFAULT_RECENCY_WEIGHT", "RecencyPriorConfig", "recency_prior", "usage_prior"]

DEFAULT_RECENCY_WEIGHT = 0.05
"""Chosen on LoCoMo dev by ``benches/locomo_stages.py --grid`` (0 and 0.05 are level with no
recency at all; 0.2 and more cost R@10), the largest weight that costs LoCoMo nothing, so fresh
values still win near-ties."""


@dataclass(frozen=True)
class RecencyPriorConfig:
    """``weight``: the share of the fused score that recency may take away (0 = recency off,
    1 = the old unbounded ``exp`` factor). ``bounded_usage``: usage saturates at
    ``1 + hit_weight`` (False: the old ``1 + hit_weight · ln(1 + n)``)."""

    weight: float = DEFAULT_RECENCY_WEIGHT
    bounded_usage: bool = True

    def __post_init__(self) -> None:
        if not (isinstance(self.weight, int | float) and 0.0 <= self.weight <= 1.0):
            raise ConfigError(f"recency weight is {self.weight!r}; use a number in [0, 1]")
        if not isinstance(self.bounded_usage, bool):
            raise ConfigError(f"bounded_usage must be true or false, got {self.bounded_usage!r}")


def recency_prior(hours: float, *, rate: float, weight: float) -> float:
    """``1 − weight + weight · exp(−rate · max(hours, 0))``; never below ``1 − weight``."""
    return 1.0 - weight + weight * scoring.recency_factor(hours, rate)


def usage_prior(access_count: int, *, hit_weight: float, bounded: bool = True) -> float:
    """``1 + hit_weight · n/(1+n)`` (bounded) or ``1 + hit_weight · ln(1+n)``; n < 0 counts 0."""
    n = max(0, access_count)
    if bounded:
        # 1 + w − w/(1+n) (= 1 + w·n/(1+n)): each step is monotone in n after rounding too.
        return 1.0 + (hit_weight - hit_weight / (1.0 + n))  # inner part exactly 0 at n = 0
    return scoring.usage_factor(n, hit_weight)
