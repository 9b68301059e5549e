"""Retrieval metrics over evidence ids, vectorised with numpy (a pure-Python twin for checks).

For one question with evidence set ``E`` (distinct, non-empty) and ranking ``R`` (distinct ids,
best first; ``rel_i = 1`` if ``R_i ∈ E``, ranks from 1):

* evidence recall@k   = |E ∩ R[:k]| / |E|
* all-evidence@k      = 1 if E ⊆ R[:k] else 0
* MRR                 = 1 / (rank of the first R_i ∈ E), 0 if none is retrieved (within ``R``)
* nDCG@10             = DCG@10 / IDCG@10 with binary gains,
  DCG@10 = Σ_{i≤10} rel_i / log2(i + 1), IDCG@10 = Σ_{i≤min(|E|,10)} 1 / log2(i + 1)

Each is averaged over questions. Questions without evidence are not scored (the loader counts
them). A ranking with duplicates counts each id once, at its first position.

>>> m = evidence_metrics([["a", "x", "b"]], [["a", "b"]], ks=(1, 3))
>>> m["recall@1"], m["all@3"], m["mrr"]
(0.5, 1.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from remem.errors import InvalidArgumentError

__all__ = [
    "NDCG_K",
    "evidence_metrics",
    "evidence_metrics_reference",
    "per_question_metrics",
    "relevance_matrix",
]

NDCG_K = 10


def _check(
    rankings: Sequence[Sequence[str]], evidence: Sequence[Sequence[str]], ks: Sequence[int]
) -> tuple[int, ...]:
    if len(rankings) != len(evidence):
        raise InvalidArgumentError(
            f"{len(rankings)} rankings but {len(evidence)} evidence lists; pass one per question"
        )
    if not ks or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
        raise InvalidArgumentError(f"ks must be positive integers, got {list(ks)!r}")
    for i, e in enumerate(evidence):
        if not e:
            raise InvalidArgumentError(f"question {i} has no evidence; leave it out of scoring")
    return tuple(sorted(set(ks)))


def _dedup(ranking: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ranking))


def relevance_matrix(
    rankings: Sequence[Sequence[str]], evidence: Sequence[Sequence[str]], depth: int
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """``rel[q, i]`` (True if the i-th distinct id of ranking q is evidence; padded False to
    ``depth``) and the evidence count per question."""
    rows: list[list[bool]] = []
    sizes = np.empty(len(rankings), dtype=np.int64)
    pad = [False] * depth
    for q, (ranking, ev) in enumerate(zip(rankings, evidence, strict=True)):
        wanted = set(ev)
        sizes[q] = len(wanted)
        row = [item in wanted for item in dict.fromkeys(ranking)][:depth]
        rows.append(row + pad[len(row) :])
    # One conversion of nested lists is far cheaper than 40k single-cell numpy writes.
    rel = np.array(rows, dtype=np.bool_).reshape(len(rankings), depth)
    return rel, sizes


def per_question_metrics(
    rankings: Sequence[Sequence[str]],
    evidence: Sequence[Sequence[str]],
    ks: Sequence[int] = (1, 5, 10, 20),
) -> dict[str, NDArray[np.float64]]:
    """Every metric of the module docstring for each question (arrays of length n)."""
    kset = _check(rankings, evidence, ks)
    depth = max(max(kset), NDCG_K, max((len(r) for r in rankings), default=1), 1)
    rel, sizes = relevance_matrix(rankings, evidence, depth)
    hits = np.cumsum(rel, axis=1, dtype=np.int64)
    out: dict[str, NDArray[np.float64]] = {}
    for k in kset:
        found = hits[:, k - 1]
        out[f"recall@{k}"] = found / sizes
        out[f"all@{k}"] = (found == sizes).astype(np.float64)
    any_hit = rel.any(axis=1)
    first = np.argmax(rel, axis=1)
    out["mrr"] = np.where(any_hit, 1.0 / (first + 1.0), 0.0)
    discount = 1.0 / np.log2(np.arange(2, NDCG_K + 2, dtype=np.float64))
    dcg = rel[:, :NDCG_K] @ discount
    ideal = np.concatenate([[0.0], np.cumsum(discount)])[np.minimum(sizes, NDCG_K)]
    out[f"ndcg@{NDCG_K}"] = dcg / ideal
    return out


def evidence_metrics(
    rankings: Sequence[Sequence[str]],
    evidence: Sequence[Sequence[str]],
    ks: Sequence[int] = (1, 5, 10, 20),
) -> dict[str, float]:
    """The mean of :func:`per_question_metrics` over questions (0.0 each when there are none)."""
    per = per_question_metrics(rankings, evidence, ks)
    return {name: float(values.mean()) if values.size else 0.0 for name, values in per.items()}


def evidence_metrics_reference(
    rankings: Sequence[Sequence[str]],
    evidence: Sequence[Sequence[str]],
    ks: Sequence[int] = (1, 5, 10, 20),
) -> dict[str, float]:
    """:func:`evidence_metrics` as a plain Python loop: the specification, and the benchmark's
    baseline."""
    kset = _check(rankings, evidence, ks)
    names = [f"{m}@{k}" for k in kset for m in ("recall", "all")] + ["mrr", f"ndcg@{NDCG_K}"]
    totals = dict.fromkeys(names, 0.0)
    for ranking, ev in zip(rankings, evidence, strict=True):
        wanted = set(ev)
        ranked = _dedup(ranking)
        for k in kset:
            found = sum(1 for item in ranked[:k] if item in wanted)
            totals[f"recall@{k}"] += found / len(wanted)
            totals[f"all@{k}"] += 1.0 if found == len(wanted) else 0.0
        totals["mrr"] += next(
            (1.0 / (i + 1) for i, item in enumerate(ranked) if item in wanted), 0.0
        )
        dcg = sum(
            1.0 / math.log2(i + 2) for i, item in enumerate(ranked[:NDCG_K]) if item in wanted
        )
        idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(wanted), NDCG_K)))
        totals[f"ndcg@{NDCG_K}"] += dcg / idcg
    n = len(rankings)
    return {name: total / n if n else 0.0 for name, total in totals.items()}
