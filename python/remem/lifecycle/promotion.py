"""Promotion score: how ready a short-term memory is to become long-term.

``score = w_age·min(1, age_h/age_norm_hours) + w_access·min(1, accesses/access_norm)
+ w_confidence·clamp(confidence, 0, 1) + w_relationships·min(1, relationships/relationship_norm)``,
with the age measured from creation. Defaults: weights 0.2 / 0.4 / 0.2 / 0.2, norms 72 h, 5, 3.

>>> from datetime import datetime, timedelta, timezone
>>> t = datetime(2026, 10, 1, tzinfo=timezone.utc)
>>> PromotionScorer().score(created_at=t, access_count=5, confidence=1.0,
...                         relationship_count=3, now=t + timedelta(hours=72))
1.0
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

__all__ = ["PromotionConfig", "PromotionScorer"]

WEIGHT_TOLERANCE = 0.01


@dataclass(frozen=True)
class PromotionConfig:
    """Weights (≥ 0, summing to 1.0 ± 0.01) and normalisers (> 0) of the promotion score.

    ``threshold`` (in [0, 1], default 0.7 like ``DecayConfig.promotion_threshold``) is the score at
    or above which :meth:`PromotionScorer.should_promote` says yes.
    """

    w_age: float = 0.2
    w_access: float = 0.4
    w_confidence: float = 0.2
    w_relationships: float = 0.2
    age_norm_hours: float = 72.0
    access_norm: float = 5.0
    relationship_norm: float = 3.0
    threshold: float = 0.7

    def __post_init__(self) -> None:
        weights = {
            "w_age": self.w_age,
            "w_access": self.w_access,
            "w_confidence": self.w_confidence,
            "w_relationships": self.w_relationships,
        }
        for name, w in weights.items():
            if not (math.isfinite(w) and w >= 0):
                raise ConfigError(f"{name} is {w}; weights must be finite and >= 0")
        total = sum(weights.values())
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            raise ConfigError(
                f"promotion weights sum to {total}; make w_age + w_access + w_confidence + "
                f"w_relationships equal 1.0 (±{WEIGHT_TOLERANCE})"
            )
        for name in ("age_norm_hours", "access_norm", "relationship_norm"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise ConfigError(f"{name} is {v}; use a finite value > 0")
        if not (math.isfinite(self.threshold) and 0 <= self.threshold <= 1):
            raise ConfigError(f"threshold is {self.threshold}; use a value in [0, 1]")


class PromotionScorer:
    """Scores promotion readiness under one :class:`PromotionConfig`."""

    def __init__(self, config: PromotionConfig | None = None) -> None:
        self.config = config if config is not None else PromotionConfig()

    def score(
        self,
        *,
        created_at: datetime,
        access_count: int,
        confidence: float,
        relationship_count: int,
        now: datetime | None = None,
    ) -> float:
        """The promotion score of one item (formula in the module docstring)."""
        c = self.config
        if access_count < 0 or relationship_count < 0:
            raise InvalidArgumentError("access_count and relationship_count must be >= 0")
        if not math.isfinite(confidence):
            raise NonFiniteError(f"confidence is {confidence}; pass a finite number")
        age = hours_between(now_or(now), epoch_seconds(created_at, "created_at"))
        return (
            c.w_age * min(1.0, age * (1.0 / c.age_norm_hours))
            + c.w_access * min(1.0, access_count * (1.0 / c.access_norm))
            + c.w_confidence * min(1.0, max(0.0, confidence))
            + c.w_relationships * min(1.0, relationship_count * (1.0 / c.relationship_norm))
        )

    def should_promote(self, score: float) -> bool:
        """True if ``score`` reaches the configured threshold."""
        return score >= self.config.threshold

    def score_batch(
        self,
        created_times: ArrayLike,
        access_counts: ArrayLike,
        confidence: ArrayLike,
        relationship_counts: ArrayLike,
        now: datetime | None = None,
    ) -> NDArray[np.float64]:
        """Promotion scores of many items (``created_times`` in UNIX seconds; native kernel)."""
        c = self.config
        created = np.ascontiguousarray(created_times, dtype=np.float64)
        n = created.shape[0]
        zeros = np.zeros(n, dtype=np.float64)
        return scoring.fused_scores(
            zeros,
            zeros,
            created,
            access_counts,
            confidence,
            relationship_counts,
            zeros,
            now=now_or(now),
            w_age=c.w_age,
            w_access=c.w_access,
            w_confidence=c.w_confidence,
            w_relationships=c.w_relationships,
            age_norm_hours=c.age_norm_hours,
            access_norm=c.access_norm,
            relationship_norm=c.relationship_norm,
        ).promotion
