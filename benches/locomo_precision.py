"""LoCoMo dev end to end with the bundled MiniLM in float32 and in bf16, interleaved.

Run: ``PYTHONPATH=python:. python -m benches.locomo_precision [--data DIR] [--runs N]`` — for
each run, ``remem bench locomo``'s pipeline (:func:`remem.eval.locomo.run_locomo`, default
config) once with ``precision="float32"`` and once with ``"bfloat16"``, in that order, each in
its own run directory under a temporary root; prints per run and precision the query p50 (one
``recall`` per question, the query encode included), the ingestion rate (turns per second of
ingest time; each utterance is stored as a turn and a memory) and the categories 1–4 headline
(R@10, MRR, All@10, multi-hop R@10), so speed and quality are read from the same runs.

Measured (session 15, quiet 2-core AMD EPYC with AVX512_BF16, load ~1, two runs), float32 →
bf16: query p50 10.19 → 9.76 and 11.72 → 9.36 ms; ingestion 162 → 286 and 160 → 280 turns/s;
the headline 81.3 / 61.6 / 75.5 / 53.2 for both precisions in both runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path

from remem.embeddings import SentenceTransformerEmbedder
from remem.eval.locomo import LocomoConfig, run_locomo
from remem.eval.locomo.metrics import evidence_metrics
from remem.eval.locomo.retrieve import QuestionResult

PRECISIONS = ("float32", "bfloat16")
CATEGORIES = ("1", "2", "3", "4")  # the targets; 5 (adversarial) is reported apart


def headline(results: list[QuestionResult]) -> dict[str, float]:
    """R@10, MRR, All@10 and multi-hop R@10 in % over categories 1-4 with evidence (what
    ``scripts/tune_fulltext.py --score`` reports for a rankings file)."""
    scored = [r for r in results if r.category in CATEGORIES and r.evidence]
    hop = [r for r in scored if r.category == "1"]
    m = evidence_metrics([r.ranked for r in scored], [r.evidence for r in scored], ks=(10,))
    h = evidence_metrics([r.ranked for r in hop], [r.evidence for r in hop], ks=(10,))
    return {
        "recall@10": 100 * m["recall@10"],
        "mrr": 100 * m["mrr"],
        "all@10": 100 * m["all@10"],
        "multi_hop_recall@10": 100 * h["recall@10"],
    }


async def main(data: Path, runs: int) -> None:
    with tempfile.TemporaryDirectory() as root:
        for i in range(runs):
            for precision in PRECISIONS:
                config = LocomoConfig(data=data, out=Path(root) / f"{precision}-{i}")
                embedder = SentenceTransformerEmbedder.bundled_minilm(precision=precision)
                run = await run_locomo(config, embedder=embedder)
                p50 = statistics.median(q.latency_ms for q in run.results)
                h = headline(run.results)
                print(
                    f"run {i} {precision:8s}  query p50 {p50:6.2f} ms  ingest "
                    f"{run.turns / run.ingest_seconds:5.0f} turns/s  R@10 {h['recall@10']:.1f}"
                    f"  MRR {h['mrr']:.1f}  All@10 {h['all@10']:.1f}"
                    f"  multi-hop R@10 {h['multi_hop_recall@10']:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo-dev"))
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main(args.data, args.runs))
