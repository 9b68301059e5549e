"""The VectorStore protocol: named collections of vectors with documents and metadata."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import NamedTuple, Protocol, Self, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from remem.models import CollectionInfo, Metric, VectorItem, VectorMatch

Where = Mapping[str, object]
"""A metadata filter: {"field": value}, {"field": {"$gt": 3}}, {"$and": [...]}, {"$or": [...]}.
Operators: $eq $ne $gt $gte $lt $lte $in $nin, combined with $and/$or. See remem.stores.filters."""


class ScoredId(NamedTuple):
    """One hit of :meth:`VectorStore.query_ids`: the item's id and its similarity score."""

    id: str
    score: float


@runtime_checkable
class VectorStore(Protocol):
    """Named collections; each records its embedding model name and dimension.

    Contract (every backend): a vector of another dimension raises DimensionMismatchError naming
    both; opening (``create_collection`` on an existing name) with another model name raises
    EmbeddingModelMismatchError unless ``reembed=True`` was requested (which empties the collection
    for an explicit re-embedding migration); ``add`` of an existing id raises DuplicateIdError and
    changes nothing, ``upsert`` replaces; NaN/inf vectors raise NonFiniteError; query results are
    ordered by score descending, ties by id ascending; unknown collections raise NotFoundError.
    ``query`` takes one vector (d,) or a batch (q, d) and returns one list per query, each with
    ``min(k, eligible items)`` matches (a filtered query never comes back short because of the
    index). ``query_ids`` is ``query`` without the payload: the same ids and scores in the same
    order under the same ``k``, ``where`` and tie-break, as :class:`ScoredId` pairs — for callers
    that read the records elsewhere (recall), so a backend need not load documents or metadata.
    ``get`` returns the stored items among ``ids`` in the order asked, skipping unknown
    ids; ``delete`` returns how many of ``ids`` existed. ``where`` is the filter language of
    :mod:`remem.stores.filters`. Backends: HnswVectorStore (remem.stores.hnsw), PgVectorStore
    (remem.stores.postgres.vector), MemoryVectorStore (remem.stores.memory.vector), each on
    :class:`~remem.stores.base.vector.VectorStoreBase`, which checks the arguments once.
    """

    async def create_collection(
        self,
        name: str,
        *,
        model_name: str,
        dimension: int,
        metric: Metric = Metric.COSINE,
        reembed: bool = False,
    ) -> CollectionInfo: ...
    async def get_collection(self, name: str) -> CollectionInfo: ...
    async def list_collections(self) -> list[CollectionInfo]: ...
    async def delete_collection(self, name: str) -> None: ...
    async def add(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: NDArray[np.float32] | Sequence[Sequence[float]],
        *,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, object] | None] | None = None,
    ) -> None: ...
    async def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: NDArray[np.float32] | Sequence[Sequence[float]],
        *,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, object] | None] | None = None,
    ) -> None: ...
    async def delete(self, collection: str, ids: Sequence[str]) -> int: ...
    async def get(self, collection: str, ids: Sequence[str]) -> list[VectorItem]: ...
    async def query(
        self,
        collection: str,
        vectors: NDArray[np.float32] | Sequence[float] | Sequence[Sequence[float]],
        *,
        k: int = 10,
        where: Where | None = None,
    ) -> list[list[VectorMatch]]: ...
    async def query_ids(
        self,
        collection: str,
        vectors: NDArray[np.float32] | Sequence[float] | Sequence[Sequence[float]],
        *,
        k: int = 10,
        where: Where | None = None,
    ) -> list[list[ScoredId]]: ...
    async def count(self, collection: str, *, where: Where | None = None) -> int: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
