"""``remem bench``: retrieval benchmarks on data the user supplies.

``remem bench locomo --data DIR [--out DIR] [--limit N] [--k 20] [--rankings FILE]
[--embedder auto|hashing|local] [--index both|turns|memories] [--recency-rate R]
[--stemming english|none|LANG] [--stopwords question|classic]``: progress on
stderr, the final table on stdout, and a run directory (default ``runs/locomo-<UTC time>``)
with ``results.json``, ``report.md`` and PNG plots (see :mod:`remem.eval.locomo`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from remem.embeddings import EmbeddingService
from remem.errors import RememError
from remem.stores.shared.search_text import (
    DEFAULT_LANGUAGE,
    DEFAULT_STOPWORDS,
    STOPWORDS,
    FullTextConfig,
)

BAR_WIDTH = 28


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("bench", help="retrieval benchmarks on your data (LoCoMo)")
    benches = parser.add_subparsers(dest="bench", required=True)
    locomo = benches.add_parser("locomo", help="evidence retrieval on LoCoMo-format conversations")
    locomo.add_argument(
        "--data", required=True, type=Path, help="locomo10.json or a directory of JSON files"
    )
    locomo.add_argument("--out", type=Path, help="run directory (default runs/locomo-<time>)")
    locomo.add_argument("--limit", type=int, help="only the first N conversations")
    locomo.add_argument(
        "--k", type=int, default=20, help="largest k (reports 1, 5, 10, 20 up to it, and k)"
    )
    locomo.add_argument("--rankings", type=Path, help='write {"qid", "ranked"} JSONL here')
    locomo.add_argument(
        "--embedder",
        choices=("auto", "hashing", "local"),
        default="auto",
        help="auto (default: the Runtime's rule, MiniLM when installed, else hashing), "
        "hashing (lexical) or local (bundled all-MiniLM-L6-v2)",
    )
    locomo.add_argument(
        "--index",
        choices=("both", "turns", "memories"),
        default="both",
        help="what each utterance is stored as (turns: full text only; memories: + vectors)",
    )
    locomo.add_argument(
        "--recency-rate",
        type=float,
        default=None,
        help="recency prior's decay per hour (default remem's 0.005; the prior is bounded)",
    )
    locomo.add_argument(
        "--stemming",
        default=DEFAULT_LANGUAGE,
        help=f"Snowball language of full-text stemming, or 'none' (default {DEFAULT_LANGUAGE})",
    )
    locomo.add_argument(
        "--stopwords",
        choices=("question", "classic"),
        default="question",
        help="query stop words: question (classic + question words, default) or classic",
    )
    locomo.set_defaults(run=run_locomo_command)


class ProgressBar:
    """A one-line bar on a terminal, plain lines otherwise (no dependency)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self._last_tenth = 0
        self._started = time.perf_counter()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.tty:
            filled = BAR_WIDTH * done // total if total else BAR_WIDTH
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            elapsed = time.perf_counter() - self._started
            self.stream.write(f"\r{stage[:30]:<30} [{bar}] {done}/{total} {elapsed:5.1f}s")
            if stage == "done":
                self.stream.write("\n")
        elif stage != "questions":
            self.stream.write(f"{stage}: {done}/{total}\n")
        else:
            # Logs get a line per 10% of the questions, not one per question.
            tenth = 10 * done // total if total else 10
            if tenth > self._last_tenth:
                self._last_tenth = tenth
                self.stream.write(f"questions: {done}/{total}\n")
        self.stream.flush()


def _ks(largest: int) -> tuple[int, ...]:
    return tuple(sorted({k for k in (1, 5, 10, 20) if k <= largest} | {largest}))


def _embedder(name: str) -> EmbeddingService:
    from remem.runtime import provider_embedder

    return provider_embedder({"local": "minilm"}.get(name, name))


def run_locomo_command(args: argparse.Namespace) -> int:
    from remem.eval.locomo import LocomoConfig, format_table, run_locomo, write_report

    out = args.out or Path("runs") / f"locomo-{datetime.now(UTC):%Y%m%d-%H%M%S}"
    try:
        config = LocomoConfig(
            data=args.data,
            out=out,
            limit=args.limit,
            ks=_ks(args.k),
            index=args.index,
            rankings=args.rankings,
            **({} if args.recency_rate is None else {"recency_rate": args.recency_rate}),
            full_text=FullTextConfig(
                language=args.stemming,
                stopwords=DEFAULT_STOPWORDS if args.stopwords == "question" else STOPWORDS,
            ),
        )
        embedder = _embedder(args.embedder)
        run = asyncio.run(run_locomo(config, embedder=embedder, progress=ProgressBar(sys.stderr)))
        written = write_report(run)
    except RememError as exc:
        print(f"remem bench locomo: {exc}", file=sys.stderr)
        return 1
    print(format_table(run))
    issues = run.issues
    print(
        f"\n{run.conversations} conversations, {run.turns} turns + {run.memories} memories,"
        f" embedder {run.embedder},"
        f" index {config.index}, recency rate {config.recency_rate}/h;"
        f" evidence issues: {issues.split_strings} split, {issues.unparseable} unparseable,"
        f" {issues.unknown_ids} naming no turn, {issues.questions_without_evidence} questions"
        " without evidence"
    )
    print(f"report: {out / 'report.md'}")
    if args.rankings is not None:
        print(f"rankings: {args.rankings}")
    if "plots_skipped" in written:
        print(f"plots skipped: {written['plots_skipped']}", file=sys.stderr)
    return 0
