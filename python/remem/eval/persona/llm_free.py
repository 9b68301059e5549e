"""LLM-free scoring: is the right value in the context the companion would answer from?

Per question (:func:`score_context`):

- ``recall`` — some evidence value (the current ground truth, or an alias) appears in the
  assembled prompt — on a line that also names a ``near`` value when the question has them;
  ``None`` when the question has no evidence (unanswerable controls);
- ``stale_only`` — a superseded or misstated value appears and no evidence does: the companion
  would be led to the old answer; ``None`` when the question has no stale values;
- ``tokens`` and ``latency_ms`` of building the prompt.

:func:`percentile` gives the p50/p95 the report prints.

    score = score_context(question, prompt.text, tokens=prompt.tokens, latency_ms=3.2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from remem.errors import InvalidArgumentError
from remem.eval.persona.matching import mentions_any
from remem.eval.persona.quiz import Question

__all__ = ["ContextScore", "percentile", "score_context"]


@dataclass(frozen=True, slots=True)
class ContextScore:
    recall: bool | None
    stale_only: bool | None
    tokens: int
    latency_ms: float


def score_context(
    question: Question, context: str, *, tokens: int, latency_ms: float
) -> ContextScore:
    """Score one assembled context against ``question``'s ground truth (see module docstring)."""
    found: bool | None = None
    if question.evidence and question.near:
        found = any(
            mentions_any(line, question.evidence) and mentions_any(line, question.near)
            for line in context.splitlines()
        )
    elif question.evidence:
        found = mentions_any(context, question.evidence)
    stale_only: bool | None = None
    if question.stale and question.evidence:
        stale_only = not found and mentions_any(context, question.stale)
    return ContextScore(found, stale_only, tokens, latency_ms)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values`` (linear interpolation)."""
    if not values:
        raise InvalidArgumentError("percentile of no values; measure at least one call")
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))
