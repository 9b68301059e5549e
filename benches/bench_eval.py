"""The eval: the bootstrap of its headline numbers, and the year horizon end to end.

``test_bootstrap`` — 1,000 resamples of 500 pass/fail items. Ids: ``numpy``
(:func:`remem.eval.persona.stats.bootstrap_ci`, one vectorised index matrix) and
``python`` (the obvious resampling loop with ``random.choices``, the baseline).
``extra_info["correct"]``: the interval contains the sample mean and is within 0.02 of the
numpy interval (both are estimates of the same percentiles).

``test_year_horizon`` — ``remem eval --horizon year --quick`` at one persona (120 days, ~9,000
history tokens against an equal 1,000-token prompt budget), ``full`` against ``whole-history``,
one round. ``extra_info`` holds the history/budget ratio and each variant's context recall
overall, on current-fact questions and on long-gap questions; ``correct``: the history is ≥ 5x
the budget and no prompt exceeded it (the figures themselves are what the run measures).
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem.cli.eval import YEAR_QUICK
from remem.companion import offline_brain
from remem.eval.persona.harness import EvalRun, EvalSettings, run_eval
from remem.eval.persona.quiz import CURRENT_FACT
from remem.eval.persona.stats import bootstrap_ci
from remem.eval.persona.variants import resolve_variants

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


def test_year_horizon(benchmark: Any, tmp_path: Path) -> None:
    benchmark.group = "eval year horizon 1x120d"
    base = YEAR_QUICK
    settings = EvalSettings(
        personas=1,
        days=base.days,
        seed=base.seed,
        delay_days=base.delay_days,
        resamples=200,
        horizon=base.horizon,
        budget=base.budget,
    )
    assert settings.budget is not None
    variants = resolve_variants(["full", "whole-history"], budget=settings.budget)
    rounds = iter(range(1000))

    def once() -> EvalRun:
        out = tmp_path / f"run-{next(rounds)}"
        return asyncio.run(run_eval(settings, variants, out=out, brain_factory=offline_brain))

    run = benchmark.pedantic(once, rounds=1, iterations=1)
    ratio = run.history_tokens[0] / settings.budget
    benchmark.extra_info["history_to_budget"] = round(ratio, 2)
    for v in run.variants:
        for label, rows in (
            ("recall", v.rows),
            ("current_fact", [r for r in v.rows if r.question.category in CURRENT_FACT]),
            ("long_gap", [r for r in v.rows if r.question.category == "long_gap"]),
        ):
            scored = [r.recall for r in rows if r.recall is not None]
            benchmark.extra_info[f"{v.name}_{label}"] = round(sum(scored) / len(scored), 3)
    correct = ratio >= 5 and all(not v.errors for v in run.variants)
    benchmark.extra_info["correct"] = correct
    assert correct
