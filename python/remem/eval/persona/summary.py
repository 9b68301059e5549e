"""Headline numbers of a run, each with a bootstrap interval, and paired variant deltas.

Per variant: context recall (all, immediate, delayed, and on current-fact questions —
:data:`~remem.eval.persona.quiz.CURRENT_FACT`), stale-only rate, judged pass rate,
recall per category, the forgetting curve (recall by days since the fact was last stated),
tokens per prompt and p50/p95 latencies. Deltas compare every variant with the first one on
the same questions (:func:`~remem.eval.persona.stats.paired_bootstrap_ci`).

    summary = summarise(run)
    summary.variants[0].recall.format(100)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from remem.eval.persona.harness import EvalRun, QuestionResult, VariantRun
from remem.eval.persona.llm_free import percentile
from remem.eval.persona.quiz import CATEGORIES, CURRENT_FACT
from remem.eval.persona.stats import Interval, bootstrap_ci, paired_bootstrap_ci

__all__ = ["AGE_BUCKETS", "YEAR_AGE_BUCKETS", "Delta", "Summary", "VariantSummary", "summarise"]

AGE_BUCKETS: tuple[tuple[int, int], ...] = ((0, 3), (4, 7), (8, 14), (15, 21), (22, 28), (29, 99))
"""Forgetting-curve buckets of days between the fact being stated and the question."""
YEAR_AGE_BUCKETS: tuple[tuple[int, int], ...] = (
    (0, 7),
    (8, 29),
    (30, 89),
    (90, 179),
    (180, 269),
    (270, 9999),
)
"""The year horizon's buckets (months, not days, between statement and question)."""


Metric = Callable[[QuestionResult], bool | None]
_METRICS: dict[str, Metric] = {
    "recall": lambda r: r.recall,
    "current_fact": lambda r: r.recall if r.question.category in CURRENT_FACT else None,
    "stale_only": lambda r: r.stale_only,
    "pass": lambda r: r.passed,
}


@dataclass(slots=True)
class VariantSummary:
    name: str
    description: str
    questions: int
    recall: Interval | None
    recall_immediate: Interval | None
    recall_delayed: Interval | None
    recall_current_fact: Interval | None
    stale_only: Interval | None
    passed: Interval | None
    tokens_mean: float
    tokens_max: int
    prompt_ms: tuple[float, float]
    turn_ms: tuple[float, float]
    recall_by_category: dict[str, Interval | None]
    pass_by_category: dict[str, Interval | None]
    curve: list[tuple[str, Interval | None]]
    errors: int
    answer_errors: int


@dataclass(frozen=True, slots=True)
class Delta:
    variant: str
    baseline: str
    metric: str
    interval: Interval


@dataclass(slots=True)
class Summary:
    variants: list[VariantSummary]
    deltas: list[Delta] = field(default_factory=list)


def _ci(values: list[float], resamples: int, seed: int) -> Interval | None:
    return bootstrap_ci(values, resamples=resamples, seed=seed) if values else None


def _values(rows: list[QuestionResult], metric: Metric) -> list[float]:
    return [float(v) for r in rows if (v := metric(r)) is not None]


def _summarise_variant(
    v: VariantRun, resamples: int, seed: int, buckets: tuple[tuple[int, int], ...]
) -> VariantSummary:
    rows = v.rows

    def ci(subset: list[QuestionResult], metric: str, salt: int) -> Interval | None:
        return _ci(_values(subset, _METRICS[metric]), resamples, seed + salt)

    by_cat = {c: [r for r in rows if r.question.category == c] for c in CATEGORIES}
    curve: list[tuple[str, Interval | None]] = []
    for i, (lo, hi) in enumerate(buckets):
        bucket = [r for r in rows if (a := r.question.age_days) is not None and lo <= a <= hi]
        label = f"{lo}-{hi}" if hi < buckets[-1][1] else f"{lo}+"
        curve.append((label, ci(bucket, "recall", 100 + i)))
    prompt_ms = [r.latency_ms for r in rows]
    return VariantSummary(
        name=v.name,
        description=v.description,
        questions=len(rows),
        recall=ci(rows, "recall", 1),
        recall_immediate=ci([r for r in rows if not r.question.delayed], "recall", 2),
        recall_delayed=ci([r for r in rows if r.question.delayed], "recall", 3),
        recall_current_fact=ci(
            [r for r in rows if r.question.category in CURRENT_FACT], "recall", 6
        ),
        stale_only=ci(rows, "stale_only", 4),
        passed=ci(rows, "pass", 5),
        tokens_mean=float(np.mean([r.tokens for r in rows])) if rows else 0.0,
        tokens_max=max((r.tokens for r in rows), default=0),
        prompt_ms=_p50_p95(prompt_ms),
        turn_ms=_p50_p95(v.turn_latency_ms),
        recall_by_category={c: ci(by_cat[c], "recall", 10 + i) for i, c in enumerate(CATEGORIES)},
        pass_by_category={c: ci(by_cat[c], "pass", 20 + i) for i, c in enumerate(CATEGORIES)},
        curve=curve,
        errors=len(v.errors),
        answer_errors=sum(1 for r in rows if r.error is not None),
    )


def _p50_p95(values: list[float]) -> tuple[float, float]:
    if not values:
        return (0.0, 0.0)
    return (percentile(values, 50), percentile(values, 95))


def summarise(run: EvalRun) -> Summary:
    """Every headline number of ``run`` with its interval, and deltas vs the first variant."""
    resamples, seed = run.settings.resamples, run.settings.seed
    long = run.settings.horizon == "year" or run.settings.persona_set == "handwritten"
    buckets = YEAR_AGE_BUCKETS if long else AGE_BUCKETS
    summary = Summary([_summarise_variant(v, resamples, seed, buckets) for v in run.variants])
    if len(run.variants) < 2:
        return summary
    base = run.variants[0]
    for variant in run.variants[1:]:
        for salt, (name, metric) in enumerate(_METRICS.items()):
            pairs = _pairs(base, variant, metric)
            if pairs:
                a, b = zip(*pairs, strict=True)
                interval = paired_bootstrap_ci(a, b, resamples=resamples, seed=seed + 50 + salt)
                summary.deltas.append(Delta(variant.name, base.name, name, interval))
    return summary


def _pairs(base: VariantRun, other: VariantRun, metric: Metric) -> list[tuple[float, float]]:
    """Per-question (baseline, variant) values where both are defined, matched by question id."""
    theirs = {r.question.id: metric(r) for r in other.rows}
    out: list[tuple[float, float]] = []
    for row in base.rows:
        a, b = metric(row), theirs.get(row.question.id)
        if a is not None and b is not None:
            out.append((float(a), float(b)))
    return out
