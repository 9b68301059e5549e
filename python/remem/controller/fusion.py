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

Default: **linear** fusion with weights fitted on LoCoMo dev (below). RRF was the default until
then, picked by measurement on two sets: ``tests/controller/test_fusion_eval.py`` builds a
seeded set of 200 synthetic persona memories with 200 paraphrased questions (each with one known
answer, many near-miss distractors sharing words) plus 100 chat turns naming the same people
(full-text noise), and recalls with the HashingEmbedder on real embedded stores
(``benches/bench_controller.py::test_fusion_quality`` reports the numbers). Measured (seed 7,
k=10, deterministic; ``pytest tests/controller/test_fusion_eval.py -s``), with stop words
planned out of full-text queries:

    method     MRR     recall@5
    rrf        0.383   0.820
    weighted   0.442   0.820
    linear     0.397   0.665   (hashing weights fitted on LoCoMo; not fitted on this set)

With today's stages and the answer-type prior (on by default since 2026-12-03) the same set
gives MRR / R@5 rrf 0.816 / 0.965, weighted 0.754 / 1.000, linear 0.777 / 0.995 (prior off:
0.463 / 0.830, 0.528 / 0.915, 0.510 / 0.860). LoCoMo dev still picks linear with the prior on:
R@10 81.3 vs 75.1, MRR 61.4 vs 52.2 (``benches/locomo_stages.py --embedder local
--answer-type --fusions linear,rrf``; README, "Answer-type prior").

End to end, ``remem eval --quick`` (4 personas × 21 days, the companion's context recall of the
current value): RRF 57.1% [50.0, 64.7], weighted 52.4% [45.3, 59.4], and the stale-only rate
14.3% vs 28.6%. Min-max scaling lets one retriever's outlier (a long bm25 match on a noisy turn)
flatten the others' spread. On real conversations (LoCoMo dev, 383 questions) equal-weight RRF
with the lexical hashing vectors ranked *below* full text alone (R@10 52.0 vs 57.6): a weaker
retriever with an equal vote drags the stronger one down, which a fitted weight does not.

* **Linear** (learned) fusion: ``fused = Σ_f w_f · x_f`` over named per-candidate features —
  for each retriever ``r``: ``r`` (its min-max scaled score, as above), ``r_rr`` (``1 / rank``,
  0 when ``r`` missed the key), plus ``vector_cos`` (the raw cosine, clipped to 0..1: unlike the
  scaled score it says how close the best hit really is); and any *extra* feature a caller
  computes per key (a prior such as a speaker or date match), looked up by name. A feature
  without a weight contributes nothing; weights are ≥ 0, so ``fused ≥ 0``. The weights are not
  hand-set: :mod:`remem.eval.locomo.fit` fits them on the LoCoMo dev split (coordinate ascent
  on R@10 + MRR over a dump of every question's candidates, computed by the same
  :func:`candidate_features` as here) and :mod:`remem.controller.config` ships them as named
  constants with the figures they produced (one set for the lexical hashing embedder, one for
  a semantic embedder: :func:`~remem.controller.config.fitted_weights`).

Ties are broken by key so the order is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from remem.controller.config import FusionConfig
from remem.errors import ConfigError


@dataclass(frozen=True, slots=True)
class RankedList:
    """One retriever's hits for one query: ``(key, raw score)`` pairs, best first."""

    retriever: str
    items: Sequence[tuple[str, float]]


@dataclass(slots=True)
class Fused:
    """A key's fused score and each retriever's (rank, raw score, contribution); ``features``
    holds the linear fusion's non-zero feature values (empty for rrf and weighted)."""

    key: str
    score: float = 0.0
    parts: dict[str, tuple[int, float, float]] = field(default_factory=dict)
    features: dict[str, float] = field(default_factory=dict)


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


def candidate_features(lists: Sequence[RankedList]) -> dict[str, dict[str, float]]:
    """Every listed key's built-in features (see the module docstring), non-zero ones only.

    A key listed twice by one retriever counts at its first (best) position; ranks count
    distinct keys from 1. This is the one definition the fitting script and recall share.

    >>> candidate_features([RankedList("vector", [("a", 0.8), ("b", 0.4)])])["b"]
    {'vector_rr': 0.5, 'vector_cos': 0.4}
    """
    return _features_and_ranks(lists)[0]


