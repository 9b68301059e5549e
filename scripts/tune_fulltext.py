"""Choose remem's full-text normalisation on the LoCoMo dev split: stemming, question stop words,
BM25 k1/b. Deterministic (no randomness, no clock): the same data gives the same report.

    python scripts/tune_fulltext.py --data ../shared/data/locomo-dev [--json out.json]
    python scripts/tune_fulltext.py --data ../shared/data/locomo-dev --score RANKINGS.jsonl

The retrieval measured is remem's episodic full text alone, exactly as a store ranks it: each
utterance of a conversation (``Turn.content()``, as ``remem bench locomo`` stores it) becomes a
document of a :class:`~remem.stores.term_index.TermIndex` holding its FTS5 tokens; each question
of categories 1–4 is planned by :meth:`FullTextConfig.query_terms` and ranked by bm25 (ties:
newest first, as the store orders them); the distinct dia_ids are scored like the benchmark
(R@10, MRR, All@10, multi-hop R@10, in %).

Sections of the report:

1. the pipeline ablation: stemming on/off × classic/question stop words at FTS5's k1/b;
2. every stop-word candidate alone: the change in R@10 and MRR when it is added to the classic
   list (with stemming), and how many questions contain it. A candidate is selected when it
   lowers neither R@10 nor MRR and occurs in a dev question (or is one of the pure
   :data:`HEDGES`, which no dev question holds);
3. a k1 × b grid with the chosen pipeline: the best pair against FTS5's (1.2, 0.75).

``--score FILE`` only scores a ``remem bench locomo --rankings`` file on categories 1–4.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from remem.eval.locomo.format import Conversation, Question
from remem.eval.locomo.loader import load_locomo
from remem.eval.locomo.metrics import evidence_metrics
from remem.eval.locomo.rankings import read_rankings
from remem.kernels.bm25 import FTS5_B, FTS5_K1
from remem.stores.shared.search_text import (
    QUESTION_STOPWORDS,
    STOPWORDS,
    FullTextConfig,
)
from remem.stores.sqlite.fts5_tokens import fts5_tokens
from remem.stores.term_index import IndexSnapshot, TermIndex

CATEGORIES = ("1", "2", "3", "4")
MULTI_HOP = "1"
DEPTH = 20

CANDIDATES = tuple(
    sorted(
        set(
            """
            kind kinds sort type types likely might maybe probably possibly perhaps think
            thinks thought believe consider considered ever many much often usually also else
            something anything things thing get got go going went like mention mentioned say
            said tell told specific particular ones someone recently
            does did when would could should
            s m re ve ll d
            """.split()  # noqa: SIM905
        )
        - STOPWORDS
    )
)
"""Question and hedge words tried as extra query stop words (the classic list already has
"would", "when", "did", "does", "could", "should"). Not tried: "may" (folded, it is also the
month) and "one" (a number)."""

HEDGES = frozenset({"maybe", "perhaps", "possibly", "probably"})
"""Pure hedges kept even when no dev question holds them (they cannot be measured here)."""

K1_GRID = (0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
B_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Corpus:
    """One conversation indexed under one normalisation."""

    snapshot: IndexSnapshot
    dia_ids: list[str]
    questions: list[Question]


def _questions(conversation: Conversation) -> list[Question]:
    return [q for q in conversation.questions if q.category in CATEGORIES and q.evidence]


def build(conversations: Sequence[Conversation], config: FullTextConfig) -> list[Corpus]:
    corpora = []
    for conversation in conversations:
        texts = [(t.dia_id, t.content()) for t in conversation.turns if t.content().strip()]
        index = TermIndex()
        index.append(fts5_tokens(config.search_text(text)) for _, text in texts)
        corpora.append(Corpus(index.snapshot(), [d for d, _ in texts], _questions(conversation)))
    return corpora


def _tokens(config: FullTextConfig, question: str) -> list[str]:
    return [t for term in config.query_terms(question) for t in fts5_tokens(term)[:1]]


def evaluate(
    corpora: Sequence[Corpus],
    config: FullTextConfig,
    *,
    k1: float = FTS5_K1,
    b: float = FTS5_B,
) -> dict[str, float]:
    """R@10, MRR, All@10 and multi-hop R@10 (in %) over every corpus's questions."""
    rankings: list[list[str]] = []
    evidence: list[tuple[str, ...]] = []
    multi: list[bool] = []
    for corpus in corpora:
        queries = [_tokens(config, q.question) for q in corpus.questions]
        found = corpus.snapshot.search_many(queries, DEPTH, k1=k1, b=b)
        for question, (docs, scores) in zip(corpus.questions, found, strict=True):
            # The store's order: score, then newest (a later document) first.
            order = sorted(
                zip(scores.tolist(), docs.tolist(), strict=True), key=lambda p: (-p[0], -p[1])
            )
            ranked = list(dict.fromkeys(corpus.dia_ids[d] for _, d in order))[:DEPTH]
            rankings.append(ranked)
            evidence.append(question.evidence)
            multi.append(question.category == MULTI_HOP)
    return _summary(rankings, evidence, multi)


