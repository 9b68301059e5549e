"""VectorStoreBase: the VectorStore contract's front half, written once for every backend.

Every public method refuses use after ``aclose()`` and checks what it can without the
collection (its name, the ids, ``k``, the filter) here, before the backend touches its storage
— so hnswlib, pgvector and the in-memory store raise the same typed error, with the same
message, for the same bad input, whether or not the collection exists. What needs the
collection (the vectors' dimension, the documents and metadata per id) is checked by the
backend, inside its own read of the collection, through :meth:`VectorWrite.batch` and
:func:`~remem.stores.shared.vector_input.prepare_queries`.

``query_ids`` is an optional ability with a default (``query`` without the payload); hnswlib
and pgvector override it with a search that reads no documents or metadata.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from remem.models import CollectionInfo, Metric, VectorItem, VectorMatch
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.filters import Filter, parse_where
from remem.stores.shared.vector_input import Batch, batch_of, check_collection, check_ids, check_k
from remem.stores.vector import ScoredId, Where

Vectors = NDArray[np.float32] | Sequence[Sequence[float]]
Queries = NDArray[np.float32] | Sequence[float] | Sequence[Sequence[float]]


@dataclass(frozen=True, slots=True)
class VectorWrite:
    """An ``add`` or ``upsert`` whose collection name and ids were checked; ``batch`` checks the
    rest against the collection (raising before anything is written)."""

    collection: str
    ids: list[str]
    vectors: object
    documents: Sequence[str | None] | None
    metadatas: Sequence[Mapping[str, object] | None] | None
    replace: bool

    def batch(self, info: CollectionInfo) -> Batch:
        return batch_of(info, self.ids, self.vectors, self.documents, self.metadatas)


class VectorStoreBase(StoreLifecycle, ABC):
    """Implements :class:`~remem.stores.vector.VectorStore` over the hooks below; every hook
    receives checked values."""

    @abstractmethod
    async def _create_collection(self, info: CollectionInfo, reembed: bool) -> CollectionInfo:
        """Create ``info``, or reopen it (see the protocol: reembed empties it)."""

    @abstractmethod
    async def _get_collection(self, name: str) -> CollectionInfo: ...

    @abstractmethod
    async def _list_collections(self) -> list[CollectionInfo]: ...

    @abstractmethod
    async def _delete_collection(self, name: str) -> None: ...

    @abstractmethod
    async def _write(self, write: VectorWrite) -> None: ...

    @abstractmethod
    async def _delete(self, collection: str, ids: list[str]) -> int: ...

    @abstractmethod
    async def _get(self, collection: str, ids: list[str]) -> list[VectorItem]: ...

    @abstractmethod
    async def _count(self, collection: str, node: Filter | None) -> int: ...

    @abstractmethod
    async def _query(
        self, collection: str, vectors: object, k: int, node: Filter | None
    ) -> list[list[VectorMatch]]: ...

    async def _query_ids(
        self, collection: str, vectors: object, k: int, node: Filter | None
    ) -> list[list[ScoredId]]:
        """Default: :meth:`_query`'s ids and scores (a backend overrides it to skip the
        payload)."""
        found = await self._query(collection, vectors, k, node)
        return [[ScoredId(m.id, m.score) for m in matches] for matches in found]

    # -- collections ---------------------------------------------------------------------------

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
        return await self._create_collection(info, reembed)

    async def get_collection(self, name: str) -> CollectionInfo:
        self._check_open()
        return await self._get_collection(check_collection(name))

    async def list_collections(self) -> list[CollectionInfo]:
        self._check_open()
        return await self._list_collections()

    async def delete_collection(self, name: str) -> None:
        self._check_open()
        await self._delete_collection(check_collection(name))

    # -- writes --------------------------------------------------------------------------------

    async def add(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: Vectors,
        *,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, object] | None] | None = None,
    ) -> None:
        await self._write(self._checked_write(collection, ids, vectors, documents, metadatas))

    async def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: Vectors,
        *,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, object] | None] | None = None,
    ) -> None:
        write = self._checked_write(collection, ids, vectors, documents, metadatas, replace=True)
        await self._write(write)

    def _checked_write(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: object,
        documents: Sequence[str | None] | None,
        metadatas: Sequence[Mapping[str, object] | None] | None,
        *,
        replace: bool = False,
    ) -> VectorWrite:
        self._check_open()
        name = check_collection(collection)
        return VectorWrite(name, check_ids(ids), vectors, documents, metadatas, replace)

    async def delete(self, collection: str, ids: Sequence[str]) -> int:
        self._check_open()
        name = check_collection(collection)
        return await self._delete(name, check_ids(ids, unique=False))

    # -- reads ---------------------------------------------------------------------------------

    async def get(self, collection: str, ids: Sequence[str]) -> list[VectorItem]:
        self._check_open()
        name = check_collection(collection)
        return await self._get(name, check_ids(ids, unique=False))

    async def count(self, collection: str, *, where: Where | None = None) -> int:
        self._check_open()
        name = check_collection(collection)
        return await self._count(name, parse_where(where))

    async def query(
        self, collection: str, vectors: Queries, *, k: int = 10, where: Where | None = None
    ) -> list[list[VectorMatch]]:
        self._check_open()
        name = check_collection(collection)
        return await self._query(name, vectors, check_k(k), parse_where(where))

    async def query_ids(
        self, collection: str, vectors: Queries, *, k: int = 10, where: Where | None = None
    ) -> list[list[ScoredId]]:
        self._check_open()
        name = check_collection(collection)
        return await self._query_ids(name, vectors, check_k(k), parse_where(where))
