"""as_embedding_service: wrap a duck-typed embedding function in the checked protocol."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from remem.embeddings._checks import (
    DimensionUnknownError,
    check_text,
    check_texts,
    first_row,
    to_matrix,
)
from remem.embeddings.service import EmbeddingService
from remem.errors import ConfigError, InvalidArgumentError

__all__ = ["EmbeddingFunctionAdapter", "as_embedding_service"]


class EmbeddingFunctionAdapter:
    """An :class:`EmbeddingService` over any object with ``embed_documents``/``embed_query``.

    The wrapped methods may be async or plain and may return lists of floats or numpy arrays.
    Every result is checked (count, rectangular, dimension, finite → ShapeError/NonFiniteError)
    and converted to a fresh float32 C-contiguous array. When ``dimension`` is not given it is
    learnt from the first result and enforced from then on.
    """

    def __init__(self, inner: object, *, model_name: str, dimension: int | None) -> None:
        for method in ("embed_documents", "embed_query"):
            if not callable(getattr(inner, method, None)):
                raise InvalidArgumentError(
                    f"{type(inner).__name__} has no {method}() method; an embedding function "
                    "needs both embed_documents(texts) and embed_query(text)"
                )
        if dimension is not None and (not isinstance(dimension, int) or dimension < 1):
            raise ConfigError(f"dimension must be a positive int, got {dimension!r}")
        if not model_name:
            raise ConfigError("model_name must be a non-empty string")
        self._inner = inner
        self._model_name = model_name
        self._dimension = dimension

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            raise DimensionUnknownError(
                f"the dimension of {self._model_name!r} is not known until its first embed call; "
                "pass dimension= to as_embedding_service or embed one text first"
            )
        return self._dimension

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        batch = check_texts(texts)
        if not batch:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        result = self._inner.embed_documents(batch)  # type: ignore[attr-defined]
        if inspect.isawaitable(result):
            result = await result
        matrix = to_matrix(
            result, rows=len(batch), dimension=self._dimension, source=self._model_name
        )
        self._dimension = matrix.shape[1]
        return matrix

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        result = self._inner.embed_query(check_text(text))  # type: ignore[attr-defined]
        if inspect.isawaitable(result):
            result = await result
        matrix = to_matrix([result], rows=1, dimension=self._dimension, source=self._model_name)
        self._dimension = matrix.shape[1]
        return first_row(matrix)


def as_embedding_service(
    obj: object, *, model_name: str | None = None, dimension: int | None = None
) -> EmbeddingService:
    """``obj`` as a checked :class:`EmbeddingService`.

    remem's own embedders are returned unchanged. Anything else with ``embed_documents`` and
    ``embed_query`` (the seed's duck-typed embedding functions returning ``list[list[float]]``)
    is wrapped in :class:`EmbeddingFunctionAdapter`. ``model_name`` defaults to the object's own
    ``model_name`` attribute, else its class's qualified name; ``dimension`` to its
    ``dimension`` attribute, else it is discovered on the first call.

    Example::

        service = as_embedding_service(DemoEmbeddings(), model_name="demo-v1")
        v = await service.embed_query("hello")   # float32, checked
    """
    from remem.embeddings.cached import CachedEmbedder
    from remem.embeddings.hashing import HashingEmbedder
    from remem.embeddings.openai_compatible import OpenAICompatibleEmbedder
    from remem.embeddings.sentence_transformer import SentenceTransformerEmbedder

    own = (
        HashingEmbedder,
        CachedEmbedder,
        OpenAICompatibleEmbedder,
        SentenceTransformerEmbedder,
        EmbeddingFunctionAdapter,
    )
    if isinstance(obj, own) and model_name is None and dimension is None:
        return obj
    if model_name is None:
        attr = getattr(obj, "model_name", None)
        cls = type(obj)
        model_name = (
            attr if isinstance(attr, str) and attr else f"{cls.__module__}.{cls.__qualname__}"
        )
    if dimension is None:
        attr = getattr(obj, "dimension", None)
        dimension = attr if isinstance(attr, int) and not isinstance(attr, bool) else None
    return EmbeddingFunctionAdapter(obj, model_name=model_name, dimension=dimension)
