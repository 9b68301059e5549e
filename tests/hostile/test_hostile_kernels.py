"""The kernels façade and the companion's section lookup under hostile arguments."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given

from remem import kernels
from remem.companion.prompt import CompanionPrompt
from remem.errors import RememError, shown
from tests.hostile.strategies import HOSTILE_SETTINGS, hostile

ROWS = np.eye(4, dtype=np.float32)
Q = ROWS[0]
INDEX = [0, 2, 3]  # CSR offsets of two documents
DOCS = [0, 1, 1]
TFS = [1, 1, 2]
LENGTHS = [1, 3]


def _bm25(**bad: Any) -> Any:
    args: dict[str, Any] = {
        "offsets": INDEX,
        "docs": DOCS,
        "tfs": TFS,
        "doc_lengths": LENGTHS,
        "term_ids": [0],
        "idf": [1.0],
        "avgdl": 2.0,
        "k": 2,
    }
    return kernels.bm25_top_k(**{**args, **bad})


def _fused(slot: int, x: Any) -> Any:
    arrays: list[Any] = [[1.0], [0.0], [0.0], [1], [1.0], [1], [1.0]]
    arrays[slot] = x
    return kernels.fused_scores(*arrays, now=0.0)


CALLS: list[tuple[str, Callable[[Any], Any]]] = [
    ("top_k queries", lambda x: kernels.top_k(x, ROWS, 2)),
    ("top_k matrix", lambda x: kernels.top_k(Q, x, 2)),
    ("top_k k", lambda x: kernels.top_k(Q, ROWS, x)),
    ("top_k metric", lambda x: kernels.top_k(Q, ROWS, 2, metric=x)),
    ("top_k mask", lambda x: kernels.top_k(Q, ROWS, 2, mask=x)),
    ("quantize", lambda x: kernels.quantize(x)),
    ("QuantizedIndex", lambda x: kernels.QuantizedIndex(x)),
    ("search k", lambda x: kernels.QuantizedIndex(ROWS).search(Q, x)),
    ("search candidates", lambda x: kernels.QuantizedIndex(ROWS).search(Q, 1, candidates=x)),
    ("select costs", lambda x: kernels.select_within_budget(x, [1.0, 2.0], 3)),
    ("select values", lambda x: kernels.select_within_budget([1, 2], x, 3)),
    ("select budget", lambda x: kernels.select_within_budget([1, 2], [1.0, 2.0], x)),
    ("select strategy", lambda x: kernels.select_within_budget([1, 2], [1.0, 2.0], 3, strategy=x)),
    (
        "select must_keep",
        lambda x: kernels.select_within_budget([1, 2], [1.0, 2.0], 3, must_keep=x),
    ),
    ("select cell_limit", lambda x: kernels.select_within_budget([1], [1.0], 3, cell_limit=x)),
    ("bm25 offsets", lambda x: _bm25(offsets=x)),
    ("bm25 docs", lambda x: _bm25(docs=x)),
    ("bm25 tfs", lambda x: _bm25(tfs=x)),
    ("bm25 term_ids", lambda x: _bm25(term_ids=x)),
    ("bm25 idf", lambda x: _bm25(idf=x)),
    ("bm25 avgdl", lambda x: _bm25(avgdl=x)),
    ("bm25 k", lambda x: _bm25(k=x)),
    ("bm25 k1", lambda x: _bm25(k1=x)),
    ("bm25 mask", lambda x: _bm25(mask=x)),
    ("fts5_idf n_docs", lambda x: kernels.fts5_idf(x, 1)),
    ("fts5_idf df", lambda x: kernels.fts5_idf(10, x)),
    ("estimate_tokens", lambda x: kernels.estimate_tokens(x)),
    ("estimate_tokens_one", lambda x: kernels.estimate_tokens_one(x)),
    ("count_tokens", lambda x: kernels.count_tokens(x)),
    ("count_tokens encoding", lambda x: kernels.count_tokens(["hi"], x)),
    ("count_tokens_one", lambda x: kernels.count_tokens_one(x)),
    ("exp_fast", lambda x: kernels.exp_fast(x)),
    ("decay base", lambda x: kernels.decay_scores(x, [0.0], now=1.0)),
    ("decay now", lambda x: kernels.decay_scores([1.0], [0.0], now=x)),
    ("decay rate", lambda x: kernels.decay_scores([1.0], [0.0], now=1.0, decay_rate=x)),
    ("reinforce boost", lambda x: kernels.reinforce_scores([1.0], [0.0], now=1.0, access_boost=x)),
    ("fused base", lambda x: _fused(0, x)),
    ("fused counts", lambda x: _fused(3, x)),
    (
        "fused now",
        lambda x: kernels.fused_scores([1.0], [0.0], [0.0], [1], [1.0], [1], [1.0], now=x),
    ),
    ("section_text", lambda x: CompanionPrompt.__new__(CompanionPrompt).section_text(x)),
]


@pytest.mark.parametrize("call", CALLS, ids=[name for name, _ in CALLS])
@HOSTILE_SETTINGS
@given(value=hostile)
def test_only_remem_errors_escape_the_kernels(
    call: tuple[str, Callable[[Any], Any]], value: Any
) -> None:
    name, fn = call
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow notes
            fn(value)
    except RememError:
        pass
    except Exception as exc:  # the assertion names the call and the input
        raise AssertionError(f"{name}({shown(value)}) raised {type(exc).__name__}: {exc}") from exc
