"""Validation shared by every VectorStore backend, so that all of them refuse the same input.

Everything here runs before a backend touches its storage: a batch that fails validation leaves
the store unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from remem.errors import (
    DimensionMismatchError,
    DuplicateIdError,
    EmbeddingModelMismatchError,
    InvalidArgumentError,
    NonFiniteError,
    ShapeError,
    shown,
)
from remem.models import CollectionInfo, Metric, VectorMatch, check_metadata, check_text
from remem.models.metadata import Scalar
from remem.stores.vector import ScoredId

MAX_ID_LENGTH = 512


@dataclass(frozen=True, slots=True)
class Batch:
    """A validated write: ``vectors`` is float32 (n, d) C-contiguous; metadata dicts are copies."""

    ids: list[str]
    vectors: NDArray[np.float32]
    documents: list[str | None]
    metadatas: list[dict[str, Scalar]]

    def __len__(self) -> int:
        return len(self.ids)


def check_id(value: object, *, field: str = "id") -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArgumentError(f"{field} must be a non-empty string, got {shown(value)}")
    if len(value) > MAX_ID_LENGTH:
        raise InvalidArgumentError(
            f"{field} is {len(value)} characters; ids are at most {MAX_ID_LENGTH}"
        )
    return check_text(value, field=field)


def check_collection(name: object) -> str:
    """A collection name every backend can look up, or InvalidArgumentError."""
    return check_id(name, field="collection")


def check_ids(ids: Sequence[str], *, unique: bool = True) -> list[str]:
    if isinstance(ids, str) or not isinstance(ids, Sequence):
        raise InvalidArgumentError("ids must be a list of strings, not a single string")
    out = [check_id(v, field=f"ids[{i}]") for i, v in enumerate(ids)]
    if unique and len(set(out)) != len(out):
        seen: set[str] = set()
        dup = next(v for v in out if v in seen or seen.add(v))  # type: ignore[func-returns-value]
        raise DuplicateIdError(f"ids contains {dup!r} more than once; pass each id once")
    return out


def as_matrix(
    vectors: object, dimension: int, *, rows: int | None, field: str = "vectors"
) -> NDArray[np.float32]:
    """``vectors`` as a finite float32 (n, dimension) C-contiguous array, or a typed error."""
    try:
        arr = np.asarray(vectors, dtype=np.float32)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise ShapeError(
            f"{field} must be a rectangular array of numbers ({exc}); give every row "
            f"{dimension} floats"
        ) from exc
    if arr.size == 0 and rows == 0:
        return np.zeros((0, dimension), dtype=np.float32)
    if arr.ndim != 2:
        raise ShapeError(f"{field} must be 2-d (n, {dimension}), got shape {arr.shape}")
    if rows is not None and arr.shape[0] != rows:
        raise ShapeError(f"{field} has {arr.shape[0]} rows but {rows} ids were given")
    if arr.shape[1] != dimension and arr.shape[0] > 0:
        raise DimensionMismatchError(
            f"{field} have dimension {arr.shape[1]} but the collection's dimension is "
            f"{dimension}; embed with the collection's model"
        )
    if not np.isfinite(arr).all():
        bad = int(np.argwhere(~np.isfinite(arr))[0][0])
        raise NonFiniteError(f"{field}[{bad}] contains NaN or infinity; pass finite floats")
    check_norms(arr, field=field)
    return np.ascontiguousarray(arr.reshape(arr.shape[0], dimension))


MAX_NORM = float(np.sqrt(np.finfo(np.float32).max))
"""The longest vector accepted (~1.8e19): beyond it the float32 sum of squares a cosine index
computes overflows to infinity, and the vector could never be recalled."""


def check_norms(matrix: NDArray[np.float32], *, field: str = "vectors") -> None:
    """NonFiniteError when a row of the finite 2-d ``matrix`` is longer than :data:`MAX_NORM`."""
    if matrix.size == 0:
        return
    norms = np.sqrt(np.square(matrix, dtype=np.float64).sum(axis=-1)).reshape(-1)
    too_long = np.flatnonzero(norms >= MAX_NORM)
    if too_long.size:
        row = int(too_long[0])
        raise NonFiniteError(
            f"{field}[{row}] has length {norms[row]:.3g}, whose float32 norm overflows; "
            f"scale it below {MAX_NORM:.3g} (embedders return unit-length vectors)"
        )


def batch_of(
    info: CollectionInfo,
    checked: list[str],
    vectors: object,
    documents: Sequence[str | None] | None,
    metadatas: Sequence[Mapping[str, object] | None] | None,
) -> Batch:
    """Validate one add/upsert batch (ids that :func:`check_ids` passed) against ``info``;
    raise before anything is written."""
    n = len(checked)
    matrix = as_matrix(vectors, info.dimension, rows=n)
    docs: list[str | None] = [None] * n
    if documents is not None:
        if isinstance(documents, str) or len(documents) != n:
            raise ShapeError(f"documents must be a list of {n} entries, one per id")
        for i, doc in enumerate(documents):
            if doc is not None and not isinstance(doc, str):
                raise InvalidArgumentError(f"documents[{i}] must be str or None")
            docs[i] = None if doc is None else check_text(doc, field=f"documents[{i}]")
    metas: list[dict[str, Scalar]] = [{} for _ in range(n)]
    if metadatas is not None:
        if isinstance(metadatas, Mapping) or len(metadatas) != n:
            raise ShapeError(f"metadatas must be a list of {n} entries, one per id")
        metas = [check_metadata(m, field=f"metadatas[{i}]") for i, m in enumerate(metadatas)]
    return Batch(checked, matrix, docs, metas)


MAX_K = 2**31 - 1
"""A query's ``k`` beyond this is read as this: more than any collection holds, so the answer
(``min(k, eligible items)``) is the same, and every backend's arithmetic on it (pgvector's
``LIMIT k * overfetch``, the native top-k's int64) stays in range."""


