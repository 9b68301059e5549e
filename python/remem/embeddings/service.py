"""The EmbeddingService protocol: texts in, float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray


@runtime_checkable
class EmbeddingService(Protocol):
    """Turns texts into vectors of one fixed model and dimension.

    Contract (every implementation in :mod:`remem.embeddings`):

    - ``embed_documents(texts)`` returns an ``(len(texts), dimension)`` array and
      ``embed_query(text)`` a ``(dimension,)`` array; both float32, C-contiguous, finite, fresh
      (the caller may modify them). An empty ``texts`` gives shape ``(0, dimension)``.
    - ``texts`` is a sequence of ``str``; a bare ``str``, a non-string element or a lone
      surrogate raises :class:`~remem.errors.InvalidArgumentError`.
    - ``model_name`` identifies the model *and every parameter that changes its vectors*; a
      vector store records it so that a collection built by another model is detected.
    - ``dimension`` is the vector length. An adapter that learns it from its first call raises
      :class:`~remem.errors.ConfigError` when it is read before then.
    - Optional: ``embed_queries(texts)``, the ``(len(texts), dimension)`` query vectors in one
      call, row ``i`` bit-identical to ``embed_query(texts[i])`` (so a batch recall ranks as
      recalls one by one). :func:`embed_queries` uses it when present, else ``embed_query``
      per text.

    Example::

        service = HashingEmbedder()
        vectors = await service.embed_documents(["hello", "world"])   # (2, 384) float32
    """

    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]: ...

    async def embed_query(self, text: str) -> NDArray[np.float32]: ...


async def embed_queries(embedder: EmbeddingService, texts: Sequence[str]) -> NDArray[np.float32]:
    """One ``(len(texts), dimension)`` float32 batch of query vectors: the embedder's
    ``embed_queries`` when it has one (see :class:`EmbeddingService`), else ``embed_query`` per
    text."""
    batched = getattr(embedder, "embed_queries", None)
    if callable(batched):
        out = await batched(list(texts))
        return np.ascontiguousarray(out, dtype=np.float32)
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    rows = [await embedder.embed_query(t) for t in texts]
    return np.ascontiguousarray(np.stack(rows), dtype=np.float32)
