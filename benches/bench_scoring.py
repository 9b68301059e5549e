"""Fused scoring (decay + promotion + inclusion) at 100k and 1M items.

Ids: ``native`` (remem.kernels.scoring.fused_scores), ``numpy`` (the same formulas vectorised in
numpy; the baseline), ``reference`` (pure Python; 100k only — at 1M it would take ~minutes), and
``stream``: the time merely to read the seven inputs once (56 bytes an item), the kernel's floor:
``np.dot(v, v)`` of each input's bytes viewed as float64 (BLAS's SIMD dot, memory-bound; numpy's
``sum`` is not — its pairwise summation read the same arrays 3× slower, so it would flatter the
kernel). ``native`` ÷ ``stream`` in one run is how far the
kernel is from that floor (issue 21's target: within 3× at 1M, and ≤ 3 ms).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from remem.kernels import scoring
from remem.reference import scoring as reference

NOW = 1.8e9
HOUR = 3600.0


def _inputs(n: int) -> tuple[np.ndarray[Any, Any], ...]:
    rng = np.random.default_rng(42)
    ref = NOW - rng.random(n) * 500 * HOUR
    return (
        rng.random(n),
        ref,
        ref - rng.random(n) * 500 * HOUR,
        rng.integers(0, 50, n),
        rng.random(n),
        rng.integers(0, 6, n),
        rng.random(n),
    )


def stream(*a: np.ndarray[Any, Any]) -> list[float]:
    """Read every input once: each array's bytes, as float64, dotted with themselves."""
    return [float(np.dot(v, v)) for v in (x.view(np.float64) for x in a)]


def numpy_fused(*a: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], ...]:
    base, ref, created, acc, conf, rel, sim = a
    age_r = np.maximum(0.0, (NOW - ref) / HOUR)
    age_c = np.maximum(0.0, (NOW - created) / HOUR)
    decay = np.clip(base * np.exp(-0.01 * age_r), 0.0, 1.0)
    promo = (
        0.2 * np.minimum(1.0, age_c / 72.0)
        + 0.4 * np.minimum(1.0, acc / 5.0)
        + 0.2 * np.clip(conf, 0.0, 1.0)
        + 0.2 * np.minimum(1.0, rel / 3.0)
    )
    incl = sim * np.exp(-0.005 * age_c) * (1.0 + 0.1 * np.log1p(acc))
    return decay, promo, incl


Arrays = tuple[np.ndarray[Any, Any], ...]
_CACHE: dict[int, tuple[Arrays, Arrays]] = {}


def _case(n: int) -> tuple[Arrays, Arrays]:
    if n not in _CACHE:
        a = _inputs(n)
        _CACHE[n] = (a, numpy_fused(*a))
    return _CACHE[n]


def _exact_dots(a: Arrays) -> list[float]:
    """What ``stream`` computes, by exact summation of the squares, to check it read everything."""
    return [math.fsum((v * v).tolist()) for v in (x.view(np.float64) for x in a)]


# The pure-Python reference runs at 100k only (about a second per call).
@pytest.mark.parametrize(
    ("impl", "n"),
    [
        pytest.param(impl, n, id=f"{impl}-{label}")
        for n, label in ((100_000, "100k"), (1_000_000, "1M"))
        for impl in ("native", "stream", "numpy", "reference")
        if impl != "reference" or n == 100_000
    ],
)
def test_fused_scoring(benchmark: Any, impl: str, n: int) -> None:
    args, trusted = _case(n)
    benchmark.group = f"fused scoring {n // 1000}k" if n < 1_000_000 else "fused scoring 1M"
    if impl == "native":
        out = benchmark(lambda: tuple(scoring.fused_scores(*args, now=NOW)))
    elif impl == "stream":
        dots = benchmark(lambda: stream(*args))
        benchmark.extra_info["correct"] = bool(
            np.allclose(dots, _exact_dots(args), rtol=1e-9, atol=0.0)
        )
        return
    elif impl == "numpy":
        out = benchmark(lambda: numpy_fused(*args))
    else:
        out = benchmark.pedantic(lambda: reference.fused_scores(*args, now=NOW), rounds=1)
    benchmark.extra_info["correct"] = bool(
        all(np.allclose(o, t, rtol=1e-12, atol=1e-300) for o, t in zip(out, trusted, strict=True))
    )
