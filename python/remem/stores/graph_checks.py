"""Argument checks shared by every GraphStore backend, so they refuse the same input alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from remem.errors import InvalidArgumentError, NotFoundError
from remem.stores.record_rows import check_ids, check_time

DIRECTIONS = ("out", "in", "both")


def check_direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise InvalidArgumentError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    return direction


def check_at(at: datetime | None) -> datetime | None:
    return None if at is None else check_time(at, field="at")


def check_depth(depth: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InvalidArgumentError(f"depth must be an integer ≥ 1, got {depth!r}")
    return depth


def check_counts(counts: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(counts, Mapping):
        raise InvalidArgumentError(
            f"record_access takes a mapping of entity id to count, got {type(counts).__name__}"
        )
    out: dict[str, int] = {}
    for key, value in counts.items():
        check_ids([key], action="record_access")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidArgumentError(
                f"record_access: count for {key!r} is {value!r}; counts are integers ≥ 0"
            )
        out[key] = value
    return out


def check_name(name: str) -> str:
    if not isinstance(name, str):
        raise InvalidArgumentError(f"find_entities takes a name string, got {type(name).__name__}")
    return name


def missing_entities(missing: Sequence[str], *, action: str, what: str = "entity") -> NotFoundError:
    shown = list(missing)[:10]
    more = f" and {len(missing) - len(shown)} more" if len(missing) > len(shown) else ""
    return NotFoundError(
        f"{action}: unknown {what} ids {shown}{more}; check the ids or add them first"
    )
