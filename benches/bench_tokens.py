"""Token estimation vs exact counting over 10,000 generated chat turns.

Ids: ``native`` (estimate_tokens), ``reference`` (the pure-Python estimator, one round),
``exact`` (count_tokens o200k_base, the baseline for ratios), ``exact-crate`` (the same count
through the bpe-openai crate's regex pre-tokenizer: the pre-fast-path implementation) and
``chars4`` (``len(text) // 4`` in plain Python, for context). Run with ``REMEM_NUM_THREADS=1``
in the environment for one-core figures (the pool size is read once, when the pool is built).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from remem import _corpus, _native
from remem.kernels.tokens import count_tokens, estimate_tokens
from remem.reference import tokens as ref

N = 10_000
TEXTS = _corpus.generate("chat", N, seed=11)
MB = sum(len(t.encode("utf-8")) for t in TEXTS) / 1e6
EXACT = count_tokens(TEXTS)
TOKENS = int(EXACT.sum())
ESTIMATE = estimate_tokens(TEXTS)


def _mae(est: np.ndarray) -> float:
    return float(np.mean(np.abs(est - EXACT) / np.maximum(EXACT, 1)))


def _chars4(texts: list[str]) -> list[int]:
    return [len(t) // 4 for t in texts]


IMPLS: dict[str, Callable[[list[str]], object]] = {
    "native": estimate_tokens,
    "reference": ref.estimate_tokens,
    "exact": count_tokens,
    "exact-crate": _native._count_tokens_crate,
    "chars4": _chars4,
}


@pytest.mark.parametrize("impl", list(IMPLS))
def test_tokens_chat(benchmark: Any, impl: str) -> None:
    benchmark.group = f"tokens chat {N // 1000}k turns"
    fn = IMPLS[impl]
    if impl == "reference":
        out = benchmark.pedantic(fn, args=(TEXTS,), rounds=1, iterations=1)
    else:
        out = benchmark(fn, TEXTS)
    result = np.asarray(out, dtype=np.int64)
    benchmark.extra_info["mb"] = MB
    benchmark.extra_info["tokens"] = TOKENS
    benchmark.extra_info["mae_vs_exact"] = _mae(result)
    if impl in ("exact", "exact-crate"):
        correct = result.tolist() == EXACT.tolist()
    elif impl in ("native", "reference"):
        correct = result.tolist() == ESTIMATE.tolist() and _mae(result) <= 0.05
    else:
        correct = True  # a context baseline, not held to any accuracy
    benchmark.extra_info["correct"] = bool(correct)
