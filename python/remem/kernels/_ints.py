"""Integer arrays for the kernels: the one conversion the façades share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem.errors import DTypeError, InvalidArgumentError


def int_array(a: ArrayLike, dtype: type[np.integer[Any]], name: str) -> NDArray[Any]:
    """``a`` as a C-contiguous ``dtype`` array: no copy when it already is one; integers outside
    the dtype's range raise InvalidArgumentError (never wrap), non-integers DTypeError."""
    if not isinstance(a, np.ndarray):
        items = list(a) if isinstance(a, Sequence) else a
        if isinstance(items, list) and not all(isinstance(x, int | np.integer) for x in items):
            raise DTypeError(f"{name} must hold integers; pass a {np.dtype(dtype)} array")
        try:
            return np.ascontiguousarray(np.array(items, dtype=dtype))
        except OverflowError as exc:
            raise InvalidArgumentError(
                f"{name} is out of range: its values must fit {np.dtype(dtype)}"
            ) from exc
    if a.dtype == dtype:
        return np.ascontiguousarray(a)
    if a.size == 0:
        return np.zeros(a.shape, dtype=dtype)
    if a.dtype.kind not in "iu":
        raise DTypeError(
            f"{name} must hold integers, got dtype {a.dtype}; pass a {np.dtype(dtype)} array"
        )
    info = np.iinfo(dtype)
    if int(a.min()) < info.min or int(a.max()) > info.max:
        raise InvalidArgumentError(
            f"{name} is out of range: its values must fit {np.dtype(dtype)} "
            f"({info.min} .. {info.max})"
        )
    return np.ascontiguousarray(a, dtype=dtype)


def int64(value: object, name: str) -> int:
    """``value`` (a scalar such as ``k`` or a budget) as a Python int that fits int64;
    InvalidArgumentError for a bool, a float, a str or an integer outside int64 (the kernel
    itself judges the sign)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InvalidArgumentError(
            f"{name} must be an int, got {type(value).__name__} {value!r:.40}"
        )
    out = int(value)
    info = np.iinfo(np.int64)
    if not info.min <= out <= info.max:
        raise InvalidArgumentError(f"{name} is {out}; it must fit int64 (|{name}| < 2**63)")
    return out
