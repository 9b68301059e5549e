"""Argument checks shared by every GraphStore backend, so they refuse the same input alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from remem.errors import InvalidArgumentError, NotFoundError, shown
from remem.models import check_text
from remem.stores.shared.record_rows import check_ids, check_time

DIRECTIONS = ("out", "in", "both")
MAX_COUNT = 2**62
"""The largest access count one ``record_access`` adds (the column is a 64-bit integer)."""
MAX_DEPTH = 2**31 - 1
"""Walks deeper than this are walked to this depth: a walk never revisits an entity, so no
graph that fits in a database has a longer one, and the SQL depth counter stays an integer."""


def check_direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise InvalidArgumentError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    return direction


def check_at(at: datetime | None) -> datetime | None:
    return None if at is None else check_time(at, field="at")


def check_required_at(at: datetime) -> datetime:
    """A time that must be given (a supersession's)."""
    if at is None:
        raise InvalidArgumentError("at must be a timezone-aware datetime, got None")
    return check_time(at, field="at")


def check_depth(depth: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InvalidArgumentError(f"depth must be an integer ≥ 1, got {depth!r}")
    return min(depth, MAX_DEPTH)


def check_counts(counts: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(counts, Mapping):
        raise InvalidArgumentError(
            f"record_access takes a mapping of entity id to count, got {type(counts).__name__}"
        )
    out: dict[str, int] = {}
    for key, value in counts.items():
        check_ids([key], action="record_access")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
            raise InvalidArgumentError(
                f"record_access: count for {key!r} is {shown(value)}; counts are integers "
                f"from 0 to {MAX_COUNT}"
            )
        out[key] = value
    return out


def check_name(name: str) -> str:
    if not isinstance(name, str):
        raise InvalidArgumentError(f"find_entities takes a name string, got {type(name).__name__}")
    return check_text(name, field="find_entities name")


def missing_entities(missing: Sequence[str], *, action: str, what: str = "entity") -> NotFoundError:
    shown = list(missing)[:10]
    more = f" and {len(missing) - len(shown)} more" if len(missing) > len(shown) else ""
    return NotFoundError(
        f"{action}: unknown {what} ids {shown}{more}; check the ids or add them first"
    )
