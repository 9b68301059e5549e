"""Text that every backend can store unchanged.

PostgreSQL rejects NUL bytes and no backend can encode a lone surrogate as UTF-8. Rather than let
one backend fail where another succeeds (or silently mangle the text), remem rejects both up front,
so the same input behaves the same on SQLite, DuckDB and PostgreSQL.
"""

from __future__ import annotations

from typing import Annotated

import pydantic

from remem.errors import InvalidArgumentError


def check_text(value: str, *, field: str = "text") -> str:
    """Return ``value`` unchanged; raise InvalidArgumentError on a NUL byte or lone surrogate."""
    if "\x00" in value:
        raise InvalidArgumentError(
            f"{field} contains a NUL byte at position {value.index(chr(0))}; "
            "remove it before storing"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgumentError(
            f"{field} contains a lone surrogate at position {exc.start}; "
            "decode the source with errors='replace' before storing"
        ) from exc
    return value


def _validate(value: str) -> str:
    try:
        return check_text(value)
    except InvalidArgumentError as exc:
        raise ValueError(str(exc)) from exc


StoredText = Annotated[str, pydantic.AfterValidator(_validate)]
"""A str field that must be storable by every backend (no NUL, no lone surrogate)."""

Identifier = Annotated[
    str,
    pydantic.StringConstraints(min_length=1, max_length=512),
    pydantic.AfterValidator(_validate),
]
"""A non-empty id of at most 512 characters, storable by every backend."""
