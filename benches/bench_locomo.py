"""LoCoMo evidence metrics for 2,000 questions: numpy (``evidence_metrics``) vs the pure-Python
loop (``evidence_metrics_reference``, the specification).

Rankings are 20 distinct dia_ids drawn from a 600-turn conversation, 1-4 evidence ids per
question (the sizes of the released locomo10.json). ``correct``: the result equals the
reference's within 1e-12 per metric.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from remem.eval.locomo import evidence_metrics, evidence_metrics_reference

N = 2_000
KS = (1, 5, 10, 20)
_rng = random.Random(7)
_IDS = [f"D{s}:{t}" for s in range(1, 31) for t in range(1, 21)]
RANKINGS = [_rng.sample(_IDS, 20) for _ in range(N)]
EVIDENCE = [
    # Half the questions have evidence inside their ranking, so every metric is exercised.
    _rng.sample(r[:10], _rng.randint(1, 2)) + _rng.sample(_IDS, _rng.randint(0, 2))
    for r in RANKINGS
]
EXPECTED = evidence_metrics_reference(RANKINGS, EVIDENCE, KS)

IMPLS: dict[str, Callable[..., dict[str, float]]] = {
    "numpy": evidence_metrics,
    "python": evidence_metrics_reference,
}


@pytest.mark.parametrize("impl", list(IMPLS))
def test_locomo_metrics(benchmark: Any, impl: str) -> None:
    benchmark.group = f"locomo metrics {N // 1000}k"
    out = benchmark(IMPLS[impl], RANKINGS, EVIDENCE, KS)
    correct = out.keys() == EXPECTED.keys() and all(
        abs(out[k] - EXPECTED[k]) <= 1e-12 for k in EXPECTED
    )
    benchmark.extra_info["questions"] = N
    benchmark.extra_info["correct"] = correct
    assert correct
