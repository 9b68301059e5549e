"""Dense pseudo-relevance feedback: the query vector moves towards its best hits' (Rocchio).

The semantic retriever ranks by similarity to the *question*; the answer is often closer to the
turns around the best hits than to the question's wording. Rocchio's feedback, applied to the
embedding (as in vector PRF for dense retrievers):

    q' = normalise(q + beta · Σ_d w_d · v_d / Σ_d w_d)

over the ``docs`` best vector hits ``d`` with their stored vectors ``v_d`` and weights
``w_d`` = their similarity; then the vector search runs again with ``q'`` and its hits replace
the first ones (the similarity floors apply to them alike) — or, with ``keep_first``, join
them: each hit keeps the better of its two similarities (to ``q`` and to ``q'``, both unit
vectors, so comparable), ties by id, cut to the longer list's length, so what the question
itself found stays. A query whose hits are all missing
a stored vector, or that has no positive hit, keeps its first hits. The stored vectors are read
in ONE read per memory stage for the whole batch, and the second search is ONE batch.

>>> import numpy as np
>>> q = np.array([[1.0, 0.0]], dtype=np.float32)
>>> moved = rocchio(q, [[(np.array([0.0, 1.0], dtype=np.float32), 1.0)]], beta=1.0)
>>> [round(x, 3) for x in moved[0].tolist()]
[0.707, 0.707]
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from remem.errors import ConfigError
from remem.models import MemoryStage, VectorItem
from remem.staging import StagedScore

__all__ = ["DenseFeedbackConfig", "dense_feedback", "merge_hits", "rocchio"]


@dataclass(frozen=True)
class DenseFeedbackConfig:
    """``enabled``; ``docs``: how many of the best vector hits move the query; ``beta``: how
    far (the hits' weighted mean vector's weight against the query's 1); ``keep_first``:
    merge the second search's hits into the first's instead of replacing them."""

    enabled: bool = False
    docs: int = 3
    beta: float = 0.5
    keep_first: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"dense_feedback.enabled must be true or false, got {self.enabled!r}")
        d = self.docs
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 100:
            raise ConfigError(f"dense_feedback.docs must be an integer in 1..100, got {d!r}")
        if not isinstance(self.keep_first, bool):
            raise ConfigError(
                f"dense_feedback.keep_first must be true or false, got {self.keep_first!r}"
            )
        b = self.beta
        if isinstance(b, bool) or not (isinstance(b, int | float) and 0.0 < b <= 10.0):
            raise ConfigError(f"dense_feedback.beta is {b!r}; use a number in (0, 10]")


def rocchio(
    queries: NDArray[np.float32],
    docs: Sequence[Sequence[tuple[NDArray[np.float32], float]]],
    beta: float,
) -> NDArray[np.float32]:
    """Every query moved towards its ``(vector, weight)`` documents and re-normalised (a query
    without documents, or whose move cancels out, is returned as it is)."""
    out = np.array(queries, dtype=np.float32, copy=True)
    for i, ds in enumerate(docs):
        total = sum(w for _, w in ds)
        if not ds or total <= 0:
            continue
        centroid = np.sum([v * (w / total) for v, w in ds], axis=0)
        moved = out[i] + np.float32(beta) * centroid
        norm = float(np.linalg.norm(moved))
        if norm > 0:
            out[i] = moved / norm
    return out


Fetch = Callable[[list[str], MemoryStage], Awaitable[Sequence[VectorItem]]]
Search = Callable[[NDArray[np.float32]], Awaitable[list[list[StagedScore]]]]


async def dense_feedback(
    vectors: NDArray[np.float32],
    firsts: list[list[StagedScore]],
    config: DenseFeedbackConfig,
    fetch: Fetch,
    search: Search,
) -> list[list[StagedScore]]:
    """The vector hits of the batch after one round of feedback (see the module docstring);
    ``firsts`` unchanged when the stage is off. ``fetch(ids, stage)``: the stored vectors
    (unknown ids skipped); ``search(batch)``: the vector search recall runs."""
    if not config.enabled or len(firsts) == 0:
        return firsts
    tops = [[h for h in hits[: config.docs] if h.score > 0] for hits in firsts]
    by_stage: dict[MemoryStage, set[str]] = {}
    for top in tops:
        for h in top:
            by_stage.setdefault(h.stage, set()).add(h.id)
    stored: dict[tuple[MemoryStage, str], NDArray[np.float32]] = {}
    for stage in sorted(by_stage, key=lambda s: s.value):
        for item in await fetch(sorted(by_stage[stage]), stage):
            stored[(stage, item.id)] = np.asarray(item.vector, dtype=np.float32)
    docs = [
        [(stored[(h.stage, h.id)], h.score) for h in top if (h.stage, h.id) in stored]
        for top in tops
    ]
    moved = [i for i, ds in enumerate(docs) if ds]
    if not moved:
        return firsts
    batch = rocchio(vectors[moved], [docs[i] for i in moved], config.beta)
    seconds = await search(batch)
    out = list(firsts)
    for i, hits in zip(moved, seconds, strict=True):
        out[i] = merge_hits(firsts[i], hits) if config.keep_first else hits
    return out


def merge_hits(first: Sequence[StagedScore], second: Sequence[StagedScore]) -> list[StagedScore]:
    """The union of two vector hit lists, each id at its better score (ties by id), cut to the
    longer list's length."""
    best: dict[str, StagedScore] = {}
    for h in (*first, *second):
        if h.id not in best or h.score > best[h.id].score:
            best[h.id] = h
    merged = sorted(best.values(), key=lambda h: (-h.score, h.id))
    return merged[: max(len(first), len(second))]
