"""Typed façade over the native scoring kernels: decay, reinforcement, fused scoring.

Specification (formulas, validation order, edge cases): :mod:`remem.reference.scoring`. Native
results agree with the reference to rel 1e-12 (abs 1e-300 near zero); they differ only in the
exponential, a vectorised range-reduction + polynomial exp with relative error ≤ 1e-14 on
[-708, 709], in ages taken as ``(now - t) * (1/3600)`` (≤ 1 ulp from the division) and, on
CPUs with FMA, in multiply-adds fused into one rounding.

Times are float64 UNIX seconds; a reference time in the future (clock skew) counts as age 0.
Inputs are converted here (one copy at most) to contiguous float64 / int64; the native module
itself rejects any other dtype or layout.

This module is the one Python home of the scoring rules: the scalar forms below
(:func:`decayed`, :func:`recency_factor`, :func:`usage_factor`, :func:`inclusion_score`) are
the per-item formulas of the native batch kernels, used where one item is scored at a time (the
lifecycle's scalar methods, recall's priors) so no other module writes them out again.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem import _native
from remem.errors import DTypeError, InvalidArgumentError, NonFiniteError
from remem.kernels._ints import float_array, real

__all__ = [
    "FusedScores",
    "decay_scores",
    "decayed",
    "exp_fast",
    "fused_scores",
    "inclusion_score",
    "recency_factor",
    "reinforce_scores",
    "usage_factor",
]


class FusedScores(NamedTuple):
    """The three outputs of :func:`fused_scores`, one float64 value per item."""

    decay: NDArray[np.float64]
    promotion: NDArray[np.float64]
    inclusion: NDArray[np.float64]


def _f64(x: ArrayLike, name: str = "scores") -> NDArray[np.float64]:
    return float_array(x, np.float64, name)


def _i64(x: ArrayLike, name: str) -> NDArray[np.int64]:
    """Integer counts as int64; floats are accepted only if every value is a whole number."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError, RecursionError) as exc:
        raise DTypeError(f"{name} must be an array of integers ({exc})") from exc
    if arr.dtype.kind in "iu":
        return np.ascontiguousarray(arr, dtype=np.int64)
    if arr.dtype.kind == "f" or arr.size == 0:
        if not np.all(np.isfinite(arr)):
            raise NonFiniteError(f"{name} contains NaN or infinity; counts must be finite integers")
        if arr.size and not np.all(arr == np.floor(arr)):
            raise InvalidArgumentError(f"{name} has fractional values; counts must be integers")
        return np.ascontiguousarray(arr, dtype=np.int64)
    raise DTypeError(f"{name} must hold integers, got dtype {arr.dtype}; pass an int64 array")


def exp_fast(x: ArrayLike) -> NDArray[np.float64]:
    """The native vectorised ``exp``: rel. error ≤ 1e-14 on [-708, 709]; below 0.0, above +inf."""
    return _native.exp_fast(_f64(x))


def decayed(base: float, hours: float, decay_rate: float) -> float:
    """One item of :func:`decay_scores`: ``clamp(base · exp(-decay_rate · max(hours, 0)), 0, 1)``.

    >>> round(decayed(1.0, 72.0, 0.01), 3)
    0.487
    """
    return min(1.0, max(0.0, base * math.exp(-decay_rate * max(0.0, hours))))


def recency_factor(hours: float, rate: float) -> float:
    """Inclusion's recency term ``exp(-rate · max(hours, 0))`` (hours since creation).

    >>> recency_factor(0.0, 0.005)
    1.0
    """
    return math.exp(-rate * max(0.0, hours))


def usage_factor(hits: int, hit_weight: float) -> float:
    """Inclusion's usage term ``1 + hit_weight · ln(1 + hits)``; a negative count counts 0.

    >>> usage_factor(0, 0.1)
    1.0
    """
    return 1.0 + hit_weight * math.log1p(max(0, hits))


def inclusion_score(
    similarity: float, hours: float, hits: int, *, recency_rate: float, hit_weight: float
) -> float:
    """One item of :func:`fused_scores`' inclusion output:
    ``similarity · recency_factor(hours, recency_rate) · usage_factor(hits, hit_weight)``.

    >>> inclusion_score(0.9, 0.0, 0, recency_rate=0.005, hit_weight=0.1)
    0.9
    """
    return similarity * recency_factor(hours, recency_rate) * usage_factor(hits, hit_weight)


def decay_scores(
    base_scores: ArrayLike, reference_times: ArrayLike, *, now: float, decay_rate: float = 0.01
) -> NDArray[np.float64]:
    """``clamp(base · exp(-decay_rate · hours since reference), 0, 1)`` per item.

    Decay always starts from the stored base score and its reference time, so evaluating it at
    any number of maintenance cycles gives the same answer as evaluating it once.

    >>> decay_scores([1.0], [0.0], now=72 * 3600.0).round(3).tolist()
    [0.487]
    """
    return _native.decay_scores(
        _f64(base_scores),
        _f64(reference_times),
        now=real(now, "now"),
        decay_rate=real(decay_rate, "decay_rate"),
    )


def reinforce_scores(
    base_scores: ArrayLike,
    reference_times: ArrayLike,
    *,
    now: float,
    decay_rate: float = 0.01,
    access_boost: float = 0.2,
) -> NDArray[np.float64]:
    """New base scores after an access at ``now``: ``min(1, decayed + access_boost)``.

    Store the result as each item's base score with ``now`` as its new reference time.

    >>> reinforce_scores([0.5], [0.0], now=0.0).tolist()
    [0.7]
    """
    return _native.reinforce_scores(
        _f64(base_scores),
        _f64(reference_times),
        now=real(now, "now"),
        decay_rate=real(decay_rate, "decay_rate"),
        access_boost=real(access_boost, "access_boost"),
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
) -> FusedScores:
    """Decay, promotion and inclusion scores for N items in one native pass.

    ``access_counts`` is both promotion's access count and inclusion's hit count. Defaults are
    those of :class:`remem.lifecycle.DecayConfig`, :class:`~remem.lifecycle.PromotionConfig` and
    :class:`~remem.lifecycle.InclusionScorerConfig`.

    >>> s = fused_scores([1.0], [0.0], [0.0], [5], [1.0], [3], [1.0], now=72 * 3600.0)
    >>> round(float(s.promotion[0]), 6)
    1.0
    """
    decay, promotion, inclusion = _native.fused_scores(
        _f64(base_scores),
        _f64(reference_times),
        _f64(created_times),
        _i64(access_counts, "access_counts"),
        _f64(confidence),
        _i64(relationship_counts, "relationship_counts"),
        _f64(similarity),
        now=real(now, "now"),
        decay_rate=real(decay_rate, "decay_rate"),
        w_age=real(w_age, "w_age"),
        w_access=real(w_access, "w_access"),
        w_confidence=real(w_confidence, "w_confidence"),
        w_relationships=real(w_relationships, "w_relationships"),
        age_norm_hours=real(age_norm_hours, "age_norm_hours"),
        access_norm=real(access_norm, "access_norm"),
        relationship_norm=real(relationship_norm, "relationship_norm"),
        recency_rate=real(recency_rate, "recency_rate"),
        hit_weight=real(hit_weight, "hit_weight"),
    )
    return FusedScores(decay, promotion, inclusion)
