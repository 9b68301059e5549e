"""HnswVectorStore's last query step: picked labels and exact scores → the caller's results.

The search paths (scan tier, exact, hnswlib) all end with per-query lists of labels and their
exact scores, possibly more than ``k`` (ties at the k-th place are all returned). ``matches``
turns them into :class:`~remem.models.VectorMatch` results, which needs each hit's id, document
and metadata — read from DuckDB the first time a label is seen, then from the collection's row
cache. ``scored_ids`` needs only ids, which the collection's label map holds in memory, so it
never touches DuckDB: recall's vector stage (which fetches records elsewhere) uses it. Both rank
by score descending, ties by id, and cut to ``k`` — the same order for the same picks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

from remem.models import VectorMatch
from remem.models.base import trusted
from remem.stores.hnsw.loaded import Loaded, Row
from remem.stores.shared.vector_input import ranked, ranked_ids
from remem.stores.vector import ScoredId

ROW_CACHE_LIMIT = 200_000
"""Most (id, document, metadata) rows a loaded collection keeps to answer queries from memory."""


def matches(
    rows: MutableMapping[int, Row],
    fetch: Callable[[list[int]], Mapping[int, Row]],
    picked: Sequence[Sequence[int]],
    scores: Sequence[Any],
    k: int,
) -> list[list[VectorMatch]]:
    """Full results; ``fetch`` reads the rows of labels not yet in ``rows`` (the row cache)."""
    wanted = sorted({label for labels in picked for label in labels if label not in rows})
    if wanted:
        if len(rows) + len(wanted) > ROW_CACHE_LIMIT:
            rows.clear()
        rows.update(fetch(wanted))
    out = []
    for labels, row_scores in zip(picked, scores, strict=True):
        found = []
        for label, score in zip(labels, row_scores, strict=False):
            item_id, document, metadata = rows[label]
            # Trusted: the row was validated when written; the metadata dict is copied so a
            # caller changing it cannot change the row cache.
            found.append(
                trusted(
                    VectorMatch,
                    {
                        "id": item_id,
                        "score": float(score),
                        "document": document,
                        "metadata": dict(metadata),
                    },
                )
            )
        out.append(ranked(found, k))
    return out


def scored_ids(
    state: Loaded, picked: Sequence[Sequence[int]], scores: Sequence[Any], k: int
) -> list[list[ScoredId]]:
    """Ids and scores only, from the collection's in-memory label → id map (no DuckDB read)."""
    id_of = state.id_of
    out = []
    for labels, row_scores in zip(picked, scores, strict=True):
        found = [
            ScoredId(id_of[label], float(score))
            for label, score in zip(labels, row_scores, strict=False)
        ]
        out.append(ranked_ids(found, k))
    return out
