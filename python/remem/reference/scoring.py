"""Reference (pure-Python) scoring: decay, reinforcement, and the fused decay/promotion/inclusion.

This module is the specification of :mod:`remem.kernels.scoring`; the native kernels must agree
with it to a relative tolerance of 1e-12 (absolute 1e-300 near zero) — they differ only in the
exponential, a vectorised polynomial natively (relative error ≤ 1e-14) and ``math.exp`` here, and
in the native fused kernel multiplying by 1/3600 for ages (≤ 1 ulp from the division below) and
fusing multiply-adds (one rounding instead of two) on CPUs with FMA.

Times are float UNIX seconds; ages are in hours and a reference time in the future (clock skew)
counts as age 0: ``age_h = max(0, (now - t) / 3600)``.

Formulas, per item:

* decay      = ``clamp(base · exp(-decay_rate · age_h(reference)), 0, 1)``
* reinforce  = ``clamp(decay + access_boost, 0, 1)`` (the new base; the new reference time is now)
* promotion  = ``w_age·min(1, age_h(created)/age_norm_hours) + w_access·min(1, accesses/access_norm)
  + w_confidence·clamp(confidence, 0, 1) + w_relationships·min(1, relationships/relationship_norm)``
* inclusion  = ``similarity · exp(-recency_rate · age_h(created))
  · (1 + hit_weight · ln(1 + accesses))``

Validation (in this order): lengths equal to ``base_scores`` (ShapeError); every float input and
scalar finite (NonFiniteError); ``decay_rate`` in [0.001, 0.5] (InvalidArgumentError); promotion
weights ≥ 0 and summing to 1 ± 0.01; norms > 0; recency_rate, hit_weight ≥ 0; counts ≥ 0;
``access_boost`` in [0, 1] (all InvalidArgumentError).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem.errors import InvalidArgumentError, NonFiniteError, ShapeError

__all__ = ["decay_scores", "exp_fast", "fused_scores", "reinforce_scores"]

DECAY_RATE_MIN = 0.001
DECAY_RATE_MAX = 0.5


def _floats(x: ArrayLike, name: str) -> list[float]:
    values = [float(v) for v in np.asarray(x, dtype=np.float64).ravel()]
    for i, v in enumerate(values):
        if not math.isfinite(v):
            raise NonFiniteError(f"{name}[{i}] is {v}, but only finite values are allowed")
    return values


def _counts(x: ArrayLike, name: str) -> list[int]:
    values = [int(v) for v in np.asarray(x, dtype=np.int64).ravel()]
    for i, v in enumerate(values):
        if v < 0:
            raise InvalidArgumentError(f"{name}[{i}] is {v}; counts must be >= 0")
    return values


def _same_length(n: int, **arrays: Sequence[object]) -> None:
    for name, arr in arrays.items():
        if len(arr) != n:
            raise ShapeError(f"{name} has length {len(arr)} but {n} was expected")


def _scalar(name: str, x: float, *, low: float | None = None, positive: bool = False) -> None:
    if not math.isfinite(x):
        raise NonFiniteError(f"{name} is {x}, but only finite values are allowed")
    if positive and not x > 0:
        raise InvalidArgumentError(f"{name} is {x}; use a value > 0")
    if low is not None and x < low:
        raise InvalidArgumentError(f"{name} is {x}; use a value >= {low}")


def _rate(decay_rate: float) -> None:
    _scalar("decay_rate", decay_rate)
    if not DECAY_RATE_MIN <= decay_rate <= DECAY_RATE_MAX:
        raise InvalidArgumentError(
            f"decay_rate is {decay_rate} per hour; "
            f"use a value in [{DECAY_RATE_MIN}, {DECAY_RATE_MAX}]"
        )


def _age_hours(now: float, t: float) -> float:
    return max(0.0, (now - t) / 3600.0)


def _clamp01(x: float) -> float:
    return min(1.0, max(0.0, x))


def exp_fast(x: ArrayLike) -> NDArray[np.float64]:
    """``exp`` element-wise; natively x < -708 gives 0.0 and x > 709 gives +inf (saturation)."""
    out = []
    for v in np.asarray(x, dtype=np.float64).ravel().tolist():
        out.append(0.0 if v < -708.0 else math.inf if v > 709.0 else math.exp(v))
    return np.array(out, dtype=np.float64)


def _decayed(base: float, ref: float, now: float, rate: float) -> float:
    return _clamp01(base * math.exp(-rate * _age_hours(now, ref)))


def decay_scores(
    base_scores: ArrayLike, reference_times: ArrayLike, *, now: float, decay_rate: float = 0.01
) -> NDArray[np.float64]:
    """``clamp(base · exp(-decay_rate · age_h(reference)), 0, 1)`` for every item.

    >>> decay_scores([1.0], [0.0], now=24 * 3600.0, decay_rate=0.01).round(3).tolist()
    [0.787]
    """
    base = _floats(base_scores, "base_scores")
    ref = _floats(reference_times, "reference_times")
    _same_length(len(base), reference_times=ref)
    _scalar("now", now)
    _rate(decay_rate)
    return np.array([_decayed(b, r, now, decay_rate) for b, r in zip(base, ref, strict=True)])


def reinforce_scores(
    base_scores: ArrayLike,
    reference_times: ArrayLike,
    *,
    now: float,
    decay_rate: float = 0.01,
    access_boost: float = 0.2,
) -> NDArray[np.float64]:
    """New base scores after an access at ``now``: ``clamp(decayed + access_boost, 0, 1)``.

    The decayed score is taken at ``now`` from the old base and reference time; the caller stores
    the result as the new base with ``now`` as the new reference time, so later decay starts from
    there (reinforcement never compounds earlier decay either).
    """
    base = _floats(base_scores, "base_scores")
    ref = _floats(reference_times, "reference_times")
    _same_length(len(base), reference_times=ref)
    _scalar("now", now)
    _rate(decay_rate)
    _scalar("access_boost", access_boost)
    if not 0.0 <= access_boost <= 1.0:
        raise InvalidArgumentError(f"access_boost is {access_boost}; use a value in [0, 1]")
    return np.array(
        [
            _clamp01(_decayed(b, r, now, decay_rate) + access_boost)
            for b, r in zip(base, ref, strict=True)
        ]
    )


def fused_scores(
    base_scores: ArrayLike,
    reference_times: ArrayLike,
    created_times: ArrayLike,
    access_counts: ArrayLike,
    confidence: ArrayLike,
    relationship_counts: ArrayLike,
    similarity: ArrayLike,
    *,
    now: float,
    decay_rate: float = 0.01,
    w_age: float = 0.2,
    w_access: float = 0.4,
    w_confidence: float = 0.2,
    w_relationships: float = 0.2,
    age_norm_hours: float = 72.0,
    access_norm: float = 5.0,
    relationship_norm: float = 3.0,
    recency_rate: float = 0.005,
    hit_weight: float = 0.1,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(decay, promotion, inclusion) for every item; formulas in the module docstring.

    ``access_counts`` serves both as promotion's access count and inclusion's hit count.
    """
    _scalar("now", now)
    _rate(decay_rate)
    weights = {
        "w_age": w_age,
        "w_access": w_access,
        "w_confidence": w_confidence,
        "w_relationships": w_relationships,
    }
    for name, w in weights.items():
        _scalar(name, w, low=0.0)
    total = w_age + w_access + w_confidence + w_relationships
    if abs(total - 1.0) > 0.01:
        raise InvalidArgumentError(
            f"promotion weights sum to {total}; make them sum to 1.0 (±0.01)"
        )
    _scalar("age_norm_hours", age_norm_hours, positive=True)
    _scalar("access_norm", access_norm, positive=True)
    _scalar("relationship_norm", relationship_norm, positive=True)
    _scalar("recency_rate", recency_rate, low=0.0)
    _scalar("hit_weight", hit_weight, low=0.0)
    base = _floats(base_scores, "base_scores")
    n = len(base)
    raw = {
        "reference_times": np.asarray(reference_times).ravel(),
        "created_times": np.asarray(created_times).ravel(),
        "access_counts": np.asarray(access_counts).ravel(),
        "confidence": np.asarray(confidence).ravel(),
        "relationship_counts": np.asarray(relationship_counts).ravel(),
        "similarity": np.asarray(similarity).ravel(),
    }
    _same_length(n, **{k: list(v) for k, v in raw.items()})
    ref = _floats(raw["reference_times"], "reference_times")
    created = _floats(raw["created_times"], "created_times")
    conf = _floats(raw["confidence"], "confidence")
    sim = _floats(raw["similarity"], "similarity")
    acc = _counts(raw["access_counts"], "access_counts")
    rel = _counts(raw["relationship_counts"], "relationship_counts")
    decay, promo, incl = [], [], []
    for i in range(n):
        age_c = _age_hours(now, created[i])
        decay.append(_decayed(base[i], ref[i], now, decay_rate))
        promo.append(
            w_age * min(1.0, age_c * (1.0 / age_norm_hours))
            + w_access * min(1.0, acc[i] * (1.0 / access_norm))
            + w_confidence * _clamp01(conf[i])
            + w_relationships * min(1.0, rel[i] * (1.0 / relationship_norm))
        )
        incl.append(
            sim[i] * math.exp(-recency_rate * age_c) * (1.0 + hit_weight * math.log1p(acc[i]))
        )
    return (
        np.array(decay, dtype=np.float64),
        np.array(promo, dtype=np.float64),
        np.array(incl, dtype=np.float64),
    )
