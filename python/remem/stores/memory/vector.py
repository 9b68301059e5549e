"""MemoryVectorStore: the VectorStore protocol in process memory (exact search, Python filters).

It backs :class:`remem.SimpleVectorStore` and runs the same parity suite as the durable
backends. Durability: none — everything is lost when the process exits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from remem.errors import DuplicateIdError, NotFoundError
from remem.kernels import top_k
from remem.models import CollectionInfo, Metric, VectorItem, VectorMatch
from remem.models.metadata import Scalar
from remem.stores.base.lifecycle import StoreLifecycle, StoreState
from remem.stores.filters import Filter, matches, parse_where
from remem.stores.vector import ScoredId, Where
from remem.stores.vector_input import (
    Batch,
    check_collection,
    check_ids,
    check_reopen,
    for_metric,
    prepare_batch,
    prepare_queries,
    ranked,
)


@dataclass(slots=True)
class _Item:
    vector: NDArray[np.float32]  # as given
    searchable: NDArray[np.float32]  # unit-normalised for cosine
    document: str | None
    metadata: dict[str, Scalar]


@dataclass(slots=True)
class _Collection:
    info: CollectionInfo
    items: dict[str, _Item] = field(default_factory=dict)
    cache: tuple[list[str], NDArray[np.float32]] | None = None  # ids sorted + their matrix

    def sorted_matrix(self) -> tuple[list[str], NDArray[np.float32]]:
        if self.cache is None:
            ids = sorted(self.items)
            dim = self.info.dimension
            matrix = (
                np.stack([self.items[i].searchable for i in ids])
                if ids
                else np.zeros((0, dim), dtype=np.float32)
            )
            self.cache = (ids, matrix)
        return self.cache


class MemoryVectorStore(StoreLifecycle):
    """In-memory named collections; every query is an exact native top-k.

    Writes are synchronous Python (no awaits inside), so concurrent tasks interleave only between
    calls: each batch is applied whole or not at all.
    """

    def __init__(self) -> None:
        self._collections: dict[str, _Collection] = {}
        self._state = StoreState.OPEN

    def _get(self, name: str) -> _Collection:
        self._check_open()
        check_collection(name)
        try:
            return self._collections[name]
        except KeyError:
            raise NotFoundError(
                f"no vector collection named {name!r}; create it with create_collection()"
            ) from None

    def _info(self, col: _Collection) -> CollectionInfo:
        return col.info.replace(count=len(col.items))

    async def create_collection(
        self,
        name: str,
        *,
        model_name: str,
        dimension: int,
        metric: Metric = Metric.COSINE,
        reembed: bool = False,
    ) -> CollectionInfo:
        self._check_open()
        info = CollectionInfo(
            name=name, model_name=model_name, dimension=dimension, metric=Metric(metric)
        )
        existing = self._collections.get(name)
        if existing is not None and not reembed:
            check_reopen(existing.info, info.model_name, info.dimension, info.metric)
            return self._info(existing)
        self._collections[name] = _Collection(info)
        return info

    async def get_collection(self, name: str) -> CollectionInfo:
        return self._info(self._get(name))

    async def list_collections(self) -> list[CollectionInfo]:
        self._check_open()
        return [self._info(self._collections[n]) for n in sorted(self._collections)]

    async def delete_collection(self, name: str) -> None:
        self._get(name)
        del self._collections[name]

    async def add(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: NDArray[np.float32] | Sequence[Sequence[float]],
        *,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, object] | None] | None = None,
    ) -> None:
        col = self._get(collection)
        batch = prepare_batch(col.info, ids, vectors, documents, metadatas)
        dup = next((i for i in batch.ids if i in col.items), None)
        if dup is not None:
            raise DuplicateIdError(
                f"id {dup!r} already exists in collection {collection!r}; "
                "use upsert() to replace it"
            )
        self._apply(col, batch)

    async def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: NDArray[np.float32] | Sequence[Sequence[float]],
        *,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, object] | None] | None = None,
    ) -> None:
        col = self._get(collection)
        self._apply(col, prepare_batch(col.info, ids, vectors, documents, metadatas))

    def _apply(self, col: _Collection, batch: Batch) -> None:
        searchable = for_metric(batch.vectors, col.info.metric)
        for i, item_id in enumerate(batch.ids):
            col.items[item_id] = _Item(
                batch.vectors[i].copy(),
                searchable[i].copy(),
                batch.documents[i],
                batch.metadatas[i],
            )
        if len(batch):
            col.cache = None

    async def delete(self, collection: str, ids: Sequence[str]) -> int:
        col = self._get(collection)
        removed = sum(col.items.pop(i, None) is not None for i in set(check_ids(ids, unique=False)))
        if removed:
            col.cache = None
        return removed

    async def get(self, collection: str, ids: Sequence[str]) -> list[VectorItem]:
        col = self._get(collection)
        out = []
        for item_id in dict.fromkeys(check_ids(ids, unique=False)):
            item = col.items.get(item_id)
            if item is not None:
                out.append(
                    VectorItem(
                        id=item_id,
                        vector=tuple(item.vector.tolist()),
                        document=item.document,
                        metadata=dict(item.metadata),
                    )
                )
        return out

    async def count(self, collection: str, *, where: Where | None = None) -> int:
        col = self._get(collection)
        node = parse_where(where)
        return sum(matches(node, item.metadata) for item in col.items.values())

    async def query(
        self,
        collection: str,
        vectors: NDArray[np.float32] | Sequence[float] | Sequence[Sequence[float]],
        *,
        k: int = 10,
        where: Where | None = None,
    ) -> list[list[VectorMatch]]:
        col = self._get(collection)
        queries = for_metric(prepare_queries(col.info, vectors, k), col.info.metric)
        return self.search(col, queries, k, parse_where(where))

    async def query_ids(
        self,
        collection: str,
        vectors: NDArray[np.float32] | Sequence[float] | Sequence[Sequence[float]],
        *,
        k: int = 10,
        where: Where | None = None,
    ) -> list[list[ScoredId]]:
        found = await self.query(collection, vectors, k=k, where=where)
        return [[ScoredId(m.id, m.score) for m in matches] for matches in found]

    def search(
        self, col: _Collection, queries: NDArray[np.float32], k: int, node: Filter | None
    ) -> list[list[VectorMatch]]:
        ids, matrix = col.sorted_matrix()
        mask = None
        if node is not None:
            mask = np.fromiter(
                (matches(node, col.items[i].metadata) for i in ids), dtype=np.bool_, count=len(ids)
            )
        if not ids or (mask is not None and not mask.any()):
            return [[] for _ in queries]
        # ids are sorted, so the kernel's tie-break (lower index) is the contract's (lower id).
        idx, scores = top_k(queries, matrix, k, metric="dot", mask=mask)
        out = []
        for row_idx, row_scores in zip(np.atleast_2d(idx), np.atleast_2d(scores), strict=True):
            found = []
            for i, score in zip(row_idx.tolist(), row_scores.tolist(), strict=True):
                item = col.items[ids[i]]
                found.append(
                    VectorMatch(
                        id=ids[i],
                        score=float(score),
                        document=item.document,
                        metadata=dict(item.metadata),
                    )
                )
            out.append(ranked(found, k))
        return out
