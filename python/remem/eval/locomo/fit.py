"""Fit the linear fusion's weights on the LoCoMo dev split (deterministic coordinate ascent).

    OPENBLAS_NUM_THREADS=1 python -m remem.eval.locomo.fit --data ../shared/data/locomo-dev \\
        --embedder local --work /tmp/remem-fit

1. **Dump** (:mod:`remem.eval.locomo.candidates`): every question's complete candidate lists,
   once per embedder (``<work>/<embedder>/candidates.jsonl``, reused when present; the
   embeddings are cached in ``<work>/<embedder>/embeddings.npz``).
2. **Re-fuse offline** for a retrieval depth ``d``: each retriever's list cut to its first
   ``d`` hits, a turn merged into its memory copy (as recall's ``merge_copies`` does), the
   features computed by :func:`remem.controller.fusion.candidate_features` — recall's own
   function — and the score ``X · w``, ties by key, as recall orders them.
3. **Coordinate ascent** on ``R@10 + MRR`` (categories 1–4, questions pooled): start from
   ``fulltext = 1``, everything else 0; for each feature in a fixed order try every value of
   :data:`GRID` with the others held, keep a value only if it is strictly better; sweep until a
   sweep changes nothing (at most :data:`MAX_SWEEPS`). ``fulltext`` stays 1 (a ranking is
   invariant to scaling every weight), so the search is deterministic and finite.
4. **Leave one conversation out**: fit on two conversations, score the third, for each; the
   pooled held-out figures are reported beside the in-sample ones, so over-fitting three
   conversations shows as a gap.

Output: a JSON report (``<work>/fit.json``) and a table on stdout; the weights to ship go into
:data:`remem.controller.config.LEXICAL_WEIGHTS` (``--embedder hashing``) and
:data:`~remem.controller.config.SEMANTIC_WEIGHTS` (``--embedder local``) by hand, with
the figures, so a reader of the config sees where they came from.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from remem.controller.fusion import RankedList, candidate_features
from remem.embeddings import EmbeddingService, HashingEmbedder, SentenceTransformerEmbedder
from remem.eval.locomo.candidates import (
    RETRIEVER_SIGNALS,
    FileEmbeddingCache,
    QuestionCandidates,
    dump_candidates,
    load_dump,
    save_dump,
)

__all__ = [
    "BUILTIN_FEATURES",
    "GRID",
    "FitResult",
    "Prepared",
    "coordinate_ascent",
    "evaluate",
    "prepare",
]

BUILTIN_FEATURES: tuple[str, ...] = (
    "fulltext",
    "fulltext_rr",
    "vector",
    "vector_rr",
    "vector_cos",
)
"""The features fitted (graph has none to fit on: LoCoMo runs no extractor, so no graph)."""

GRID: tuple[float, ...] = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)
MAX_SWEEPS = 8
SCORED_CATEGORIES = ("1", "2", "3", "4")
MULTI_HOP = "1"
K = 10


@dataclass(frozen=True, slots=True)
class Prepared:
    """One question re-fused at one depth: candidate keys, features, relevance."""

    conversation: str
    category: str
    keys: tuple[str, ...]
    x: NDArray[np.float64]
    """(candidates, features)"""
    dia: NDArray[np.int64]
    """each candidate's dia_id as an index (-1: none)"""
    evidence: frozenset[int]
    order_by_key: NDArray[np.int64]
    """candidate positions sorted by key (the tie-break)"""


def _lists(q: QuestionCandidates, depth: int, merge: bool) -> list[RankedList]:
    by_rank: dict[str, list[tuple[int, str, float]]] = {r: [] for r in RETRIEVER_SIGNALS}
    for c in q.candidates:
        for r, (rank, raw) in c.ranks.items():
            if rank <= depth:
                by_rank[r].append((rank, c.key, raw))
    lists = {r: [(k, s) for _, k, s in sorted(items)] for r, items in by_rank.items()}
    if merge:
        kinds = {c.key: c for c in q.candidates}
        memories = {k for r in lists.values() for k, _ in r if not kinds[k].turn}
        copy_of = {kinds[m].turn_id: m for m in sorted(memories) if kinds[m].turn_id is not None}
        merged: list[tuple[str, float]] = []
        seen: set[str] = set()
        for key, raw in lists["fulltext"]:
            key = copy_of.get(key, key) if kinds[key].turn else key
            if key not in seen:
                seen.add(key)
                merged.append((key, raw))
        lists["fulltext"] = merged
    return [RankedList(r, lists[r]) for r in RETRIEVER_SIGNALS]


