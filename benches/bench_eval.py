"""Bootstrap of the eval's headline numbers: 1,000 resamples of 500 pass/fail items.

Ids: ``numpy`` (:func:`remem.eval.persona.stats.bootstrap_ci`, one vectorised index matrix) and
``python`` (the obvious resampling loop with ``random.choices``, the baseline).
``extra_info["correct"]``: the interval contains the sample mean and is within 0.02 of the
numpy interval (both are estimates of the same percentiles).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from remem.eval.persona.stats import bootstrap_ci

N, RESAMPLES = 500, 1000


def python_bootstrap(values: list[float], resamples: int, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]


@pytest.mark.parametrize("impl", ["numpy", "python"])
def test_bootstrap(benchmark: Any, impl: str) -> None:
    benchmark.group = "bootstrap 1000x"
    values = (np.random.default_rng(3).random(N) < 0.7).astype(float)
    trusted = bootstrap_ci(values, resamples=RESAMPLES, seed=1)
    if impl == "numpy":
        ci = benchmark(lambda: bootstrap_ci(values, resamples=RESAMPLES, seed=1))
        low, high = ci.low, ci.high
    else:
        as_list = values.tolist()
        low, high = benchmark(lambda: python_bootstrap(as_list, RESAMPLES, 1))
    mean = float(values.mean())
    correct = (
        low <= mean <= high and abs(low - trusted.low) < 0.02 and abs(high - trusted.high) < 0.02
    )
    benchmark.extra_info["correct"] = correct
    assert correct
