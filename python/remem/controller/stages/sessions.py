"""Session evidence: the sessions holding a query's best hits lend their other strong turns a lift.

A multi-hop question ("What activities does Melanie do with her family?") is answered by several
turns, and the turns of one session that talk about it tend to be found together: one scores
high, the others only fairly, below isolated turns of other sessions that share a word. After
the priors, each candidate with a session (a turn's, or a memory's ``session_id``) belongs to
that session; a session's *strength* is its best candidate's score relative to the best score
of the query (0..1]. Within the ``top`` strongest sessions, a candidate whose score is at least
``min_ratio`` × its session's best is multiplied by

    1 + boost · strength(session)

— bounded by ``1 + boost``, so the stage reorders fair hits and never lifts a weak one above
a strong one by more than that. Candidates without a session, of other sessions, or weaker than
``min_ratio`` × their session's best keep factor 1. Ties among sessions go by session id, so
the stage is deterministic.

>>> session_factors({"a": 1.0, "b": 0.6, "c": 0.7}, {"a": "s1", "b": "s1", "c": "s2"},
...                 SessionConfig(enabled=True, top=1, boost=0.5, min_ratio=0.5))
{'a': 1.5, 'b': 1.5, 'c': 1.0}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from remem.errors import ConfigError

__all__ = ["SessionConfig", "session_factors"]


@dataclass(frozen=True)
class SessionConfig:
    """``enabled``; ``top``: how many of the strongest sessions lend a lift; ``boost``: the
    largest lift (``1 + boost``, for the strongest session); ``min_ratio``: a candidate gets it
    only when its score is at least this share of its session's best."""

    enabled: bool = False
    top: int = 3
    boost: float = 0.3
    min_ratio: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"sessions.enabled must be true or false, got {self.enabled!r}")
        t = self.top
        if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= 100:
            raise ConfigError(f"sessions.top must be an integer in 1..100, got {t!r}")
        if not (isinstance(self.boost, int | float) and 0.0 <= self.boost <= 10.0):
            raise ConfigError(f"sessions.boost is {self.boost!r}; use a number in [0, 10]")
        r = self.min_ratio
        if isinstance(r, bool) or not (isinstance(r, int | float) and 0.0 <= r <= 1.0):
            raise ConfigError(f"sessions.min_ratio is {r!r}; use a number in [0, 1]")


def session_factors(
    scores: Mapping[str, float], sessions: Mapping[str, str | None], config: SessionConfig
) -> dict[str, float]:
    """Every key of ``scores`` with its factor (see the module docstring); all 1.0 when the
    stage is off, its boost is 0, or no score is positive. ``sessions[key]``: the candidate's
    session, None or absent for none."""
    out = dict.fromkeys(scores, 1.0)
    if not config.enabled or config.boost == 0 or not scores:
        return out
    peak = max(scores.values())
    if peak <= 0:
        return out
    best: dict[str, float] = {}
    for key, score in scores.items():
        s = sessions.get(key)
        if s is not None:
            best[s] = max(best.get(s, float("-inf")), score)
    ranked = sorted(best, key=lambda s: (-best[s], s))[: config.top]
    for s in ranked:
        if best[s] <= 0:
            continue
        lift = 1.0 + config.boost * best[s] / peak
        floor = config.min_ratio * best[s]
        for key, score in scores.items():
            if sessions.get(key) == s and score >= floor:
                out[key] = lift
    return out
