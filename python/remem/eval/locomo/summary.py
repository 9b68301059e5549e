"""Aggregate question results: metrics, tokens and latency, overall and per category.

Only questions with evidence are scored (``n``); every question counts for tokens and latency
(``questions``). Latency percentiles are numpy's linear interpolation.

>>> summarise([], ks=(1, 5))["overall"]["n"]
0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from remem.eval.locomo.metrics import evidence_metrics
from remem.eval.locomo.retrieve import QuestionResult

__all__ = ["summarise"]


def _group(results: Sequence[QuestionResult], ks: Sequence[int]) -> dict[str, Any]:
    scored = [r for r in results if r.evidence]
    metrics = (
        evidence_metrics([r.ranked for r in scored], [r.evidence for r in scored], ks)
        if scored
        else {}
    )
    latency = np.array([r.latency_ms for r in results], dtype=np.float64)
    out: dict[str, Any] = {"n": len(scored), "questions": len(results), **metrics}
    for k in ks:
        tokens = [r.tokens.get(k, 0) for r in results]
        out[f"tokens@{k}"] = float(np.mean(tokens)) if tokens else 0.0
    if latency.size:
        out["latency_ms_mean"] = float(latency.mean())
        out["latency_ms_p50"] = float(np.percentile(latency, 50))
        out["latency_ms_p95"] = float(np.percentile(latency, 95))
    out["unmapped_results"] = int(sum(r.unmapped for r in results))
    return out


def _category_key(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 30, name)


def summarise(results: Sequence[QuestionResult], *, ks: Sequence[int]) -> dict[str, Any]:
    """``{"overall": {...}, "per_category": {category: {...}}}`` (categories sorted)."""
    categories = sorted({r.category for r in results}, key=_category_key)
    return {
        "overall": _group(results, ks),
        "per_category": {
            c: _group([r for r in results if r.category == c], ks) for c in categories
        },
    }
