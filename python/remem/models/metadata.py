"""Metadata values: flat, JSON-safe scalars that every backend can filter on."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated

import pydantic

from remem.errors import InvalidArgumentError
from remem.models.text import check_text

Scalar = str | int | float | bool | None
"""A metadata value: what $eq/$in/$gt/... filters compare."""


def check_metadata(
    metadata: Mapping[str, object] | None, *, field: str = "metadata"
) -> dict[str, Scalar]:
    """Return a fresh dict copy of ``metadata``, or raise InvalidArgumentError.

    Keys are non-empty strings without NUL; values are str/int/float/bool/None, floats finite. A
    fresh dict is returned so that metadata is never shared between documents.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidArgumentError(f"{field} must be a mapping, got {type(metadata).__name__}")
    out: dict[str, Scalar] = {}
    for key, value in metadata.items():
        if not isinstance(key, str) or not key:
            raise InvalidArgumentError(f"{field} keys must be non-empty strings, got {key!r}")
        check_text(key, field=f"{field} key")
        if isinstance(value, str):
            check_text(value, field=f"{field}[{key!r}]")
        elif isinstance(value, float) and not math.isfinite(value):
            raise InvalidArgumentError(
                f"{field}[{key!r}] is {value}; only finite numbers are allowed"
            )
        elif value is not None and not isinstance(value, bool | int | float):
            raise InvalidArgumentError(
                f"{field}[{key!r}] has type {type(value).__name__}; "
                "use str, int, float, bool or None (flatten nested values)"
            )
        out[key] = value
    return out


def _validate(value: dict[str, object]) -> dict[str, Scalar]:
    try:
        return check_metadata(value)
    except InvalidArgumentError as exc:
        raise ValueError(str(exc)) from exc


Metadata = Annotated[dict[str, object], pydantic.AfterValidator(_validate)]
"""A metadata field: validated and copied."""
