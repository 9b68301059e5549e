"""Ask each question of an ingested conversation and turn remem's results into dia_id rankings.

One ``controller.recall(question, k=depth)`` per question (not ``recall_many``: the report
gives the latency of one recall, which is what an agent waits for). ``depth`` is ``max(ks)``,
doubled when both turns and memories are indexed, because the same utterance may come back
twice (as its turn and as its memory).

Mapping a result to a dia_id, in order:

1. a turn (``metadata["source"] == "turn"``): its id through the ingest map (turn id → dia_id);
2. a memory: ``metadata["dia_id"]``; failing that, the first of ``provenance.parent_ids`` that
   is a known turn id (the shape an extractor's memories would have);
3. anything else — a graph item (``graph:<entity>``; none exist without an extractor) or a
   memory derived from nothing known — is skipped and counted as ``unmapped``.

Each dia_id is kept at its first (best) position, then the ranking is cut to ``max(ks)``.
Tokens: the ``o200k_base`` count of the stored texts of the first k distinct dia_ids of the
ranking, for each k — what putting that ranking into a prompt would cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from remem.eval.locomo.ingest import IngestedConversation
from remem.kernels import count_tokens
from remem.models import ScoredMemory

__all__ = ["QuestionResult", "map_results", "retrieve_conversation"]


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """One question's ranking of dia_ids with its cost."""

    qid: str
    category: str
    question: str
    evidence: tuple[str, ...]
    ranked: tuple[str, ...]
    tokens: dict[int, int]
    latency_ms: float
    unmapped: int


def map_results(
    hits: Sequence[ScoredMemory], turn_dia_ids: Mapping[str, str] | None = None
) -> tuple[list[str], int]:
    """The distinct dia_ids of ``hits`` in order, and how many hits named none (see module)."""
    known: Mapping[str, str] = turn_dia_ids or {}
    ranked: dict[str, None] = {}
    unmapped = 0
    for hit in hits:
        record = hit.record
        dia_id: object = None
        if record.metadata.get("source") == "turn":
            dia_id = known.get(record.id)
        else:
            dia_id = record.metadata.get("dia_id")
            if not isinstance(dia_id, str):
                dia_id = next((known[p] for p in record.provenance.parent_ids if p in known), None)
        if isinstance(dia_id, str):
            ranked.setdefault(dia_id, None)
        else:
            unmapped += 1
    return list(ranked), unmapped


async def retrieve_conversation(
    ingested: IngestedConversation,
    *,
    ks: Sequence[int],
    depth: int,
    on_question: Callable[[QuestionResult], None] | None = None,
) -> list[QuestionResult]:
    """Recall every question of the conversation (questions without evidence too: their
    rankings are written; scoring leaves them out)."""
    controller = ingested.runtime.controller
    top = max(ks)
    out: list[QuestionResult] = []
    for q in ingested.conversation.questions:
        started = time.perf_counter()
        hits = await controller.recall(q.question, k=depth)
        latency = (time.perf_counter() - started) * 1000.0
        ranked, unmapped = map_results(hits, ingested.dia_ids)
        ranked = ranked[:top]
        result = QuestionResult(
            qid=q.qid,
            category=q.category,
            question=q.question,
            evidence=q.evidence,
            ranked=tuple(ranked),
            tokens=_tokens(ranked, ingested.texts, ks),
            latency_ms=latency,
            unmapped=unmapped,
        )
        out.append(result)
        if on_question is not None:
            on_question(result)
    return out


def _tokens(ranked: Sequence[str], texts: Mapping[str, str], ks: Sequence[int]) -> dict[int, int]:
    stored = [texts.get(d, "") for d in ranked]
    counts = count_tokens(stored) if stored else np.zeros(0, dtype=np.int64)
    cumulative = np.concatenate([[0], np.cumsum(counts)])
    return {k: int(cumulative[min(k, len(stored))]) for k in ks}
