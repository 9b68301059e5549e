"""Fit the learned re-ranker's weights on the LoCoMo dev split (deterministic).

    OPENBLAS_NUM_THREADS=1 python -m remem.eval.locomo.rerank_fit \\
        --data /work/shared/data/locomo-dev --work /tmp/remem-rerank [--write]

1. **Dump** (``<work>/rows.jsonl``, reused when present; MiniLM's vectors cached in
   ``<work>/embeddings.npz``): each conversation ingested as ``benches/locomo_stages.py`` does
   (MiniLM, the shipped stages, usage off), then ``recall(question, k=DEPTH)`` for every
   question of categories 1–4 with the ``rerank`` stage OFF; each result becomes the
   :class:`~remem.controller.stages.RerankRow` recall itself would build (read back from
   ``ScoredMemory.signals``) with its dia_id. Recall re-ranks the same block: its ``depth``
   (40) best candidates, which are exactly these results.
2. **Features**: :func:`remem.controller.stages.rerank.rerank_features` — recall's own function.
3. **Model**: pairwise logistic regression (RankNet with a linear scorer) over
   :data:`~remem.controller.stages.rerank.BASE_FEATURES`: for every question, every
   (evidence, non-evidence) pair of its block, loss ``log(1 + exp(−w·(x_pos − x_neg)))``
   weighted by ``|1/(p+1) − 1/(n+1)|`` of the pair's positions before re-ranking (swaps near
   the top count most), plus ``λ/2 · |w|²`` on standardised features; solved by
   Newton's method from ``w = 0`` for a fixed number of steps (no randomness, so the same dump
   gives the same weights). No ``λ`` is chosen: the weights are the mean of the fits at every
   ``λ`` of :data:`LAMBDAS` (:func:`fit_averaged`), so no held-out figure picks anything. (A
   ``λ`` chosen per fold by leave-one-conversation-out within the two training conversations
   is printed for the record: with two conversations that choice is noisy — one fold picked
   0.1 — and it lost 1.4 multi-hop.)
4. **Leave one conversation out**: fit on two conversations, score the third, for each; the
   pooled held-out figures are the ones that decide. The in-sample figures (fitted on all
   three) are printed beside them, and the weights to ship are the in-sample fit's (rounded to
   4 decimals, the figures re-measured with the rounded weights). The question-type
   interaction terms (``who*speaker``, ``when*time``, … of :func:`feature_names`) are fitted
   and scored by LOCO too, for the record: with 383 questions they over-fit (LOCO below the
   base features' at every λ tried), so the shipped weights leave them out.

``--write`` writes :mod:`remem.controller.stages.rerank_weights` with the weights and figures.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from remem.controller import ControllerConfig
from remem.controller.stages import RecallStagesConfig, RerankRow
from remem.controller.stages.rerank import BASE_FEATURES, feature_names, rerank_features
from remem.embeddings import SentenceTransformerEmbedder
from remem.eval.locomo.candidates import FileEmbeddingCache
from remem.eval.locomo.ingest import ingest_conversation
from remem.eval.locomo.loader import load_locomo
from remem.eval.locomo.metrics import evidence_metrics
from remem.eval.locomo.retrieve import map_results
from remem.models import ScoredMemory

__all__ = [
    "DEPTH",
    "LAMBDAS",
    "Question",
    "figures",
    "fit_weights",
    "load_rows",
    "loco",
    "row_of",
    "save_rows",
]

DEPTH = 40
"""The block re-ranked (``RerankConfig.depth``) and ``benches/locomo_stages.py``'s recall k."""
LAMBDAS = (0.001, 0.003, 0.01, 0.03, 0.1)
NEWTON_STEPS = 30
CATEGORIES = ("1", "2", "3", "4")


@dataclass(frozen=True, slots=True)
class Question:
    """One question's block: rows best first (the order before re-ranking) and dia_ids."""

    conversation: str
    category: str
    question: str
    evidence: tuple[str, ...]
    rows: tuple[RerankRow, ...]
    dia_ids: tuple[str | None, ...]


def row_of(hit: ScoredMemory) -> RerankRow:
    """The :class:`RerankRow` recall builds for ``hit`` (before the re-ranker ran)."""
    s, record = hit.signals, hit.record
    turn = record.metadata.get("source") == "turn"
    text = record.text
    if turn:
        # A turn's record text is ``user: …`` (and ``\\nassistant: …``); recall reads the
        # stored turn text, which is the user's words when the assistant's are empty.
        lines = text.split("\n")
        if len(lines) == 1 and text.startswith("user: "):
            text = text[len("user: ") :]

    def part(name: str) -> tuple[int, float] | None:
        rank = s.get(f"{name}_rank")
        return None if rank is None else (int(rank), float(s[name]))

    return RerankRow(
        key=record.id,
        score=float(hit.score),
        fulltext=part("fulltext"),
        vector=part("vector"),
        share=float(s.get("neighbours", 0.0)),
        speaker=float(s.get("speaker", 1.0)),
        dates=float(s.get("dates", 1.0)),
        time=float(s.get("time_expressions", 1.0)),
        session=record.session_id,
        text=text,
        turn=turn,
    )


