"""Which LoCoMo evidence a ranking misses, and what it ranked instead (deterministic).

    remem bench locomo --data DIR --rankings runs/rankings.jsonl
    PYTHONPATH=python python scripts/locomo_misses.py --data DIR --rankings runs/rankings.jsonl \
        [--category 1] [--k 10] [--limit 40]

For every question of categories 1–4 (or ``--category``) with an evidence turn outside the first
``--k`` distinct ranked turns, prints the question, each evidence turn's rank (``-`` when the
ranking does not hold it) and text, and the first three turns ranked instead; then a summary:
how many missed evidence turns were ranked deeper than ``k`` and how many not at all, and the
question words that start the missed questions (what a question-type rule would key on).
Nothing is written; the ranking comes from a ``--rankings`` file of ``remem bench locomo``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from remem.eval.locomo.loader import load_locomo
from remem.eval.locomo.rankings import read_rankings

CATEGORIES = ("1", "2", "3", "4")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--rankings", type=Path, required=True)
    parser.add_argument("--category", default="", help="only this category (1..4)")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--limit", type=int, default=40, help="questions printed at most")
    args = parser.parse_args(argv)
    rankings = read_rankings(args.rankings)
    wanted = (args.category,) if args.category else CATEGORIES
    printed = deep = absent = 0
    starts: Counter[str] = Counter()
    for conv in load_locomo(args.data):
        texts = {t.dia_id: t.content() for s in conv.sessions for t in s.turns}
        for q in conv.questions:
            if q.category not in wanted or not q.evidence or q.qid not in rankings:
                continue
            ranked = list(dict.fromkeys(rankings[q.qid]))
            missed = [e for e in q.evidence if e not in ranked[: args.k]]
            if not missed:
                continue
            starts[q.question.split()[0].lower()] += 1
            for e in missed:
                if e in ranked:
                    deep += 1
                else:
                    absent += 1
            if printed >= args.limit:
                continue
            printed += 1
            print(f"[{q.category}] {q.qid}: {q.question}  (answer: {q.answer})")
            for e in q.evidence:
                rank = ranked.index(e) + 1 if e in ranked else "-"
                mark = "MISS" if e in missed else "ok  "
                print(f"   {mark} {e:8s} rank {rank!s:>3s}  {texts.get(e, '?')[:150]}")
            for d in ranked[:3]:
                print(f"        got {d:8s} {texts.get(d, '?')[:120]}")
    print(f"\nmissed evidence turns: {deep} ranked deeper than {args.k}, {absent} not ranked")
    print("missed questions by first word:", dict(starts.most_common(12)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
