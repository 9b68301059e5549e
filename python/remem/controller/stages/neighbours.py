"""Session-neighbour context for full-text turn hits, propagated at recall time.

A conversation's answer is often split over turns: "Did you go?" / "Yes, last Friday" — the
second turn holds the fact, the first the words the question uses. Each turn hit's full-text
score gains a down-weighted share of the scores of the turns around it in the same session
(``before`` turns before, ``after`` after, ``weight`` each), and the full-text list is re-sorted
by the result before fusion:

    score'(t) = score(t) + weight · Σ_{n ∈ neighbours(t) ∩ hits} max(score(n), 0)

Only hits of the (deeper, ``depth_factor`` ×) full-text search take part, so the stage needs no
store method beyond ``search`` and behaves the same on every backend (BM25 and ts_rank are both
"higher is better"; the share is relative to the backend's own scale). Notes (memories) have no
turn number and keep their score. Chosen over indexing each turn with its neighbours' words,
which would change every store's tokenisation, by measurement (``benches/locomo_stages.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from remem.errors import ConfigError
from remem.models import EpisodeKind, EpisodicHit

__all__ = ["NeighbourConfig", "NeighbourScored", "propagate_neighbours"]


@dataclass(frozen=True)
class NeighbourConfig:
    """``enabled``; ``before``/``after``: how many turns either side count; ``weight``: each
    neighbour's share; ``depth_factor``: the full-text search runs this many times deeper
    than the other retrievers so neighbours are found (the list is cut back afterwards)."""

    enabled: bool = True
    before: int = 2
    after: int = 2
    weight: float = 0.5
    depth_factor: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"neighbours.enabled must be true or false, got {self.enabled!r}")
        for name in ("before", "after"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 10:
                raise ConfigError(f"neighbours.{name} must be an integer in 0..10, got {v!r}")
        f = self.depth_factor
        if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 20:
            raise ConfigError(f"neighbours.depth_factor must be an integer in 1..20, got {f!r}")
        if not (isinstance(self.weight, int | float) and 0.0 <= self.weight <= 1.0):
            raise ConfigError(f"neighbours.weight is {self.weight!r}; use a number in [0, 1]")


@dataclass(frozen=True, slots=True)
class NeighbourScored:
    """A full-text hit with its propagated score and the part its neighbours added."""

    hit: EpisodicHit
    score: float
    share: float


def propagate_neighbours(
    hits: Sequence[EpisodicHit], config: NeighbourConfig
) -> list[NeighbourScored]:
    """``hits`` re-scored by the formula in the module docstring, best first (ties keep the
    store's order). Disabled, every share is 0 and the order is unchanged.

    >>> propagate_neighbours([], NeighbourConfig())
    []
    """
    if not config.enabled or (config.before == 0 and config.after == 0) or config.weight == 0:
        return [NeighbourScored(h, h.score, 0.0) for h in hits]
    by_position: dict[tuple[str, int], float] = {}
    for h in hits:
        if h.kind is EpisodeKind.TURN and h.session_id is not None and h.turn_number is not None:
            key = (h.session_id, h.turn_number)
            by_position[key] = max(by_position.get(key, 0.0), max(h.score, 0.0))
    out: list[tuple[float, int, NeighbourScored]] = []
    for i, h in enumerate(hits):
        share = 0.0
        if h.kind is EpisodeKind.TURN and h.session_id is not None and h.turn_number is not None:
            n = h.turn_number
            for offset in (*range(-config.before, 0), *range(1, config.after + 1)):
                share += by_position.get((h.session_id, n + offset), 0.0)
            share *= config.weight
        out.append((-(h.score + share), i, NeighbourScored(h, h.score + share, share)))
    out.sort(key=lambda t: (t[0], t[1]))
    return [t[2] for t in out]