def _dia_id(hit: ScoredMemory, dia_ids: Mapping[str, str]) -> str | None:
    mapped, _ = map_results([hit], dia_ids)
    return mapped[0] if mapped else None


def _controller() -> ControllerConfig:
    base = ControllerConfig()
    inclusion = dataclasses.replace(base.inclusion, hit_weight=0.0)
    stages = RecallStagesConfig().without("rerank")
    return dataclasses.replace(base, inclusion=inclusion, stages=stages)


async def dump(data: Path, work: Path) -> list[Question]:
    """Ingest every conversation under ``work/store`` and collect each question's block."""
    cache = FileEmbeddingCache(
        SentenceTransformerEmbedder.bundled_minilm(), work / "embeddings.npz"
    )
    out: list[Question] = []
    for conv in load_locomo(data):
        ingested = await ingest_conversation(
            conv, work / "store", embedder=cache, controller=_controller()
        )
        try:
            for q in conv.questions:
                if q.category not in CATEGORIES or not q.evidence:
                    continue
                hits = await ingested.runtime.controller.recall(q.question, k=DEPTH)
                ids = tuple(_dia_id(h, ingested.dia_ids) for h in hits)
                out.append(
                    Question(
                        conv.sample_id,
                        q.category,
                        q.question,
                        tuple(q.evidence),
                        tuple(row_of(h) for h in hits),
                        ids,
                    )
                )
        finally:
            await ingested.runtime.aclose()
            cache.save()
    return out


def save_rows(path: Path, questions: Sequence[Question]) -> None:
    """One JSON object per question (JSONL)."""
    with Path(path).open("w", encoding="utf-8") as fh:
        for q in questions:
            fh.write(json.dumps(dataclasses.asdict(q), sort_keys=True) + "\n")


def load_rows(path: Path) -> list[Question]:
    """Read what :func:`save_rows` wrote."""
    out: list[Question] = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            rows = tuple(
                RerankRow(
                    **{
                        **r,
                        "fulltext": None if r["fulltext"] is None else tuple(r["fulltext"]),
                        "vector": None if r["vector"] is None else tuple(r["vector"]),
                    }
                )
                for r in d["rows"]
            )
            out.append(
                Question(
                    d["conversation"],
                    d["category"],
                    d["question"],
                    tuple(d["evidence"]),
                    rows,
                    tuple(d["dia_ids"]),
                )
            )
    return out


_NAMES = feature_names()
_INDEX = {n: i for i, n in enumerate(_NAMES)}


def _matrix(q: Question) -> NDArray[np.float64]:
    x = np.zeros((len(q.rows), len(_NAMES)), dtype=np.float64)
    for i, feats in enumerate(rerank_features(q.question, q.rows)):
        for name, v in feats.items():
            x[i, _INDEX[name]] = v
    return x


