"""What ``recall``/``recall_many`` need besides the pipeline: the options every query of a batch
shares (:class:`RecallOptions`), their argument checks (one place, so both calls reject the same
inputs the same way), the query embedding batch, and the ids a recall reinforces."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence, Set
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from remem.controller.config import RETRIEVERS
from remem.controller.writes import check_query_vectors
from remem.embeddings import EmbeddingService
from remem.embeddings.service import embed_queries
from remem.errors import InvalidArgumentError, shown
from remem.models import MemoryStage, ScoredMemory, check_text
from remem.scopes import Namespaces, normalize_namespaces
from remem.stores.filters import Filter, field_names, parse_where
from remem.stores.transcript import check_session_id
from remem.stores.vector import Where


@dataclass(frozen=True, slots=True)
class RecallOptions:
    """Validated options shared by every query of one recall batch."""

    k: int
    memory_stages: tuple[MemoryStage, ...]
    episodic: bool
    session_id: str | None
    where: Where | None
    where_node: Filter | None
    namespace: str = "default"
    """The graph namespace an unscoped recall matches entities in."""
    sources: frozenset[str] = frozenset(("vector", "fulltext", "graph"))
    """The retrievers to run (``recall(sources=...)``); the others contribute nothing."""
    namespaces: tuple[str, ...] | None = None
    """The scopes the recall may see (``recall(namespace=...)``; None: every scope). Already
    merged into ``where``/``where_node``, so the vector and record stages honour it; the
    full-text search and the graph matcher get it pushed into their own queries."""


DEFAULT_STAGES: tuple[MemoryStage, ...] = (
    MemoryStage.SHORT_TERM,
    MemoryStage.LONG_TERM,
    MemoryStage.EPISODIC,
)

FILTER_FIELDS = ("kind", "namespace", "session_id", "stage")
"""The fields a recall filter may test (:func:`remem.staging.record_metadata`); any other field
matches nothing, so naming one is refused instead of silently recalling nothing."""


def recall_options(
    max_k: int,
    k: int,
    stages: Sequence[MemoryStage | str] | None,
    filters: Where | None,
    include_decayed: bool,
    session_id: str | None,
    sources: Sequence[str] | None = None,
    namespace: Namespaces = None,
) -> RecallOptions:
    """Validated :class:`RecallOptions`; InvalidArgumentError names the bad argument."""
    namespaces = normalize_namespaces(namespace)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= max_k:
        raise InvalidArgumentError(f"k must be an integer in 1..{max_k}, got {k!r}")
    if session_id is not None:
        check_session_id(session_id)
    if stages is not None and (isinstance(stages, str | bytes) or not isinstance(stages, Sequence)):
        raise InvalidArgumentError(
            f"stages takes a list of stages, e.g. ['long_term'], got {shown(stages)}"
        )
    if not isinstance(include_decayed, bool):
        raise InvalidArgumentError(
            f"include_decayed must be a bool, got {type(include_decayed).__name__}"
        )
    chosen: list[MemoryStage] = []
    for s in DEFAULT_STAGES if stages is None else stages:
        try:
            if not isinstance(s, str):  # Enum's own message would repr any object
                raise ValueError(s)
            stage = MemoryStage(s)
        except ValueError:
            raise InvalidArgumentError(
                f"stage {shown(s)} is unknown; use {', '.join(m.value for m in MemoryStage)}"
            ) from None
        if stage is MemoryStage.DELETED:
            raise InvalidArgumentError("deleted memories are never recalled; drop 'deleted'")
        chosen.append(stage)
    if include_decayed:
        chosen.append(MemoryStage.DECAYED)
    unique = tuple(dict.fromkeys(chosen))
    if sources is None:
        sources = RETRIEVERS
    if (
        isinstance(sources, str | bytes)
        or not isinstance(sources, Sequence | Set)
        or not sources
        or not all(isinstance(s, str) and s in RETRIEVERS for s in sources)
    ):
        raise InvalidArgumentError(
            f"sources must be a non-empty list drawn from {list(RETRIEVERS)}, got {shown(sources)}"
        )
    where_node = parse_where(filters)
    unknown = sorted(field_names(where_node) - set(FILTER_FIELDS))
    if unknown:
        raise InvalidArgumentError(
            f"filters test unknown fields {unknown[:5]}; recall filters on "
            f"{', '.join(FILTER_FIELDS)} only"
        )
    where = scoped_where(filters, namespaces)
    return RecallOptions(
        k=k,
        memory_stages=unique,
        episodic=MemoryStage.EPISODIC in unique,
        session_id=session_id,
        where=where,
        where_node=where_node if where is filters else parse_where(where),
        sources=frozenset(sources),
        namespaces=namespaces,
    )


def scoped_where(filters: Where | None, namespaces: tuple[str, ...] | None) -> Where | None:
    """The caller's ``filters`` AND ``namespace $in namespaces`` (``filters`` itself when the
    recall is unscoped): one where that the vector store evaluates inside its search."""
    if namespaces is None:
        return filters
    scope: Where = {"namespace": {"$in": list(namespaces)}}
    if not filters:
        return scope
    return {"$and": [dict(filters), scope]}


def accessed_ids(results: Sequence[Sequence[ScoredMemory]]) -> tuple[list[str], list[str]]:
    """(record ids, entity ids) a recall reinforces: stored memories and the entities they and
    the graph results name; episodic turns are not reinforced (they have no lifecycle)."""
    record_ids: list[str] = []
    entity_ids: list[str] = []
    for hits in results:
        for hit in hits:
            if hit.record.id.startswith("graph:") and hit.sources == ("graph",):
                entity_ids += list(hit.record.entity_ids)
            elif hit.record.lifecycle.stage is not MemoryStage.EPISODIC:
                record_ids.append(hit.record.id)
                entity_ids += list(hit.record.entity_ids)
    return record_ids, entity_ids


def check_queries(queries: Sequence[str]) -> None:
    """``recall_many``'s queries: a list of non-empty strings (InvalidArgumentError if not)."""
    if isinstance(queries, str) or not isinstance(queries, Sequence):
        raise InvalidArgumentError("recall_many takes a list of query strings")
    for q in queries:
        if not isinstance(q, str) or not q.strip():
            raise InvalidArgumentError(f"each query must be a non-empty str, got {q!r}")
        check_text(q, field="query")


def start_query_batch(
    embedder: EmbeddingService,
    queries: Sequence[str],
    vectors: NDArray[np.float32] | Sequence[Sequence[float]] | None,
    options: RecallOptions,
) -> NDArray[np.float32] | asyncio.Task[NDArray[np.float32]]:
    """The ``(len(queries), dim)`` query batch: ``vectors`` checked now, or zeros when the
    vector retriever does not run (never searched) — else the task embedding the queries in
    one call, started here so recall's other retrievers run while it encodes. The caller
    awaits or cancels the task."""
    dim = embedder.dimension
    if vectors is None and "vector" not in options.sources:
        return np.zeros((len(queries), dim), dtype=np.float32)
    if vectors is None:
        return asyncio.ensure_future(embed_queries(embedder, queries))
    return check_query_vectors(vectors, len(queries), dim)
