"""MemoryVectorStore: the VectorStore protocol in process memory (exact search, Python filters).

It backs :class:`remem.SimpleVectorStore` and runs the same parity suite as the durable
backends. Durability: none — everything is lost when the process exits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from remem.errors import DuplicateIdError, NotFoundError
from remem.kernels import top_k
from remem.models import CollectionInfo, VectorItem, VectorMatch
from remem.models.metadata import Scalar
from remem.stores.base.lifecycle import StoreState
from remem.stores.base.vector import VectorStoreBase, VectorWrite
from remem.stores.filters import Filter, matches
from remem.stores.shared.vector_input import (
    Batch,
    check_reopen,
    for_metric,
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


class MemoryVectorStore(VectorStoreBase):
    """In-memory named collections; every query is an exact native top-k.

    Writes are synchronous Python (no awaits inside), so concurrent tasks interleave only between
    calls: each batch is applied whole or not at all.
    """

    def __init__(self) -> None:
        self._collections: dict[str, _Collection] = {}
        self._state = StoreState.OPEN

    def _named(self, name: str) -> _Collection:
        try:
            return self._collections[name]
        except KeyError:
            raise NotFoundError(
                f"no vector collection named {name!r}; create it with create_collection()"
            ) from None

    def _info(self, col: _Collection) -> CollectionInfo:
        return col.info.replace(count=len(col.items))

    async def _create_collection(self, info: CollectionInfo, reembed: bool) -> CollectionInfo:
        existing = self._collections.get(info.name)
        if existing is not None and not reembed:
            check_reopen(existing.info, info.model_name, info.dimension, info.metric)
            return self._info(existing)
        self._collections[info.name] = _Collection(info)
        return info

    async def _get_collection(self, name: str) -> CollectionInfo:
        return self._info(self._named(name))

    async def _list_collections(self) -> list[CollectionInfo]:
        return [self._info(self._collections[n]) for n in sorted(self._collections)]

    async def _delete_collection(self, name: str) -> None:
        self._named(name)
        del self._collections[name]

    async def _write(self, write: VectorWrite) -> None:
        col = self._named(write.collection)
        batch = write.batch(col.info)
        if not write.replace:
            dup = next((i for i in batch.ids if i in col.items), None)
            if dup is not None:
                raise DuplicateIdError(
                    f"id {dup!r} already exists in collection {write.collection!r}; "
                    "use upsert() to replace it"
                )
        self._apply(col, batch)

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

    async def _delete(self, collection: str, ids: list[str]) -> int:
        col = self._named(collection)
        removed = sum(col.items.pop(i, None) is not None for i in set(ids))
        if removed:
            col.cache = None
        return removed

    async def _get(self, collection: str, ids: list[str]) -> list[VectorItem]:
        col = self._named(collection)
        out = []
        for item_id in dict.fromkeys(ids):
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

    async def _count(self, collection: str, node: Filter | None) -> int:
        col = self._named(collection)
        return sum(matches(node, item.metadata) for item in col.items.values())

    async def _query(
        self, collection: str, vectors: object, k: int, node: Filter | None
    ) -> list[list[VectorMatch]]:
        col = self._named(collection)
        queries = for_metric(prepare_queries(col.info, vectors, k), col.info.metric)
        return self.search(col, queries, k, node)

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
