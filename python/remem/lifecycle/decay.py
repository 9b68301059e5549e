"""Time decay of memory scores, computed from a stored base score and its reference time.

An item stores ``base`` and ``reference`` (the time of its last access). Its score at ``now`` is
``clamp(base · exp(-decay_rate · hours(now - reference)), 0, 1)``. Because the stored base is
never overwritten by maintenance, running a decay check every hour or once a week gives the same
score; only an access rebases it: ``base = min(1, score_at_access + access_boost)`` and
``reference = access time``.
A reference in the future (clock skew) counts as age 0.

>>> from datetime import datetime, timedelta, timezone
>>> start = datetime(2026, 10, 1, tzinfo=timezone.utc)
>>> calculator = DecayCalculator(DecayConfig())
>>> round(calculator.calculate_decay(1.0, start, now=start + timedelta(hours=24)), 3)
0.787
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem.errors import ConfigError, NonFiniteError
from remem.kernels import scoring
from remem.lifecycle._time import epoch_seconds, hours_between, now_or

__all__ = ["DecayCalculator", "DecayConfig"]


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if not (math.isfinite(value) and low <= value <= high):
        raise ConfigError(f"{name} is {value}; use a value in [{low}, {high}]")


@dataclass(frozen=True)
class DecayConfig:
    """Decay and stage-movement settings, validated on construction (ConfigError names the field).

    Attributes:
        decay_rate: decay per hour, in [0.001, 0.5] (0.01 halves a score in ~69 h).
        access_boost: added to the decayed score on access, in [0, 1].
        promotion_threshold: score at or above which a short-term item may be promoted, in [0, 1].
        decay_threshold: score below which an item counts as decayed, in [0, 1].
        short_term_min_age_hours: minimum age before promotion is considered, ≥ 0.
        decay_check_interval_hours: how often maintenance runs, > 0.
        decayed_retention_days: how long decayed items are kept before deletion, ≥ 0.
    """

    decay_rate: float = 0.01
    access_boost: float = 0.2
    promotion_threshold: float = 0.7
    decay_threshold: float = 0.2
    short_term_min_age_hours: float = 24.0
    decay_check_interval_hours: float = 24.0
    decayed_retention_days: float = 30.0

    def __post_init__(self) -> None:
        _check_range("decay_rate", self.decay_rate, 0.001, 0.5)
        _check_range("access_boost", self.access_boost, 0.0, 1.0)
        _check_range("promotion_threshold", self.promotion_threshold, 0.0, 1.0)
        _check_range("decay_threshold", self.decay_threshold, 0.0, 1.0)
        _check_range("short_term_min_age_hours", self.short_term_min_age_hours, 0.0, math.inf)
        _check_range("decayed_retention_days", self.decayed_retention_days, 0.0, math.inf)
        interval = self.decay_check_interval_hours
        if not (math.isfinite(interval) and interval > 0):
            raise ConfigError(f"decay_check_interval_hours is {interval}; use a value > 0")


def _finite(name: str, value: float) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise NonFiniteError(f"{name} is {value}; pass a finite number")
    return value


class DecayCalculator:
    """Decay and reinforcement of scores under one :class:`DecayConfig`."""

    def __init__(self, config: DecayConfig | None = None) -> None:
        self.config = config if config is not None else DecayConfig()

    def calculate_decay(
        self, score: float, last_access: datetime, now: datetime | None = None
    ) -> float:
        """``clamp(score · exp(-decay_rate · hours since last_access), 0, 1)``.

        ``score`` is the stored base score and ``last_access`` its reference time (aware
        datetimes; naive ones raise NaiveDatetimeError). ``now`` defaults to the current time.
        """
        base = _finite("score", score)
        t_now = now_or(now)
        age = hours_between(t_now, epoch_seconds(last_access, "last_access"))
        return scoring.decayed(base, age, self.config.decay_rate)

    def reinforce(
        self, score: float, last_access: datetime, now: datetime | None = None
    ) -> tuple[float, datetime]:
        """An access at ``now``: returns the new (base score, reference time) to store.

        New base = ``min(1, decayed score at now + access_boost)``; reference time = ``now``.
        """
        at = now if now is not None else datetime.now().astimezone()
        decayed = self.calculate_decay(score, last_access, at)
        return min(1.0, decayed + self.config.access_boost), at

    def is_decayed(self, score: float) -> bool:
        """True if a (decayed) score is below ``decay_threshold``."""
        return score < self.config.decay_threshold

    def decay_batch(
        self, base_scores: ArrayLike, reference_times: ArrayLike, now: datetime | None = None
    ) -> NDArray[np.float64]:
        """Decayed scores for many items; ``reference_times`` in UNIX seconds (native kernel)."""
        return scoring.decay_scores(
            base_scores, reference_times, now=now_or(now), decay_rate=self.config.decay_rate
        )

    def reinforce_batch(
        self, base_scores: ArrayLike, reference_times: ArrayLike, now: datetime | None = None
    ) -> tuple[NDArray[np.float64], float]:
        """Every item accessed at ``now``: (new base scores, new reference time in UNIX seconds)."""
        t_now = now_or(now)
        new_base = scoring.reinforce_scores(
            base_scores,
            reference_times,
            now=t_now,
            decay_rate=self.config.decay_rate,
            access_boost=self.config.access_boost,
        )
        return new_base, t_now
