"""Session diversity: a session's later candidates yield to other sessions' (MMR over sessions).

A question whose answer is spread over a conversation ("Where has Melanie camped?": the beach
in one session, the mountains in another, the forest in a third) is answered by turns of
several sessions; the ranking, though, tends to fill its first places with one session's turns,
which share the words and the speaker (on the LoCoMo dev split, the first ten results hold 3
or more turns of one session for 80 % of the questions, while 70 of the 74 multi-hop questions
have their evidence in several sessions). Maximal marginal relevance with session membership
as the redundancy: the final ranking is built greedily, and a candidate whose session already
holds ``m`` of the places above it counts with

    score × decay^min(m, cap)

so one session's second, third… candidates step behind other sessions' near-equal ones, and a
far better candidate still comes first (its factor is bounded below by ``decay^cap``).
Candidates without a session (or without a positive score) are never penalised. The
``diversity`` factor of each candidate is the one it was placed with; ties go by key, so the
stage is deterministic.

>>> diversify({"a": 1.0, "b": 0.9, "c": 0.8}, {"a": "s1", "b": "s1", "c": "s2"},
...           DiversityConfig(enabled=True, decay=0.8))
(['a', 'c', 'b'], {'a': 1.0, 'c': 1.0, 'b': 0.8})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from remem.errors import ConfigError

__all__ = ["DiversityConfig", "diversify"]


@dataclass(frozen=True)
class DiversityConfig:
    """``enabled``; ``decay``: the factor per place a candidate's session already holds
    (0, 1]; ``cap``: the most places counted (the smallest factor is ``decay ** cap``)."""

    enabled: bool = False
    decay: float = 0.8
    cap: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"diversity.enabled must be true or false, got {self.enabled!r}")
        d = self.decay
        if isinstance(d, bool) or not (isinstance(d, int | float) and 0.0 < d <= 1.0):
            raise ConfigError(f"diversity.decay is {d!r}; use a number in (0, 1]")
        c = self.cap
        if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= 100:
            raise ConfigError(f"diversity.cap must be an integer in 1..100, got {c!r}")


def diversify(
    scores: Mapping[str, float],
    sessions: Mapping[str, str | None],
    config: DiversityConfig,
    limit: int | None = None,
) -> tuple[list[str], dict[str, float]]:
    """The keys of ``scores`` in their diversified order (the first ``limit``; all by default)
    and the factor each was placed with (see the module docstring). Off, or a decay of 1: the
    plain order by score then key, every factor 1."""
    plain = sorted(scores, key=lambda key: (-scores[key], key))
    n = len(plain) if limit is None else min(limit, len(plain))
    if not config.enabled or config.decay == 1.0:
        return plain[:n], dict.fromkeys(plain[:n], 1.0)
    held: dict[str, int] = {}
    left = list(plain)
    order: list[str] = []
    factors: dict[str, float] = {}
    while left and len(order) < n:
        best_i, best_v, best_f = 0, float("-inf"), 1.0
        for i, key in enumerate(left):
            if scores[key] <= best_v:
                break  # sorted by score and factors ≤ 1: nothing further can win
            s = sessions.get(key)
            f = 1.0
            if s is not None and scores[key] > 0:
                f = config.decay ** min(held.get(s, 0), config.cap)
            v = scores[key] * f
            if v > best_v:
                best_i, best_v, best_f = i, v, f
        key = left.pop(best_i)
        order.append(key)
        factors[key] = best_f
        s = sessions.get(key)
        if s is not None:
            held[s] = held.get(s, 0) + 1
    return order, factors
