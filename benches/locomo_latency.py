"""Where a LoCoMo recall's time goes: the query p50 over repeated rounds, and per pipeline step.

Run: ``PYTHONPATH=python:. OPENBLAS_NUM_THREADS=1 python -m benches.locomo_latency [--data DIR]
[--rounds N] [--steps]`` — ingests every conversation of ``DIR`` (default the dev split) the
way ``remem bench locomo`` does (:func:`remem.eval.locomo.ingest.ingest_conversation`, the
default stack: MiniLM where installed), and only then asks all their questions ``N`` times
(``recall(question, k=40)``, the bench's depth), printing each round's p50 and the median of
the rounds. ``remem bench locomo`` asks each conversation's questions once, right after
ingesting it, so its p50 also carries the first touch of every cache; the later rounds here are
the steady state, round 1 the nearest to the bench.

With ``--steps`` each round also times the pipeline's steps by wrapping them on the classes
(p50 per question, milliseconds): the query encode (``embed_queries``), the three retrievers run
together, the neighbour expansion, the prior-aware cut, the record read and the ranking —
:meth:`remem.controller.recall.RecallPipeline.run`'s stages, in its order. The wrappers cost a
few microseconds each, so the steps' figures sit slightly above an unwrapped run's.

Measured (session 18, quiet 2-core AMD EPYC, ``--rounds 3``), before the session's changes →
after: the rounds' p50 5.10 (already with the bf16 panel threshold) → 4.3–4.4 ms. The steps
(p50; timed at the start by the scratch harness this file replaces, the three retrievers as
one): encode 2.34, retrievers 1.15, expansion 0.91, cut 0.65, records 0.12, ranking 1.21 ms;
after: 1.63, 0.81, 0.45, 0.49, 0.09, 1.03 ms.

Session 20: the encode (``embed_queries``, timed where ``start_query_batch`` starts it) runs
while full text, the graph, the expansion and the cut do, so the steps no longer add up: the
pipeline's row (``run``) now includes waiting for the encode. Five alternated runs against the
code before: mean 5.13 → 4.82 ms (README, session 20).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import remem.controller.recall as recall
import remem.controller.recall_options as recall_options
from remem.controller.retrieval import Retrieval
from remem.eval.locomo.ingest import ingest_conversation
from remem.eval.locomo.loader import load_locomo

DEPTH = 40
"""``remem bench locomo``'s recall depth (k 20, turns and memories both indexed)."""
STEPS: dict[str, list[float]] = defaultdict(list)


def _timed_async(owner: Any, name: str, label: str) -> None:
    inner: Callable[..., Awaitable[Any]] = getattr(owner, name)

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await inner(*args, **kwargs)
        finally:
            STEPS[label].append(time.perf_counter() - started)

    setattr(owner, name, wrapper)


def _timed_sync(owner: Any, name: str, label: str) -> None:
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            STEPS[label].append(time.perf_counter() - started)

    setattr(owner, name, wrapper)


def instrument() -> None:
    """Wrap the pipeline's steps (module docstring); each call appends its seconds."""
    _timed_async(recall_options, "embed_queries", "encode")
    _timed_async(Retrieval, "vectors", "vectors (with the others)")
    _timed_async(Retrieval, "texts", "full text (with the others)")
    _timed_async(Retrieval, "graph", "graph (with the others)")
    _timed_async(recall, "expand_neighbours", "neighbour expansion")
    _timed_sync(recall, "cut_texts", "prior-aware cut")
    _timed_async(Retrieval, "eligible", "record read")
    _timed_sync(recall.RecallPipeline, "_rank_batch", "ranking")
    _timed_async(recall.RecallPipeline, "run", "pipeline (the encode overlapped)")


async def measure(data: Path, rounds: int, root: Path) -> list[float]:
    """Each round's p50 in milliseconds (every question of every conversation once)."""
    conversations = load_locomo(data)
    ingested = []
    try:
        for conv in conversations:
            ingested.append(await ingest_conversation(conv, root))
        out: list[float] = []
        for r in range(rounds):
            STEPS.clear()
            times = []
            for ing in ingested:
                controller = ing.runtime.controller
                for q in ing.conversation.questions:
                    started = time.perf_counter()
                    await controller.recall(q.question, k=DEPTH)
                    times.append(time.perf_counter() - started)
            out.append(statistics.median(times) * 1e3)
            steps = "  ".join(
                f"{label} {statistics.median(ts) * 1e3:.2f}" for label, ts in STEPS.items()
            )
            print(f"round {r + 1}: p50 {out[-1]:.2f} ms" + (f"  | steps: {steps}" if steps else ""))
        return out
    finally:
        for ing in ingested:
            await ing.runtime.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", action="store_true", help="time each pipeline step too")
    args = parser.parse_args()
    if args.steps:
        instrument()
    root = Path(tempfile.mkdtemp(prefix="remem-locomo-latency-"))
    try:
        rounds = asyncio.run(measure(args.data, args.rounds, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"median of {len(rounds)} rounds: {statistics.median(rounds):.2f} ms p50")


if __name__ == "__main__":
    main()
