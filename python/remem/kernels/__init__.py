"""Typed façade over remem._native: the one place an input may be copied or converted.

Every function takes array-likes, converts them to the exact dtype and layout the native kernel
needs (one copy at most, here and nowhere else), and returns fresh numpy arrays. Each has a
pure-Python twin of the same name in :mod:`remem.reference` whose docstring is the specification.
"""

from __future__ import annotations

import os

from remem import _native
from remem.kernels.bm25 import bm25_top_k, bm25_top_k_many, fts5_idf
from remem.kernels.scoring import (
    FusedScores,
    decay_scores,
    exp_fast,
    fused_scores,
    reinforce_scores,
)
from remem.kernels.selection import Selection, select_within_budget, select_within_budget_detailed
from remem.kernels.tokens import (
    count_tokens,
    count_tokens_one,
    estimate_tokens,
    estimate_tokens_one,
)
from remem.kernels.topk import QuantizedIndex, QuantizedMatrix, quantize, top_k, top_k_quantized

# rayon's worker threads do not survive fork(); a forked child runs kernels single-threaded.
os.register_at_fork(after_in_child=_native.after_fork_in_child)

__all__ = [
    "FusedScores",
    "QuantizedIndex",
    "QuantizedMatrix",
    "Selection",
    "bm25_top_k",
    "bm25_top_k_many",
    "count_tokens",
    "count_tokens_one",
    "decay_scores",
    "estimate_tokens",
    "estimate_tokens_one",
    "exp_fast",
    "fts5_idf",
    "fused_scores",
    "quantize",
    "reinforce_scores",
    "select_within_budget",
    "select_within_budget_detailed",
    "top_k",
    "top_k_quantized",
]