def _summary(
    rankings: Sequence[Sequence[str]], evidence: Sequence[Sequence[str]], multi: Sequence[bool]
) -> dict[str, float]:
    m = evidence_metrics(rankings, evidence, ks=(10,))
    hop = evidence_metrics(
        [r for r, h in zip(rankings, multi, strict=True) if h],
        [e for e, h in zip(evidence, multi, strict=True) if h],
        ks=(10,),
    )
    return {
        "R@10": round(100 * m["recall@10"], 1),
        "MRR": round(100 * m["mrr"], 1),
        "All@10": round(100 * m["all@10"], 1),
        "multi-hop R@10": round(100 * hop["recall@10"], 1),
        "n": len(rankings),
    }


def score_rankings(conversations: Sequence[Conversation], path: Path) -> dict[str, float]:
    """Categories 1–4 of a ``--rankings`` file written by ``remem bench locomo``."""
    ranked = read_rankings(path)
    questions = [q for c in conversations for q in _questions(c)]
    return _summary(
        [ranked.get(q.qid, []) for q in questions],
        [q.evidence for q in questions],
        [q.category == MULTI_HOP for q in questions],
    )


def _line(name: str, m: dict[str, float]) -> str:
    return (
        f"{name:<34} R@10 {m['R@10']:5.1f}  MRR {m['MRR']:5.1f}  All@10 {m['All@10']:5.1f}  "
        f"multi-hop R@10 {m['multi-hop R@10']:5.1f}"
    )


def tune(conversations: Sequence[Conversation]) -> dict[str, object]:
    report: dict[str, object] = {}
    print("1. pipeline (FTS5 k1=1.2, b=0.75)")
    ablation: dict[str, dict[str, float]] = {}
    built = {
        lang: build(conversations, FullTextConfig(language=lang)) for lang in (None, "english")
    }
    for lang, stop in itertools.product((None, "english"), ("classic", "question")):
        words = STOPWORDS if stop == "classic" else STOPWORDS | QUESTION_STOPWORDS
        name = f"stemming {lang or 'none'}, {stop} stop words"
        ablation[name] = evaluate(built[lang], FullTextConfig(language=lang, stopwords=words))
        print("  " + _line(name, ablation[name]))
    report["pipeline"] = ablation

    print("\n2. stop-word candidates, each added alone to the classic list (stemming english)")
    corpora = built["english"]
    base = evaluate(corpora, FullTextConfig(stopwords=STOPWORDS))
    questions = [q.question for c in corpora for q in c.questions]
    rows = {}
    for word in CANDIDATES:
        m = evaluate(corpora, FullTextConfig(stopwords=STOPWORDS | {word}))
        uses = sum(
            word in FullTextConfig(language=None, stopwords=frozenset()).query_terms(q)
            for q in questions
        )
        d_recall, d_mrr = round(m["R@10"] - base["R@10"], 1), round(m["MRR"] - base["MRR"], 1)
        keep = (uses > 0 or word in HEDGES) and d_recall >= 0 and d_mrr >= 0
        rows[word] = {"questions": uses, "dR@10": d_recall, "dMRR": d_mrr, "selected": keep}
        mark = "selected" if keep else ""
        print(f"  {word:<12} in {uses:3d} q.  dR@10 {d_recall:+5.1f}  dMRR {d_mrr:+5.1f}  {mark}")
    selected = sorted(w for w, r in rows.items() if r["selected"])
    report["candidates"] = rows
    report["selected"] = selected
    print(f"  selected: {' '.join(selected)}")
    together = evaluate(corpora, FullTextConfig(stopwords=STOPWORDS | set(selected)))
    print("  " + _line("all selected together", together))
    in_use = sorted(QUESTION_STOPWORDS)
    if in_use != selected:
        print(f"  NOTE: QUESTION_STOPWORDS is {' '.join(in_use)}; update it to the selection")

    print("\n3. k1 x b grid (stemming english, the question stop words in use)")
    config = FullTextConfig()
    grid = {
        f"{k1},{b}": evaluate(corpora, config, k1=k1, b=b)
        for k1, b in itertools.product(K1_GRID, B_GRID)
    }
    fts5 = grid[f"{FTS5_K1},{FTS5_B}"]
    best_key = max(grid, key=lambda k: (grid[k]["R@10"], grid[k]["MRR"]))
    print("  " + _line(f"FTS5 k1={FTS5_K1} b={FTS5_B}", fts5))
    k1, b = best_key.split(",")
    print("  " + _line(f"best k1={k1} b={b}", grid[best_key]))
    report["grid"] = grid
    report["grid_best"] = best_key
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the LoCoMo dev split")
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("--score", type=Path, nargs="*", help="score these rankings files only")
    args = parser.parse_args(argv)
    conversations = load_locomo(args.data)
    if args.score:
        for path in args.score:
            print(_line(path.name, score_rankings(conversations, path)))
        return 0
    report = tune(conversations)
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