def _pairs(
    questions: Sequence[Question], matrices: Sequence[NDArray[np.float64]]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Every (evidence, other) pair's feature difference and its weight
    ``|1/(p+1) − 1/(n+1)|`` (p, n: the two positions before re-ranking, from 0), so swaps near
    the top weigh most (LambdaRank's idea, with the positions fixed); scaled to sum to the
    number of questions."""
    diffs: list[NDArray[np.float64]] = []
    weights: list[NDArray[np.float64]] = []
    for q, x in zip(questions, matrices, strict=True):
        wanted = set(q.evidence)
        pos = np.array([i for i, d in enumerate(q.dia_ids) if d in wanted], dtype=np.int64)
        neg = np.array([i for i, d in enumerate(q.dia_ids) if d not in wanted], dtype=np.int64)
        if not len(pos) or not len(neg):
            continue
        diffs.append((x[pos][:, None, :] - x[neg][None, :, :]).reshape(-1, x.shape[1]))
        gain = np.abs(1.0 / (pos[:, None] + 1.0) - 1.0 / (neg[None, :] + 1.0))
        weights.append(gain.reshape(-1))
    if not diffs:
        return np.zeros((0, len(_NAMES))), np.zeros(0)
    w = np.concatenate(weights)
    return np.concatenate(diffs), w * (len(questions) / w.sum())


def fit_weights(
    questions: Sequence[Question], lam: float, names: Sequence[str] = BASE_FEATURES
) -> dict[str, float]:
    """The pairwise logistic weights (by feature name, zeros left out) of the features
    ``names`` fitted on ``questions`` with L2 strength ``lam`` (see the module docstring);
    the same input gives the same output."""
    keep = [_INDEX[n] for n in names]
    matrices = [_matrix(q)[:, keep] for q in questions]
    d, pw = _pairs(questions, matrices)
    if len(d) == 0:
        return {}
    stacked = np.concatenate(matrices)
    scale = stacked.std(axis=0)
    scale[scale == 0] = 1.0
    z = d / scale
    n_questions = float(len(questions))
    w = np.zeros(z.shape[1])
    for _ in range(NEWTON_STEPS):
        m = z @ w
        p = 1.0 / (1.0 + np.exp(m))  # sigmoid(-m): each pair's gradient weight
        grad = -(z.T @ (pw * p)) / n_questions + lam * w
        h = (z.T * (pw * p * (1.0 - p))) @ z / n_questions + lam * np.eye(z.shape[1])
        step = np.linalg.solve(h, grad)
        w = w - step
        if float(np.abs(step).max()) < 1e-10:
            break
    raw = w / scale
    return {n: float(v) for n, v in zip(names, raw, strict=True) if v != 0.0}


def fit_averaged(
    questions: Sequence[Question], names: Sequence[str] = BASE_FEATURES
) -> dict[str, float]:
    """The mean of :func:`fit_weights` over every λ of :data:`LAMBDAS` (a linear scorer, so
    this is the mean of their scores): no λ is chosen, so nothing is tuned on held-out data."""
    fits = [fit_weights(questions, lam, names) for lam in LAMBDAS]
    used = [n for n in names if any(n in w for w in fits)]
    return {n: sum(w.get(n, 0.0) for w in fits) / len(fits) for n in used}


def _order(q: Question, weights: Mapping[str, float] | None) -> list[str]:
    if weights is None:
        idx = list(range(len(q.rows)))
    else:
        vec = np.array([weights.get(n, 0.0) for n in _NAMES])
        s = _matrix(q) @ vec
        idx = sorted(range(len(q.rows)), key=lambda i: (-s[i], i))
    return [d for d in (q.dia_ids[i] for i in idx) if d is not None]


def figures(questions: Sequence[Question], weights: Mapping[str, float] | None) -> dict[str, float]:
    """R@10, MRR, All@10 and multi-hop R@10 (percent) of ``questions`` re-ranked by
    ``weights`` (None: as recall ranked them before the re-ranker)."""
    ranked = [_order(q, weights) for q in questions]
    evidence = [q.evidence for q in questions]
    m = evidence_metrics(ranked, evidence, (10,))
    multi = [i for i, q in enumerate(questions) if q.category == "1"]
    mh = evidence_metrics([ranked[i] for i in multi], [evidence[i] for i in multi], (10,))
    return {
        "R@10": 100 * m["recall@10"],
        "MRR": 100 * m["mrr"],
        "All@10": 100 * m["all@10"],
        "multi-hop": 100 * mh["recall@10"],
    }


def _objective(f: Mapping[str, float]) -> float:
    """The mean of the four figures (``benches/locomo_stages.py``'s grid objective)."""
    return (f["R@10"] + f["MRR"] + f["All@10"] + f["multi-hop"]) / 4


def choose_lambda(questions: Sequence[Question], names: Sequence[str] = BASE_FEATURES) -> float:
    """The :data:`LAMBDAS` value whose leave-one-conversation-out mean of the four figures
    over ``questions`` is best (ties: the larger, more regularised one)."""
    convs = sorted({q.conversation for q in questions})
    if len(convs) < 2:
        return LAMBDAS[-1]
    best, best_score = LAMBDAS[-1], float("-inf")
    for lam in sorted(LAMBDAS, reverse=True):
        ranked: list[Question] = []
        orders: list[dict[str, float]] = []
        for held in convs:
            train = [q for q in questions if q.conversation != held]
            test = [q for q in questions if q.conversation == held]
            w = fit_weights(train, lam, names)
            ranked += test
            orders += [w] * len(test)
        score = _objective(_pooled(ranked, orders))
        if score > best_score + 1e-9:
            best, best_score = lam, score
    return best


def _pooled(
    questions: Sequence[Question], weights: Sequence[Mapping[str, float]]
) -> dict[str, float]:
    """Figures with each question re-ranked by its own weights (pooled over folds)."""
    parts = [(q, w) for q, w in zip(questions, weights, strict=True)]
    ranked = [_order(q, w) for q, w in parts]
    evidence = [q.evidence for q in questions]
    m = evidence_metrics(ranked, evidence, (10,))
    multi = [i for i, q in enumerate(questions) if q.category == "1"]
    mh = evidence_metrics([ranked[i] for i in multi], [evidence[i] for i in multi], (10,))
    return {
        "R@10": 100 * m["recall@10"],
        "MRR": 100 * m["mrr"],
        "All@10": 100 * m["all@10"],
        "multi-hop": 100 * mh["recall@10"],
    }


def loco(
    questions: Sequence[Question], names: Sequence[str] = BASE_FEATURES, *, nested: bool = False
) -> tuple[dict[str, float], dict[str, float]]:
    """Pooled held-out figures: each conversation re-ranked by weights fitted on the others —
    :func:`fit_averaged`, or with ``nested`` the λ :func:`choose_lambda` picks within them —
    and (nested) each held-out conversation's λ."""
    convs = sorted({q.conversation for q in questions})
    tested: list[Question] = []
    weights: list[Mapping[str, float]] = []
    lams: dict[str, float] = {}
    for held in convs:
        train = [q for q in questions if q.conversation != held]
        if nested:
            lams[held] = lam = choose_lambda(train, names)
            w = fit_weights(train, lam, names)
        else:
            w = fit_averaged(train, names)
        test = [q for q in questions if q.conversation == held]
        tested += test
        weights += [w] * len(test)
    return _pooled(tested, weights), lams


def _line(label: str, f: Mapping[str, float]) -> str:
    return f"{label:34s} {f['R@10']:6.1f} {f['MRR']:6.1f} {f['All@10']:7.1f} {f['multi-hop']:9.1f}"


def _write(weights: Mapping[str, float], report: str) -> Path:
    path = Path(__file__).resolve().parents[2] / "controller" / "stages" / "rerank_weights.py"
    body = "\n".join(f"    {json.dumps(n)}: {v!r}," for n, v in weights.items())
    text = f'''"""The learned re-ranker's shipped weights (:mod:`remem.controller.stages.rerank`).

Written by ``OPENBLAS_NUM_THREADS=1 python -m remem.eval.locomo.rerank_fit --data DIR --work
DIR --write`` (pairwise logistic regression on the LoCoMo dev split, averaged over its λ
grid; see that module). Figures of that run (R@10 / MRR / All@10 / multi-hop R@10,
categories 1–4):

{report}
"""

from __future__ import annotations

WEIGHTS: dict[str, float] = {{
{body}
}}
'''
    path.write_text(text, encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m remem.eval.locomo.rerank_fit", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/remem-rerank"))
    parser.add_argument("--write", action="store_true", help="write rerank_weights.py")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    rows_path = args.work / "rows.jsonl"
    if not rows_path.exists():
        save_rows(rows_path, asyncio.run(dump(args.data, args.work)))
    questions = load_rows(rows_path)
    header = f"{'':34s} {'R@10':>6s} {'MRR':>6s} {'All@10':>7s} {'multi-hop':>9s}"
    lines = [header, _line("before (the block as recall ranks it)", figures(questions, None))]
    # The question-type interactions, and a λ chosen per fold, for the record (not shipped).
    crossed, _ = loco(questions, feature_names())
    lines.append(_line("LOCO, with the question-type terms", crossed))
    chosen, lams = loco(questions, nested=True)
    lines.append(_line("LOCO, lambda chosen by nested LOCO", chosen))
    held, _ = loco(questions)
    lines.append(_line("leave one conversation out", held))
    weights = {n: round(v, 4) for n, v in fit_averaged(questions).items()}
    weights = {n: v for n, v in weights.items() if v != 0.0}
    lines.append(_line("in-sample (rounded)", figures(questions, weights)))
    for conv in sorted({q.conversation for q in questions}):
        part = [q for q in questions if q.conversation == conv]
        lines.append(_line(f"  conversation {conv}: before", figures(part, None)))
        lines.append(_line(f"  conversation {conv}: in-sample", figures(part, weights)))
    report = "\n".join(f"    {line}" for line in lines)
    print(report)
    print("nested LOCO's lambda per held-out conversation:", lams)
    print("weights:", json.dumps(weights, indent=1))
    (args.work / "rerank_fit.json").write_text(
        json.dumps({"nested_lambdas": lams, "weights": weights}, indent=1),
        encoding="utf-8",
    )
    if args.write:
        print("wrote", _write(weights, report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
