"""Arrays and scalars for the kernels: the conversions the façades share, each turning a wrong
type or an out-of-range value into a typed error (never a TypeError, ValueError or
OverflowError from numpy or the binding)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from remem.errors import DTypeError, InvalidArgumentError, shown


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
        except (TypeError, ValueError, RecursionError) as exc:
            raise DTypeError(
                f"{name} must be an array of integers, got {type(a).__name__} ({exc}); "
                f"pass a {np.dtype(dtype)} array"
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
            f"{name} must be an int, got {type(value).__name__} {shown(value)}"
        )
    out = int(value)
    info = np.iinfo(np.int64)
    if not info.min <= out <= info.max:
        raise InvalidArgumentError(f"{name} is {out}; it must fit int64 (|{name}| < 2**63)")
    return out


_CONVERSION_ERRORS = (TypeError, ValueError, OverflowError, RecursionError)


def float_array(a: ArrayLike, dtype: type[np.floating[Any]], name: str) -> NDArray[Any]:
    """``a`` as a C-contiguous ``dtype`` array (no copy when it already is one); DTypeError
    when it does not convert (strings, objects, ragged or absurdly nested lists). Values too
    large for ``dtype`` become infinity, which the kernels refuse as non-finite."""
    if isinstance(a, np.ndarray) and a.dtype == dtype:
        return np.ascontiguousarray(a)
    try:
        with np.errstate(over="ignore"):
            return np.ascontiguousarray(a, dtype=dtype)
    except _CONVERSION_ERRORS as exc:
        raise DTypeError(
            f"{name} must be an array of numbers, got {type(a).__name__} ({exc}); "
            f"pass a {np.dtype(dtype)} array"
        ) from exc


def bool_array(a: ArrayLike, name: str) -> NDArray[np.bool_]:
    """``a`` as a C-contiguous bool array; DTypeError when it does not convert."""
    if isinstance(a, np.ndarray) and a.dtype == np.bool_:
        return np.ascontiguousarray(a)
    if isinstance(a, str | bytes) or not isinstance(a, np.ndarray | Sequence):
        raise DTypeError(f"{name} must be an array of booleans, got {type(a).__name__}")
    try:
        return np.ascontiguousarray(a, dtype=np.bool_)
    except _CONVERSION_ERRORS as exc:
        raise DTypeError(f"{name} must be an array of booleans ({exc})") from exc


def real(value: object, name: str) -> float:
    """A scalar parameter as a float; InvalidArgumentError for a bool, a str, None or an int
    too large for a float."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidArgumentError(
            f"{name} must be a number, got {type(value).__name__} {shown(value)}"
        )
    try:
        return float(value)
    except OverflowError as exc:
        raise InvalidArgumentError(
            f"{name} is too large for a float; pass a finite number"
        ) from exc


def option(value: object, name: str) -> str:
    """A named option (a metric, a strategy, an encoding) as a str; the kernel judges the name.
    InvalidArgumentError for anything else."""
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{name} must be a str, got {type(value).__name__}")
    if not value.isascii():  # every option name is ASCII; this also refuses lone surrogates
        raise InvalidArgumentError(f"{name} {shown(value)} is not a known option name")
    return value


@contextmanager
def text_arguments(name: str) -> Iterator[None]:
    """Turn the binding's refusal of a text argument (not a str or a list of str, a lone
    surrogate) into InvalidArgumentError; checking in Python first would cost a pass over
    every text on a hot path."""
    try:
        yield
    except (TypeError, UnicodeEncodeError) as exc:
        raise InvalidArgumentError(
            f"{name} must be a str or a list of str without lone surrogates ({exc})"
        ) from exc
