"""Re-embed throughput (memories/s): ``remem reembed`` end to end vs the embedder alone.

``reembed`` is :func:`remem.maintenance.reembed` on a closed embedded directory built with the
hashing embedder (384): snapshot, every memory embedded into a new generation, validation
(counts, dimension, a sample of self-recalls on both generations) and the switch. ``embed`` is
the obvious baseline: the same texts through ``embed_documents`` in the same batches, nothing
stored. Targets: ``hashing`` (to 256 dimensions) and the bundled ``minilm``. ``extra_info`` has
memories/s and a correctness flag (the new generation validated and holds every memory).

Run: pytest benches/bench_reembed.py --benchmark-group-by=group
     REMEM_BENCH_REEMBED_N=10000 pytest benches/bench_reembed.py
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from tests.recovery.memory_dirs import build_memory

from remem.maintenance import embedder_for, reembed
from remem.runtime_config import RuntimeConfig

N = int(os.environ.get("REMEM_BENCH_REEMBED_N", "2000"))
"""Memories in the directory (plus 5 turns)."""
TARGETS = {"hashing": 256, "minilm": None}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("reembed-bench")
    memory = root / "memory"
    asyncio.run(build_memory(memory, memories=N))
    return memory, root


@pytest.mark.parametrize("operation", ["reembed", "embed"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_reembed(benchmark: Any, source: tuple[Path, Path], target: str, operation: str) -> None:
    memory, root = source
    counter = itertools.count()
    dimension = TARGETS[target]
    texts = [f"fact number {i} about cats and {i % 7} dogs" for i in range(N)]
    outcome: dict[str, Any] = {}

    def run() -> None:
        if operation == "embed":
            embedder = embedder_for(target, dimension)
            start = time.perf_counter()

            async def embed_all() -> None:
                for at in range(0, N, 256):
                    await embedder.embed_documents(texts[at : at + 256])

            asyncio.run(embed_all())
            outcome["seconds"] = time.perf_counter() - start
            outcome["correct"] = True
            return
        copy = root / f"{target}-{next(counter)}" / "memory"
        shutil.copytree(memory, copy)
        config = RuntimeConfig(path=copy, embedding_provider="hashing")
        result = asyncio.run(reembed(config, target, dimension=dimension))
        outcome["seconds"] = result.seconds
        outcome["correct"] = sum(result.counts.values()) == N and result.self_recall_new >= 0.9

    benchmark.group = f"reembed-{N}"
    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["memories"] = N
    benchmark.extra_info["memories_per_s"] = round(N / outcome["seconds"], 1)
    benchmark.extra_info["correct"] = bool(outcome["correct"])
    print(f"{operation} -> {target}: {N / outcome['seconds']:.0f} memories/s")
