"""The learned re-ranker (or the answer-type prior) off and on over the synthetic persona set
(held out: never fitted on).

    python benches/rerank_synthetic.py [--out DIR] [--answer-type BOOST]

:mod:`tests.controller.eval_set` (200 persona memories, 100 turns, paraphrased questions; the
set of ``tests/controller/test_fusion_eval.py``) is stored once per embedder (hashing, then the
bundled MiniLM) in a Runtime with remem's defaults but the answer-type prior (on by default,
off in every row unless ``--answer-type``); every question is recalled (k = 10) with
``[recall.stages.rerank]`` off, then on (its shipped bounds), and MRR / R@5 printed. Run of
2026-12-02: hashing off 0.510 / 0.86, on 0.335 / 0.58; MiniLM off 0.780 / 1.00, on 0.395 /
0.81 — why the stage stays off by default (README, "Learned re-ranking").

``--answer-type BOOST``: the rows are the prior off, ``[recall.stages.answer_type]`` on at
``BOOST``, the re-ranker on, and both on (the held-out check of issue #14's answer-type prior).
Run of 2026-12-03, ``--answer-type 2``, MRR / R@5: hashing prior off 0.510 / 0.86, answer_type
0.777 / 0.99, rerank 0.335 / 0.58, both 0.379 / 0.68; MiniLM 0.780 / 1.00, 0.929 / 1.00, 0.396
/ 0.81, 0.676 / 0.94.

Deterministic: seeded set, fixed clock, deterministic embedders.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from tests.controller import eval_set

import remem
from remem.controller import ControllerConfig
from remem.controller.stages import AnswerTypePriorConfig, RecallStagesConfig
from remem.embeddings import EmbeddingService, HashingEmbedder, SentenceTransformerEmbedder
from remem.models import ManualClock
from remem.runtime_config import RuntimeConfig

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)


async def measure(
    root: Path, embedder: EmbeddingService, on: bool, answer_type: float | None = None
) -> tuple[float, float]:
    """MRR and R@5 of the set under a fresh Runtime at ``root`` with the re-ranker ``on`` and,
    when ``answer_type`` is a boost, the answer-type prior on at it (off when None)."""
    data = eval_set.build(seed=7)
    base = RecallStagesConfig()
    stages = dataclasses.replace(base, rerank=dataclasses.replace(base.rerank, enabled=on))
    # The prior is on by default: ``answer_type=None`` measures without it.
    typed = AnswerTypePriorConfig(enabled=False)
    if answer_type is not None:
        typed = AnswerTypePriorConfig(enabled=True, boost=answer_type)
    stages = dataclasses.replace(stages, answer_type=typed)
    config = RuntimeConfig(path=root, controller=ControllerConfig(stages=stages))
    async with remem.Runtime.open(
        root, embedder=embedder, clock=ManualClock(T0), config=config
    ) as rt:
        c = rt.controller
        for mid, text in data.memories:
            await c.remember(text, memory_id=mid)
        for user, assistant in data.turns:
            await c.record_turn("chat", user, assistant)
        results = await c.recall_many([q.question for q in data.questions], k=10)
    ranked = [[h.record.id for h in r] for r in results]
    return eval_set.mrr_and_recall(ranked, data.questions)


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="work directory (default: temp)")
    parser.add_argument(
        "--answer-type",
        type=float,
        default=None,
        metavar="BOOST",
        help="also the answer-type prior on at BOOST, alone and with the re-ranker",
    )
    args = parser.parse_args(argv)
    rows: list[tuple[str, bool, float | None]] = [
        ("prior off", False, None),
        ("rerank", True, None),
    ]
    if args.answer_type is not None:
        rows[1:1] = [(f"answer_type={args.answer_type}", False, args.answer_type)]
        rows.append(("answer_type+rerank", True, args.answer_type))
    with tempfile.TemporaryDirectory() as tmp:
        work = args.out if args.out is not None else Path(tmp)
        for name, make in (
            ("hashing", HashingEmbedder),
            ("MiniLM", SentenceTransformerEmbedder.bundled_minilm),
        ):
            for label, on, boost in rows:
                root = work / f"{name}-{label}"
                mrr, r5 = await measure(root, make(), on, boost)
                print(f"{name:8s} {label:22s} MRR {mrr:.3f}  R@5 {r5:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
