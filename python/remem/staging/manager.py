"""Staged semantic collections: short-term, long-term and decayed, on any VectorStore.

``CollectionManager`` owns one collection per staged :class:`~remem.models.MemoryStage` in a
vector store, all built by one embedding model. It embeds records once, when they are added;
moving a record between stages copies its stored vector (never re-embeds) under the move
journal, so an interrupted move is completed on the next open. Queries apply a similarity floor
per stage and merge the stages' results by score (ties by id).

Floors: ``StagingConfig.floors`` when given; otherwise the embedder's ``recommended_floors`` if it
has them (a lexical model's cosines run far lower than a semantic model's); otherwise
:data:`SEMANTIC_FLOORS` (0.5 short-term, 0.7 long-term and decayed).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from remem.embeddings import EmbeddingService
from remem.errors import ConfigError, InvalidArgumentError, ShapeError
from remem.models import MemoryRecord, MemoryStage, VectorItem
from remem.staging.journal import MemoryMoveJournal, MoveJournal, PendingMove
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.vector import VectorStore, Where

M = TypeVar("M", "StagedMatch", "StagedScore")

STAGED: tuple[MemoryStage, ...] = (
    MemoryStage.SHORT_TERM,
    MemoryStage.LONG_TERM,
    MemoryStage.DECAYED,
)
"""The stages that have a collection. Episodic items live in the episodic store; deleted ones
nowhere."""


SEMANTIC_FLOORS: Mapping[MemoryStage, float] = {
    MemoryStage.SHORT_TERM: 0.5,
    MemoryStage.LONG_TERM: 0.7,
    MemoryStage.DECAYED: 0.7,
}
"""Default floors for semantic embedding models (cosine)."""


@dataclass(frozen=True)
class StagingConfig:
    """Collection naming and per-stage similarity floors (cosine, -1..1; None = see module)."""

    prefix: str = "memory"
    floors: Mapping[MemoryStage, float] | None = None

    def __post_init__(self) -> None:
        if not self.prefix or not self.prefix.replace("_", "").isalnum():
            raise ConfigError(f"prefix {self.prefix!r} must be non-empty letters, digits or _")
        for stage, floor in (self.floors or {}).items():
            if stage not in STAGED:
                raise ConfigError(f"floors has {stage}, which has no collection; use {STAGED}")
            if not -1.0 <= floor <= 1.0:
                raise ConfigError(f"floor for {stage} is {floor}; it must be within -1..1")


@dataclass(frozen=True, slots=True)
class StagedMatch:
    """A query result with the stage it was found in."""

    id: str
    score: float
    stage: MemoryStage
    document: str | None
    metadata: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class StagedScore:
    """A :meth:`CollectionManager.query_scores` result: id, score and stage, no payload."""

    id: str
    score: float
    stage: MemoryStage


def record_metadata(record: MemoryRecord) -> dict[str, object]:
    """The metadata stored with a record's vector: what recall filters on."""
    meta: dict[str, object] = {
        "kind": record.kind.value,
        "namespace": record.namespace,
        "stage": record.lifecycle.stage.value,
    }
    if record.session_id is not None:
        meta["session_id"] = record.session_id
    return meta