def _features_and_ranks(
    lists: Sequence[RankedList],
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, tuple[int, float]]]]:
    """:func:`candidate_features` and each key's ``{retriever: (rank, raw)}`` in one pass."""
    out: dict[str, dict[str, float]] = {}
    ranks: dict[str, dict[str, tuple[int, float]]] = {}
    for ranked in lists:
        name = ranked.retriever
        first: dict[str, float] = {}
        for key, raw in ranked.items:
            if key not in first:
                first[key] = float(raw)
        if not first:
            continue
        lo, hi = min(first.values()), max(first.values())
        span = hi - lo
        rr_name, vector = f"{name}_rr", name == "vector"
        for rank, (key, raw) in enumerate(first.items(), start=1):
            row = out.get(key)
            if row is None:
                row = out[key] = {}
                ranks[key] = {}
            ranks[key][name] = (rank, raw)
            scaled = (raw - lo) / span if span > 0 else 1.0
            if scaled > 0.0:
                row[name] = scaled
            row[rr_name] = 1.0 / rank
            if vector and raw > 0.0:
                row["vector_cos"] = min(raw, 1.0)
    return out, ranks


def linear_fusion(
    lists: Sequence[RankedList],
    *,
    weights: Mapping[str, float],
    extras: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Fused]:
    """``Σ_f weights[f] · x_f`` over :func:`candidate_features` and ``extras[key]`` (a caller's
    named per-key features; a name in both is the caller's). Only listed keys are scored."""
    out: dict[str, Fused] = {}
    features, ranks = _features_and_ranks(lists)
    # A fixed summation order (the features' names sorted) keeps equal inputs bit-identical.
    prefixes = {ranked.retriever: f"{ranked.retriever}_" for ranked in lists}
    owners: dict[str, tuple[str, ...]] = {}  # feature name -> the retrievers whose part it is
    for key, row in features.items():
        if extras is not None and key in extras:
            row = {**row, **extras[key]}
        fused = Fused(key, features={f: x for f, x in row.items() if x != 0.0})
        # The sum runs over the row's weighted features in name order: the weights' sorted
        # order, less the names the row lacks — each of those adds w × 0.0 = +0.0, which leaves
        # a sum that starts at +0.0 unchanged, so skipping them is exact.
        # Each retriever's part: its features' weighted values summed in name order (as
        # ``sum`` over the sorted row would, from 0) — accumulated in the same pass.
        score = 0.0
        acc: dict[str, float] = {}
        for name, x in sorted(row.items()):
            w = weights.get(name)
            if w is not None:
                score += w * x
            mine = owners.get(name)
            if mine is None:
                mine = owners[name] = tuple(
                    r for r, prefix in prefixes.items() if name == r or name.startswith(prefix)
                )
            for retriever in mine:
                acc[retriever] = acc.get(retriever, 0) + (0.0 if w is None else w) * x
        fused.score = score
        for retriever, (rank, raw) in ranks[key].items():
            fused.parts[retriever] = (rank, raw, acc.get(retriever, 0))
        out[key] = fused
    return out


def fuse(
    lists: Sequence[RankedList],
    config: FusionConfig,
    extras: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, Fused]:
    """Fuse by ``config.method`` (``extras``: per-key named features, used by linear fusion)."""
    if config.method == "rrf":
        return reciprocal_rank_fusion(lists, k=config.rrf_k, weights=config.weights)
    if config.method == "linear":
        if config.features is None:
            raise ConfigError(
                "linear fusion has no feature weights; call FusionConfig.for_embedder first"
            )
        return linear_fusion(lists, weights=config.features, extras=extras)
    return weighted_score_fusion(lists, weights=config.weights)


def describe_fusion(fused: Fused, config: FusionConfig) -> str:
    """``rrf k=60: vector #1 (0.812), fulltext #3 (4.21)`` — which retriever ranked it where."""
    parts = ", ".join(
        f"{name} #{rank} ({raw:.3g})" for name, (rank, raw, _) in sorted(fused.parts.items())
    )
    label = {
        "rrf": f"rrf k={config.rrf_k}",
        "weighted": "weighted min-max",
        "linear": "linear fitted",
    }[config.method]
    return f"{label}: {parts}"