def prepare(
    questions: Sequence[QuestionCandidates],
    *,
    depth: int,
    merge: bool,
    features: Sequence[str],
) -> list[Prepared]:
    """Every scored question re-fused at ``depth`` (see the module docstring)."""
    out: list[Prepared] = []
    for q in questions:
        if q.category not in SCORED_CATEGORIES:
            continue
        extras = {c.key: c.extras for c in q.candidates}
        rows = candidate_features(_lists(q, depth, merge))
        keys = tuple(rows)
        dia_of = {c.key: c.dia_id for c in q.candidates}
        names = {d: i for i, d in enumerate(sorted({str(dia_of[k]) for k in keys}))}
        x = np.array(
            [[{**extras[k], **rows[k]}.get(f, 0.0) for f in features] for k in keys],
            dtype=np.float64,
        ).reshape(len(keys), len(features))
        out.append(
            Prepared(
                conversation=q.conversation,
                category=q.category,
                keys=keys,
                x=x,
                dia=np.array(
                    [names[str(dia_of[k])] if dia_of[k] is not None else -1 for k in keys],
                    dtype=np.int64,
                ),
                evidence=frozenset(names[e] for e in q.evidence if e in names),
                order_by_key=np.array(
                    sorted(range(len(keys)), key=lambda i: keys[i]), dtype=np.int64
                ),
            )
        )
    return out


def _question(p: Prepared, w: NDArray[np.float64], n_evidence: int) -> tuple[float, float, bool]:
    if not p.keys:
        return 0.0, 0.0, False
    score = p.x @ w
    by_key = p.order_by_key
    # Stable sort of the key-ordered positions by descending score = recall's (-score, key).
    order = by_key[np.argsort(-score[by_key], kind="stable")]
    seen: set[int] = set()
    found = 0
    rr = 0.0
    for i in order:
        d = int(p.dia[i])
        if d < 0 or d in seen:
            continue
        seen.add(d)
        if d in p.evidence:
            if rr == 0.0:
                rr = 1.0 / len(seen)
            if len(seen) <= K:
                found += 1
        if len(seen) >= K and rr > 0.0:
            break
    return found / n_evidence, rr, found == n_evidence


def evaluate(
    prepared: Sequence[Prepared],
    w: NDArray[np.float64],
    evidence_sizes: Sequence[int],
) -> dict[str, float]:
    """R@10, MRR, All@10 and multi-hop R@10 (×100) of the weights ``w`` over ``prepared``."""
    recalls, rrs, alls, multi = [], [], [], []
    for p, n in zip(prepared, evidence_sizes, strict=True):
        r, rr, complete = _question(p, w, n)
        recalls.append(r)
        rrs.append(rr)
        alls.append(complete)
        if p.category == MULTI_HOP:
            multi.append(r)
    if not recalls:
        return {"recall@10": 0.0, "mrr": 0.0, "all@10": 0.0, "multi_hop@10": 0.0, "n": 0}
    return {
        "recall@10": 100 * float(np.mean(recalls)),
        "mrr": 100 * float(np.mean(rrs)),
        "all@10": 100 * float(np.mean(alls)),
        "multi_hop@10": 100 * float(np.mean(multi)) if multi else 0.0,
        "n": float(len(recalls)),
    }


def _objective(m: Mapping[str, float]) -> float:
    return round(m["recall@10"] + m["mrr"], 9)


def coordinate_ascent(
    prepared: Sequence[Prepared], sizes: Sequence[int], features: Sequence[str]
) -> dict[str, float]:
    """The weights (see the module docstring); ``features[0]`` is pinned at 1."""
    w = np.zeros(len(features), dtype=np.float64)
    w[0] = 1.0
    best = _objective(evaluate(prepared, w, sizes))
    for _ in range(MAX_SWEEPS):
        changed = False
        for j in range(1, len(features)):
            for value in GRID:
                if value == w[j]:
                    continue
                trial = w.copy()
                trial[j] = value
                got = _objective(evaluate(prepared, trial, sizes))
                if got > best:
                    best, w, changed = got, trial, True
        if not changed:
            break
    return {f: float(v) for f, v in zip(features, w, strict=True)}


@dataclass(frozen=True)
class FitResult:
    depth: int
    merge: bool
    weights: dict[str, float]
    in_sample: dict[str, float]
    loco: dict[str, float]


