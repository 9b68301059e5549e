"""SimpleVectorStore: embed texts and search them, one collection, a Chroma-like API.

It is the convenience layer, not a VectorStore itself: its ``query(text, n_results)``,
``delete(ids)`` and ``count()`` take texts and one implicit collection, so their signatures
cannot also be the protocol's ``query(collection, vectors, k)``. The protocol implementation it
writes through is :attr:`SimpleVectorStore.vector_store` — a :class:`MemoryVectorStore` by
default, or any VectorStore you pass (e.g. a durable :class:`HnswVectorStore`).

Example::

    store = SimpleVectorStore(embedding_function=MyEmbeddings())
    await store.add_documents(texts=["Python project"], ids=["python"])
    (await store.query("Python", n_results=1))[0]["id"]   # "python"

Durability: that of the underlying store (none for the default in-memory one).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from remem.errors import InvalidArgumentError, NotFoundError, ShapeError, shown
from remem.models import Metric, VectorItem, check_metadata, check_text
from remem.stores.base.lifecycle import StoreLifecycle, StoreState
from remem.stores.memory.vector import MemoryVectorStore
from remem.stores.shared.vector_input import as_matrix
from remem.stores.vector import VectorStore, Where


class EmbeddingFunction(Protocol):
    """Anything with async ``embed_documents`` and ``embed_query`` (an optional ``model_name``
    attribute names the model recorded on the collection)."""

    async def embed_documents(self, texts: list[str]) -> list[list[float]]: ...
    async def embed_query(self, text: str) -> list[float]: ...


class SimpleVectorStore(StoreLifecycle):
    """Add texts, query by text; results are dicts ``{"id", "document", "metadata", "score"}``.

    ``rerank`` and ``hybrid`` are not implemented by this adapter: passing a true value raises
    InvalidArgumentError instead of being silently ignored.
    """

    def __init__(
        self,
        embedding_function: EmbeddingFunction,
        *,
        collection: str = "default",
        model_name: str | None = None,
        metric: Metric = Metric.COSINE,
        vector_store: VectorStore | None = None,
    ) -> None:
        self.embedding_function = embedding_function
        self.collection = collection
        self.model_name = (
            model_name
            or getattr(embedding_function, "model_name", None)
            or type(embedding_function).__qualname__
        )
        self.metric = Metric(metric)
        self.vector_store: VectorStore = vector_store or MemoryVectorStore()
        self._created = False
        self._lock = asyncio.Lock()
        self._state = StoreState.OPEN

    async def _close(self) -> None:
        await self.vector_store.aclose()

    async def _ensure_collection(self, dimension: int) -> None:
        if not self._created:
            await self.vector_store.create_collection(
                self.collection, model_name=self.model_name, dimension=dimension, metric=self.metric
            )
            self._created = True

    async def _dimension(self) -> int | None:
        try:
            return (await self.vector_store.get_collection(self.collection)).dimension
        except NotFoundError:
            return None

    async def add_documents(
        self,
        texts: Sequence[str],
        metadatas: Sequence[Mapping[str, object] | None] | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Embed and store ``texts``; returns their ids (random hex ids when none are given).

        Lengths of ``texts``, ``metadatas`` and ``ids`` must agree (ShapeError); metadata dicts
        are copied, so later changes to the caller's dicts do not reach the store.
        """
        self._check_open()
        for name, value in (("texts", texts), ("metadatas", metadatas), ("ids", ids)):
            if value is None and name != "texts":
                continue
            if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
                raise InvalidArgumentError(
                    f"{name} must be a list, got {type(value).__name__} {shown(value)}"
                )
        n = len(texts)
        if metadatas is not None and len(metadatas) != n:
            raise ShapeError(f"metadatas has {len(metadatas)} entries but texts has {n}")
        if ids is not None and len(ids) != n:
            raise ShapeError(f"ids has {len(ids)} entries but texts has {n}")
        for i, text in enumerate(texts):
            _check_text_arg(text, f"texts[{i}]")
        if n == 0:
            return []
        metas = [
            check_metadata(m, field=f"metadatas[{i}]")
            for i, m in enumerate(metadatas or [None] * n)
        ]
        doc_ids = list(ids) if ids is not None else [uuid.uuid4().hex for _ in range(n)]
        vectors = await self.embedding_function.embed_documents(list(texts))
        if len(vectors) != n:
            raise ShapeError(
                f"embed_documents returned {len(vectors)} vectors for {n} texts; fix the "
                "embedding function"
            )
        dimension = await self._dimension()
        matrix = as_matrix(vectors, dimension or len(vectors[0]), rows=n)
        async with self._lock:
            await self._ensure_collection(matrix.shape[1])
            await self.vector_store.add(
                self.collection, doc_ids, matrix, documents=list(texts), metadatas=metas
            )
        return doc_ids

    async def query(
        self,
        text: str,
        n_results: int = 10,
        *,
        where: Where | None = None,
        rerank: bool = False,
        hybrid: bool = False,
    ) -> list[dict[str, Any]]:
        """The ``n_results`` stored texts most similar to ``text`` (score desc, ties by id)."""
        self._check_open()
        if rerank or hybrid:
            raise InvalidArgumentError(
                "SimpleVectorStore does not implement rerank or hybrid search; call query() "
                "without them (pure vector similarity)"
            )
        _check_text_arg(text, "text")
        if isinstance(n_results, bool) or not isinstance(n_results, int) or n_results < 1:
            raise InvalidArgumentError(f"n_results must be a positive int, got {shown(n_results)}")
        vector = await self.embedding_function.embed_query(text)
        if await self._dimension() is None:
            return []
        results = await self.vector_store.query(self.collection, vector, k=n_results, where=where)
        return [
            {"id": m.id, "document": m.document, "metadata": dict(m.metadata), "score": m.score}
            for m in results[0]
        ]

    async def delete(self, ids: Sequence[str]) -> int:
        """Remove ``ids``; returns how many existed."""
        self._check_open()
        if await self._dimension() is None:
            return 0
        async with self._lock:
            return await self.vector_store.delete(self.collection, ids)

    async def count(self, where: Where | None = None) -> int:
        self._check_open()
        if await self._dimension() is None:
            return 0
        return await self.vector_store.count(self.collection, where=where)

    async def get_by_id(self, id: str) -> dict[str, Any] | None:
        """``{"id", "document", "metadata"}`` of ``id``, or None if it is not stored."""
        item = await self._item(id)
        if item is None:
            return None
        return {"id": item.id, "document": item.document, "metadata": dict(item.metadata)}

    async def update_metadata(
        self, id: str, metadata: Mapping[str, object], *, replace: bool = False
    ) -> None:
        """Merge ``metadata`` into the stored metadata of ``id`` (``replace=True``: overwrite).

        Raises NotFoundError for an unknown id.
        """
        checked = check_metadata(metadata)
        async with self._lock:
            item = await self._item(id)
            if item is None:
                raise NotFoundError(f"no document with id {id!r}; add it with add_documents()")
            merged = checked if replace else {**item.metadata, **checked}
            await self.vector_store.upsert(
                self.collection,
                [id],
                [list(item.vector)],
                documents=[item.document],
                metadatas=[merged],
            )

    async def _item(self, id: str) -> VectorItem | None:
        self._check_open()
        if await self._dimension() is None:
            return None
        found = await self.vector_store.get(self.collection, [id])
        return found[0] if found else None


def _check_text_arg(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{name} must be a str, got {type(value).__name__}")
    return check_text(value, field=name)
