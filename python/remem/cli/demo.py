"""``remem demo``: a short, deterministic tour of the native kernels."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from remem import __version__, _native, kernels
from remem.lifecycle import DecayCalculator, DecayConfig

SNIPPETS = [
    ("User's sister is called Ana.", 0.9),
    ("User moved to Lisbon in May.", 0.95),
    ("User started a new job at a design studio.", 0.85),
    ("Small talk about the weather last Tuesday, which was rainy and grey all day long.", 0.1),
    ("User prefers tea to coffee.", 0.6),
    ("User's dog is a three-year-old beagle named Miso.", 0.7),
    ("A long recap of a film the user watched, with plot details and the ending.", 0.3),
    ("User is vegetarian.", 0.8),
]


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("demo", help="a short tour of the native kernels")
    parser.add_argument("--budget", type=int, default=30, help="token budget for selection")
    parser.add_argument("--rows", type=int, default=20_000, help="vectors in the top-k demo")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    threads = _native.configured_threads()
    print(f"remem {__version__} — native kernel demo ({threads} threads)\n")

    print("Decay of a stored score of 1.0 at the default 0.01/h (stored base + reference time):")
    start = datetime(2026, 10, 1, tzinfo=UTC)
    calculator = DecayCalculator(DecayConfig())
    for hours in (24, 72, 168):
        score = calculator.calculate_decay(1.0, start, now=start + timedelta(hours=hours))
        print(f"  after {hours:>3} h: {score:.3f}")

    texts = [text for text, _ in SNIPPETS]
    o200k = kernels.count_tokens(texts, "o200k_base")
    cl100k = kernels.count_tokens(texts, "cl100k_base")
    estimate = kernels.estimate_tokens(texts)
    print(
        f"\nTokens of {len(texts)} memory snippets: o200k_base {int(o200k.sum())}, "
        f"cl100k_base {int(cl100k.sum())}, estimate {int(estimate.sum())}"
    )

    values = np.array([value for _, value in SNIPPETS])
    print(f"\nPacking them into a {args.budget}-token budget (value = relevance):")
    for strategy in ("greedy", "optimal"):
        chosen = kernels.select_within_budget_detailed(
            o200k, values, args.budget, strategy=strategy
        )
        print(
            f"  {strategy:<7} value {chosen.total_value:.2f}, {chosen.total_cost:>2} tokens, "
            f"items {chosen.indices.tolist()} ({chosen.method})"
        )

    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((args.rows, 384)).astype(np.float32)
    target = args.rows // 2
    query = matrix[target] + 0.3 * rng.standard_normal(384).astype(np.float32)
    exact_idx, exact_scores = kernels.top_k(query, matrix, 5)
    index = kernels.QuantizedIndex(matrix)
    int8_idx, _ = index.search(query, 5)
    print(f"\nTop-5 cosine over {args.rows:,} x 384 vectors, query = noisy copy of row {target}:")
    print(f"  exact float32: {exact_idx.tolist()} (best {exact_scores[0]:.3f})")
    same = "same result" if int8_idx.tolist() == exact_idx.tolist() else "differs"
    print(f"  int8 + rescore: {int8_idx.tolist()} ({same})")
    return 0
