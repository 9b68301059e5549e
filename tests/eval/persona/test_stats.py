"""Bootstrap intervals cover the true mean about 95% of the time; paired deltas too."""

from __future__ import annotations

import numpy as np
import pytest

from remem.errors import InvalidArgumentError
from remem.eval.persona.stats import bootstrap_ci, bootstrap_means, paired_bootstrap_ci


def test_ci_covers_true_mean_in_about_95_percent_of_trials() -> None:
    rng = np.random.default_rng(1234)
    trials, covered = 200, 0
    for trial in range(trials):
        sample = rng.random(80) < 0.7
        ci = bootstrap_ci(sample, resamples=500, seed=trial)
        assert ci.low <= ci.mean <= ci.high
        covered += ci.low <= 0.7 <= ci.high
    assert 0.87 <= covered / trials <= 0.99


def test_paired_delta_covers_true_delta_and_is_tighter_than_unpaired() -> None:
    rng = np.random.default_rng(99)
    trials, covered = 150, 0
    widths_paired, widths_single = [], []
    for trial in range(trials):
        base = (rng.random(100) < 0.6).astype(float)
        # The variant flips 10% of baseline failures to passes: true delta = 0.4 * 0.25 = 0.1.
        variant = np.where((base == 0) & (rng.random(100) < 0.25), 1.0, base)
        ci = paired_bootstrap_ci(base, variant, resamples=500, seed=trial)
        covered += ci.low <= 0.1 <= ci.high
        widths_paired.append(ci.high - ci.low)
        widths_single.append(
            (lambda c: c.high - c.low)(bootstrap_ci(variant, resamples=500, seed=trial))
        )
    assert 0.85 <= covered / trials <= 1.0
    assert np.mean(widths_paired) < np.mean(widths_single)


def test_seeded_and_chunked() -> None:
    values = np.arange(10.0)
    assert bootstrap_ci(values, seed=5) == bootstrap_ci(values, seed=5)
    means = bootstrap_means(np.ones(3_000_000), resamples=3, seed=0)  # forces several chunks
    assert means.tolist() == [1.0, 1.0, 1.0]


def test_constant_sample_has_a_zero_width_interval() -> None:
    ci = bootstrap_ci([1.0] * 20)
    assert (ci.mean, ci.low, ci.high, ci.n) == (1.0, 1.0, 1.0, 20)
    assert ci.format(100) == "100.0 [100.0, 100.0]"


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(InvalidArgumentError):
        bootstrap_ci([])
    with pytest.raises(InvalidArgumentError, match="NaN"):
        bootstrap_ci([1.0, float("nan")])
    with pytest.raises(InvalidArgumentError, match="same length"):
        paired_bootstrap_ci([1, 0], [1])
    with pytest.raises(InvalidArgumentError):
        bootstrap_ci([1, 0], confidence=1.0)
