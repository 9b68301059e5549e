"""Inclusion (retrieval) score of long-term memories.

``score = similarity · exp(-recency_rate · hours since creation) · (1 + hit_weight · ln(1 + hits))``
with defaults recency_rate 0.005, hit_weight 0.1 and a pass threshold of 0.6 (``score ≥ threshold``
passes). Age is measured from creation, not last access: retrieval favours what is relevant and
often used, and the recency term is deliberately slow.

>>> from datetime import datetime, timezone
>>> t = datetime(2026, 10, 1, tzinfo=timezone.utc)
>>> LongTermInclusionScorer().score(similarity=0.9, created_at=t, hits=0, now=t)
0.9
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem.errors import ConfigError, InvalidArgumentError, NonFiniteError
from remem.kernels import scoring
from remem.lifecycle._time import epoch_seconds, hours_between, now_or

__all__ = ["InclusionScorerConfig", "LongTermInclusionScorer"]


@dataclass(frozen=True)
class InclusionScorerConfig:
    """Settings of the inclusion score; each must be finite and ≥ 0 (threshold any finite)."""

    recency_rate: float = 0.005
    hit_weight: float = 0.1
    threshold: float = 0.6

    def __post_init__(self) -> None:
        for name in ("recency_rate", "hit_weight"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise ConfigError(f"{name} is {v}; use a finite value >= 0")
        if not math.isfinite(self.threshold):
            raise ConfigError(f"threshold is {self.threshold}; use a finite value")


class LongTermInclusionScorer:
    """Scores long-term memories for inclusion in a retrieval result."""

    def __init__(self, config: InclusionScorerConfig | None = None) -> None:
        self.config = config if config is not None else InclusionScorerConfig()

    def score(
        self, *, similarity: float, created_at: datetime, hits: int, now: datetime | None = None
    ) -> float:
        """The inclusion score of one item (formula in the module docstring)."""
        if hits < 0:
            raise InvalidArgumentError(f"hits is {hits}; counts must be >= 0")
        if not math.isfinite(similarity):
            raise NonFiniteError(f"similarity is {similarity}; pass a finite number")
        age = hours_between(now_or(now), epoch_seconds(created_at, "created_at"))
        c = self.config
        return scoring.inclusion_score(
            similarity, age, hits, recency_rate=c.recency_rate, hit_weight=c.hit_weight
        )

    def score_batch(
        self,
        similarity: ArrayLike,
        created_times: ArrayLike,
        hits: ArrayLike,
        now: datetime | None = None,
    ) -> NDArray[np.float64]:
        """Inclusion scores of many items (``created_times`` in UNIX seconds; native kernel)."""
        sim = np.ascontiguousarray(similarity, dtype=np.float64)
        zeros = np.zeros(sim.shape[0], dtype=np.float64)
        counts = np.zeros(sim.shape[0], dtype=np.int64)
        return scoring.fused_scores(
            zeros,
            zeros,
            created_times,
            hits,
            zeros,
            counts,
            sim,
            now=now_or(now),
            recency_rate=self.config.recency_rate,
            hit_weight=self.config.hit_weight,
        ).inclusion

    def passing(
        self,
        similarity: ArrayLike,
        created_times: ArrayLike,
        hits: ArrayLike,
        now: datetime | None = None,
    ) -> NDArray[np.int64]:
        """Indices (ascending) of the items whose score is ≥ the threshold."""
        scores = self.score_batch(similarity, created_times, hits, now)
        return np.flatnonzero(scores >= self.config.threshold).astype(np.int64)