def _sizes(questions: Sequence[QuestionCandidates]) -> dict[str, int]:
    return {q.qid: len(set(q.evidence)) for q in questions}


def fit(
    questions: Sequence[QuestionCandidates],
    *,
    depth: int,
    merge: bool,
    features: Sequence[str] = BUILTIN_FEATURES,
) -> FitResult:
    """Fit in-sample and leave-one-conversation-out at one depth."""
    scored = [q for q in questions if q.category in SCORED_CATEGORIES]
    sizes = [len(set(q.evidence)) for q in scored]
    prepared = prepare(scored, depth=depth, merge=merge, features=features)
    weights = coordinate_ascent(prepared, sizes, features)
    w = np.array([weights[f] for f in features])
    in_sample = evaluate(prepared, w, sizes)
    held_p: list[Prepared] = []
    held_w: list[NDArray[np.float64]] = []
    held_n: list[int] = []
    for conv in sorted({p.conversation for p in prepared}):
        train = [i for i, p in enumerate(prepared) if p.conversation != conv]
        fold = coordinate_ascent([prepared[i] for i in train], [sizes[i] for i in train], features)
        wf = np.array([fold[f] for f in features])
        for i, p in enumerate(prepared):
            if p.conversation == conv:
                held_p.append(p)
                held_w.append(wf)
                held_n.append(sizes[i])
    loco = _evaluate_each(held_p, held_w, held_n)
    return FitResult(depth, merge, weights, in_sample, loco)


def _evaluate_each(
    prepared: Sequence[Prepared], ws: Sequence[NDArray[np.float64]], sizes: Sequence[int]
) -> dict[str, float]:
    """:func:`evaluate` where each question has its own (its fold's) weights."""
    parts = [evaluate([p], w, [n]) for p, w, n in zip(prepared, ws, sizes, strict=True)]
    multi = [m["recall@10"] for m, p in zip(parts, prepared, strict=True) if p.category == "1"]
    return {
        "recall@10": float(np.mean([m["recall@10"] for m in parts])),
        "mrr": float(np.mean([m["mrr"] for m in parts])),
        "all@10": float(np.mean([m["all@10"] for m in parts])),
        "multi_hop@10": float(np.mean(multi)) if multi else 0.0,
        "n": float(len(parts)),
    }


def _embedder(name: str) -> EmbeddingService:
    if name == "local":
        return SentenceTransformerEmbedder.bundled_minilm()
    return HashingEmbedder()


async def _load_or_dump(data: Path, work: Path, embedder: str) -> list[QuestionCandidates]:
    home = work / embedder
    path = home / "candidates.jsonl"
    if path.exists():
        return load_dump(path)
    home.mkdir(parents=True, exist_ok=True)
    cache = FileEmbeddingCache(_embedder(embedder), home / "embeddings.npz")
    try:
        questions = await dump_candidates(data, home / "memories", embedder=cache)
    finally:
        cache.save()
    save_dump(path, questions)
    return questions


def _row(label: str, m: Mapping[str, float]) -> str:
    return (
        f"{label:<28} R@10 {m['recall@10']:5.1f}  MRR {m['mrr']:5.1f}  "
        f"All@10 {m['all@10']:5.1f}  multi-hop {m['multi_hop@10']:5.1f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m remem.eval.locomo.fit", description=__doc__)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/remem-fit"))
    parser.add_argument("--embedder", choices=("hashing", "local"), default="hashing")
    parser.add_argument("--depths", default="20,40,60", help="retrieval depths to try")
    parser.add_argument("--extra", action="append", default=[], help="an extra signal to fit")
    args = parser.parse_args(argv)
    questions = asyncio.run(_load_or_dump(args.data, args.work, args.embedder))
    features = (*BUILTIN_FEATURES, *args.extra)
    report: list[dict[str, object]] = []
    for depth in (int(d) for d in args.depths.split(",")):
        for merge in (True, False):
            r = fit(questions, depth=depth, merge=merge, features=features)
            label = f"d={depth} merge={'on' if merge else 'off'}"
            print(_row(f"{label} in-sample", r.in_sample))
            print(_row(f"{label} LOCO", r.loco))
            print("   weights", {f: w for f, w in r.weights.items() if w})
            report.append(
                {
                    "embedder": args.embedder,
                    "depth": depth,
                    "merge": merge,
                    "weights": r.weights,
                    "in_sample": r.in_sample,
                    "loco": r.loco,
                }
            )
            sys.stdout.flush()
    out = args.work / args.embedder / "fit.json"
    out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