class CollectionManager(StoreLifecycle):
    """Staged collections on one VectorStore, built by one EmbeddingService.

    Example::

        manager = CollectionManager(HnswVectorStore(directory), HashingEmbedder())
        async with manager:
            await manager.add(records)
            matches = await manager.query(await embedder.embed_query("where do I live?"), k=5)
    """

    def __init__(
        self,
        vector_store: VectorStore,
        embeddings: EmbeddingService,
        *,
        config: StagingConfig | None = None,
        journal: MoveJournal | None = None,
    ) -> None:
        self.vector_store = vector_store
        self.embeddings = embeddings
        self.config = config or StagingConfig()
        self.journal: MoveJournal = journal if journal is not None else MemoryMoveJournal()
        self._open_lock = asyncio.Lock()
        self.floors: dict[MemoryStage, float] = dict(SEMANTIC_FLOORS)
        recommended = getattr(embeddings, "recommended_floors", None)
        if self.config.floors is not None:
            self.floors.update(self.config.floors)
        elif isinstance(recommended, Mapping):
            self.floors.update({MemoryStage(k): float(v) for k, v in recommended.items()})

    async def _ready(self) -> None:
        self._check_open()
        async with self._open_lock:
            await self.open()

    def collection_for(self, stage: MemoryStage) -> str:
        if stage not in STAGED:
            raise InvalidArgumentError(
                f"stage {stage.value!r} has no collection; staged stages are "
                f"{', '.join(s.value for s in STAGED)}"
            )
        return f"{self.config.prefix}_{stage.value}"

    async def _open(self) -> None:
        for stage in STAGED:
            await self.vector_store.create_collection(
                self.collection_for(stage),
                model_name=self.embeddings.model_name,
                dimension=self.embeddings.dimension,
            )
        await self.recover()

    async def recover(self) -> int:
        """Complete every move the journal says was begun and not committed; return how many."""
        pending = self.journal.pending()
        for move in pending:
            await self._apply_move(move)
            self.journal.commit(move.move_id)
        return len(pending)

    async def add(
        self,
        records: Sequence[MemoryRecord],
        *,
        vectors: NDArray[np.float32] | None = None,
    ) -> NDArray[np.float32]:
        """Embed (unless ``vectors`` are given) and add records to their stages' collections.

        Returns the vectors used, one row per record. Each stage's batch is all-or-nothing.
        """
        await self._ready()
        if vectors is None:
            vectors = await self.embeddings.embed_documents([r.text for r in records])
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(records):
            raise ShapeError(
                f"vectors has shape {vectors.shape} but {len(records)} records were given; "
                "pass one row per record"
            )
        by_stage: dict[MemoryStage, list[int]] = {}
        for i, record in enumerate(records):
            self.collection_for(record.lifecycle.stage)  # validates the stage
            by_stage.setdefault(record.lifecycle.stage, []).append(i)
        for stage, rows in by_stage.items():
            await self.vector_store.add(
                self.collection_for(stage),
                [records[i].id for i in rows],
                vectors[rows],
                documents=[records[i].text for i in rows],
                metadatas=[record_metadata(records[i]) for i in rows],
            )
        return vectors

    async def move(self, ids: Sequence[str], source: MemoryStage, target: MemoryStage) -> int:
        """Move ``ids`` from ``source`` to ``target`` without re-embedding; return how many moved.

        Crash-safe: the journal records the move first; an interrupted move is completed by
        :meth:`recover` (run on open). Ids not in ``source`` are skipped.
        """
        await self._ready()
        if source == target or not ids:
            return 0
        self.collection_for(source)
        self.collection_for(target)
        move = PendingMove(uuid.uuid4().hex, tuple(dict.fromkeys(ids)), source, target)
        self.journal.begin(move)
        moved = await self._apply_move(move)
        self.journal.commit(move.move_id)
        return moved

    async def _apply_move(self, move: PendingMove) -> int:
        source = self.collection_for(move.source)
        target = self.collection_for(move.target)
        items: list[VectorItem] = await self.vector_store.get(source, list(move.ids))
        if items:
            await self.vector_store.upsert(
                target,
                [item.id for item in items],
                np.asarray([item.vector for item in items], dtype=np.float32),
                documents=[item.document for item in items],
                metadatas=[{**item.metadata, "stage": move.target.value} for item in items],
            )
            await self.vector_store.delete(source, [item.id for item in items])
        return len(items)

    async def remove(self, ids: Sequence[str], stage: MemoryStage) -> int:
        """Delete ``ids`` from ``stage``'s collection; return how many existed."""
        await self._ready()
        return await self.vector_store.delete(self.collection_for(stage), list(ids))

    async def vectors(self, ids: Sequence[str], stage: MemoryStage) -> list[VectorItem]:
        """The stored vectors of ``ids`` in ``stage`` (unknown ids skipped)."""
        await self._ready()
        return await self.vector_store.get(self.collection_for(stage), list(ids))

    async def query(
        self,
        vectors: NDArray[np.float32],
        *,
        k: int = 10,
        stages: Sequence[MemoryStage] = (MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM),
        where: Where | None = None,
        floors: Mapping[MemoryStage, float] | None = None,
    ) -> list[list[StagedMatch]]:
        """Top ``k`` per query across ``stages``, each stage's results above its floor.

        ``vectors`` is one query (d,) or a batch (q, d); the result has one list per query.
        """
        per_stage = await self._per_stage(vectors, k, stages, where, payload=True)
        return self._merge(
            [
                [
                    [StagedMatch(m.id, m.score, stage, m.document, m.metadata) for m in ms]
                    for ms in r
                ]
                for stage, r in per_stage
            ],
            vectors,
            k,
            floors,
        )

    async def query_scores(
        self,
        vectors: NDArray[np.float32],
        *,
        k: int = 10,
        stages: Sequence[MemoryStage] = (MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM),
        where: Where | None = None,
        floors: Mapping[MemoryStage, float] | None = None,
    ) -> list[list[StagedScore]]:
        """:meth:`query` without documents and metadata: the same ids, scores, stages and order,
        from the store's :meth:`~remem.stores.vector.VectorStore.query_ids` (recall reads the
        records from the record store, so it needs nothing more)."""
        per_stage = await self._per_stage(vectors, k, stages, where, payload=False)
        return self._merge(
            [
                [[StagedScore(h.id, h.score, stage) for h in hs] for hs in r]
                for stage, r in per_stage
            ],
            vectors,
            k,
            floors,
        )

    async def _per_stage(
        self,
        vectors: NDArray[np.float32],
        k: int,
        stages: Sequence[MemoryStage],
        where: Where | None,
        *,
        payload: bool,
    ) -> list[tuple[MemoryStage, list[list[Any]]]]:
        """Each stage's raw results (``VectorMatch`` with payload, else ``ScoredId``)."""
        await self._ready()
        if k < 0:
            raise InvalidArgumentError(f"k is {k}; pass k >= 0")
        if k == 0:
            return []
        batch = _batch(vectors)
        chosen = list(dict.fromkeys(stages))
        store = self.vector_store
        search = store.query if payload else store.query_ids
        # Concurrently: an embedded store's worker runs them back to back, but the event loop
        # waits for one wake-up instead of one per stage.
        found: list[list[list[Any]]] = list(
            await asyncio.gather(
                *(search(self.collection_for(stage), batch, k=k, where=where) for stage in chosen)
            )
        )
        return list(zip(chosen, found, strict=True))

    def _merge(
        self,
        per_stage: list[list[list[M]]],
        vectors: NDArray[np.float32],
        k: int,
        floors: Mapping[MemoryStage, float] | None,
    ) -> list[list[M]]:
        """Per query: every stage's hits above that stage's floor, by score (ties by id), top k."""
        effective = {**self.floors, **(floors or {})}
        merged: list[list[M]] = [[] for _ in range(_batch(vectors).shape[0])]
        for results in per_stage:
            for out, hits in zip(merged, results, strict=True):
                out.extend(h for h in hits if h.score >= effective.get(h.stage, -1.0))
        return [sorted(out, key=lambda h: (-h.score, h.id))[:k] for out in merged]

    async def count(self, stage: MemoryStage) -> int:
        await self._ready()
        return await self.vector_store.count(self.collection_for(stage))


def _batch(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    q = np.asarray(vectors, dtype=np.float32)
    return q if q.ndim == 2 else q[None, :]
