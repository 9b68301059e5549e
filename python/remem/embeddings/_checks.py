"""Input and output checks shared by every embedder (one place for the contract's edges)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from remem.errors import ConfigError, DTypeError, InvalidArgumentError, NonFiniteError, ShapeError


class DimensionUnknownError(ConfigError, AttributeError):
    """``dimension`` read before the first call taught it.

    Also an AttributeError so that ``hasattr``-based checks (``isinstance`` against the
    runtime-checkable protocol on Python 3.11) see a missing attribute instead of crashing.
    """


def check_texts(texts: Sequence[str]) -> list[str]:
    """Return ``texts`` as a list after checking it is a sequence of encodable strings."""
    if isinstance(texts, str | bytes):
        raise InvalidArgumentError(
            "texts must be a sequence of strings, not a single string; wrap it in a list"
        )
    out = list(texts)
    for i, text in enumerate(out):
        check_text(text, where=f"texts[{i}]")
    return out


def check_text(text: str, *, where: str = "text") -> str:
    """Check one text is a ``str`` that UTF-8 can encode (no lone surrogates)."""
    if not isinstance(text, str):
        raise InvalidArgumentError(f"{where} must be a str, got {type(text).__name__}")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidArgumentError(
                f"{where} contains a lone surrogate at position {exc.start}; "
                "decode the source text with errors='replace' first"
            ) from exc
    return text


def check_matrix(
    array: NDArray[np.float32], *, rows: int, dimension: int | None, source: str
) -> NDArray[np.float32]:
    """Check an embedder's output: float32, C-contiguous, ``(rows, dimension)``, finite."""
    if array.dtype != np.float32:
        raise DTypeError(f"{source} returned dtype {array.dtype}, expected float32")
    if not array.flags.c_contiguous:
        raise DTypeError(f"{source} returned a non-C-contiguous array")
    if array.ndim != 2 or array.shape[0] != rows:
        raise ShapeError(f"{source} returned shape {array.shape}, expected ({rows}, dimension)")
    if dimension is not None and array.shape[1] != dimension:
        raise ShapeError(
            f"{source} returned vectors of dimension {array.shape[1]}, expected {dimension}"
        )
    if not np.isfinite(array).all():
        bad = int(np.argwhere(~np.isfinite(array))[0][0])
        raise NonFiniteError(f"{source} returned a NaN or infinite value in vector {bad}")
    return array


def first_row(matrix: NDArray[np.float32]) -> NDArray[np.float32]:
    """Row 0 of a ``(1, d)`` result as a C-contiguous ``(d,)`` array (a view, no copy)."""
    row: NDArray[np.float32] = matrix[0]
    return row


def to_matrix(
    values: object, *, rows: int, dimension: int | None, source: str
) -> NDArray[np.float32]:
    """List-of-lists (or an array) as a checked float32 matrix; ragged rows are a ShapeError."""
    try:
        array64 = np.asarray(values, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise ShapeError(
            f"{source} returned something that is not a rectangular list of numbers: {exc}"
        ) from exc
    if array64.ndim != 2 or array64.shape[0] != rows:
        raise ShapeError(f"{source} returned shape {array64.shape}, expected ({rows}, dimension)")
    if not np.isfinite(array64).all():
        bad = int(np.argwhere(~np.isfinite(array64))[0][0])
        raise NonFiniteError(f"{source} returned a NaN or infinite value in vector {bad}")
    with np.errstate(over="ignore"):
        array = np.ascontiguousarray(array64, dtype=np.float32)
    return check_matrix(array, rows=rows, dimension=dimension, source=source)