def check_k(k: object) -> int:
    """``k`` (at most :data:`MAX_K`) if it is a positive int (not a bool), else
    InvalidArgumentError."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
    return min(k, MAX_K)


def prepare_queries(info: CollectionInfo, vectors: object, k: int) -> NDArray[np.float32]:
    """One vector (d,) or a batch (q, d) as a float32 (q, d) matrix; ``k`` checked too."""
    check_k(k)
    try:
        arr = np.asarray(vectors, dtype=np.float32)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise ShapeError(f"query vectors must be a rectangular array of numbers ({exc})") from exc
    if arr.ndim == 1:
        arr = arr[None, :]
    return as_matrix(arr, info.dimension, rows=None, field="query vectors")


def unit_rows(matrix: NDArray[np.float32]) -> NDArray[np.float32]:
    """Rows scaled to unit length (zero rows stay zero), for cosine indexes."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    safe = np.where(norms > 0, norms, 1.0).astype(np.float32)
    return np.ascontiguousarray(matrix / safe, dtype=np.float32)


def for_metric(matrix: NDArray[np.float32], metric: Metric) -> NDArray[np.float32]:
    return unit_rows(matrix) if metric is Metric.COSINE else matrix


def check_reopen(existing: CollectionInfo, model_name: str, dimension: int, metric: Metric) -> None:
    """Refuse to open ``existing`` with another model, dimension or metric (without reembed)."""
    if existing.model_name != model_name:
        raise EmbeddingModelMismatchError(
            f"collection {existing.name!r} was built with model {existing.model_name!r}, not "
            f"{model_name!r}; use that model or pass reembed=True to empty it for re-embedding"
        )
    if existing.dimension != dimension:
        raise DimensionMismatchError(
            f"collection {existing.name!r} has dimension {existing.dimension}, not {dimension}; "
            "pass reembed=True to empty it for re-embedding"
        )
    if existing.metric is not metric:
        raise InvalidArgumentError(
            f"collection {existing.name!r} uses metric {existing.metric.value!r}, not "
            f"{metric.value!r}; pass reembed=True to rebuild it with the new metric"
        )


def ranked(matches: list[VectorMatch], k: int) -> list[VectorMatch]:
    """Score descending, ties by id ascending, at most ``k``."""
    return sorted(matches, key=lambda m: (-m.score, m.id))[:k]


def ranked_ids(hits: list[ScoredId], k: int) -> list[ScoredId]:
    """:func:`ranked` for :class:`~remem.stores.vector.ScoredId` pairs: the same order and cut."""
    return sorted(hits, key=lambda h: (-h.score, h.id))[:k]
