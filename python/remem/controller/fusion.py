"""Fusing the retrievers' ranked lists: reciprocal-rank fusion and weighted score fusion.

Each retriever (``vector``: cosine over the staged collections; ``fulltext``: BM25 / ts_rank over
episodic turns and memory notes; ``graph``: paths from entities the query names) returns a list
of ``(key, raw score)``, best first. A memory found by several retrievers shares one key (its
id), so fusion rewards agreement.

* **RRF** (Cormack et al. 2009): ``fused = Σ_r w_r / (k + rank_r)``, rank from 1, ``k = 60``.
  It uses only ranks, so the incomparable scales of cosine, bm25 and the graph score never
  matter.
* **Weighted** score fusion: ``fused = Σ_r w_r · (s - min_r) / (max_r - min_r)`` — each
  retriever's raw scores min-max scaled within the query (a lone hit, or all-equal scores,
  scale to 1).

Default: **RRF**, picked by measurement on two sets. ``tests/controller/test_fusion_eval.py``
builds a seeded set of 200 synthetic persona memories with 200 paraphrased questions (each with
one known answer, many near-miss distractors sharing words) plus 100 chat turns naming the same
people (full-text noise), and recalls with the HashingEmbedder on real embedded stores
(``benches/bench_controller.py::test_fusion_quality`` reports the numbers). Measured (seed 7,
k=10, deterministic; ``pytest tests/controller/test_fusion_eval.py -s``), with stop words
planned out of full-text queries:

    method     MRR     recall@5
    rrf        0.383   0.820
    weighted   0.442   0.820

A tie on recall@5 — what context assembly consumes — with weighted ranking the answer higher.
End to end, ``remem eval --quick`` (4 personas × 21 days, the companion's context recall of the
current value) settles it: RRF 57.1% [50.0, 64.7], weighted 52.4% [45.3, 59.4], and the
stale-only rate 14.3% vs 28.6%. Min-max scaling lets one retriever's outlier (a long bm25 match on
a noisy turn) flatten the others' spread, and in a conversation's turns such outliers are the
rule. (Before stop words were dropped the labelled set alone decided: rrf recall@5 0.790,
weighted 0.695.)

Both are offered (``FusionConfig(method="weighted")``); ties are broken by key so the order is
deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from remem.controller.config import FusionConfig


@dataclass(frozen=True, slots=True)
class RankedList:
    """One retriever's hits for one query: ``(key, raw score)`` pairs, best first."""

    retriever: str
    items: Sequence[tuple[str, float]]


@dataclass(slots=True)
class Fused:
    """A key's fused score and each retriever's (rank, raw score, contribution)."""

    key: str
    score: float = 0.0
    parts: dict[str, tuple[int, float, float]] = field(default_factory=dict)


def reciprocal_rank_fusion(
    lists: Sequence[RankedList], *, k: int = 60, weights: Mapping[str, float] | None = None
) -> dict[str, Fused]:
    """``Σ_r w_r / (k + rank_r)``; a key listed twice by one retriever counts at its best rank."""
    out: dict[str, Fused] = {}
    for ranked in lists:
        w = 1.0 if weights is None else float(weights.get(ranked.retriever, 0.0))
        if w == 0.0:
            continue
        seen: set[str] = set()
        for rank, (key, raw) in enumerate(ranked.items, start=1):
            if key in seen:
                continue
            seen.add(key)
            part = w / (k + rank)
            fused = out.setdefault(key, Fused(key))
            fused.score += part
            fused.parts[ranked.retriever] = (rank, raw, part)
    return out


def weighted_score_fusion(
    lists: Sequence[RankedList], *, weights: Mapping[str, float] | None = None
) -> dict[str, Fused]:
    """``Σ_r w_r · minmax_r(score)``; a lone hit or all-equal scores scale to 1."""
    out: dict[str, Fused] = {}
    for ranked in lists:
        w = 1.0 if weights is None else float(weights.get(ranked.retriever, 0.0))
        if w == 0.0 or not ranked.items:
            continue
        scores = [s for _, s in ranked.items]
        lo, hi = min(scores), max(scores)
        span = hi - lo
        seen: set[str] = set()
        for rank, (key, raw) in enumerate(ranked.items, start=1):
            if key in seen:
                continue
            seen.add(key)
            part = w * ((raw - lo) / span if span > 0 else 1.0)
            fused = out.setdefault(key, Fused(key))
            fused.score += part
            fused.parts[ranked.retriever] = (rank, raw, part)
    return out


def fuse(lists: Sequence[RankedList], config: FusionConfig) -> dict[str, Fused]:
    """Fuse by ``config.method``."""
    if config.method == "rrf":
        return reciprocal_rank_fusion(lists, k=config.rrf_k, weights=config.weights)
    return weighted_score_fusion(lists, weights=config.weights)


def describe_fusion(fused: Fused, config: FusionConfig) -> str:
    """``rrf k=60: vector #1 (0.812), fulltext #3 (4.21)`` — which retriever ranked it where."""
    parts = ", ".join(
        f"{name} #{rank} ({raw:.3g})" for name, (rank, raw, _) in sorted(fused.parts.items())
    )
    label = f"rrf k={config.rrf_k}" if config.method == "rrf" else "weighted min-max"
    return f"{label}: {parts}"
