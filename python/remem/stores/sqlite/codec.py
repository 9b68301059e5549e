"""How SQLite columns encode times and metadata: exact, sortable, round-trippable."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from remem.models.metadata import Scalar

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def to_micros(value: datetime) -> int:
    """An aware datetime as integer microseconds since the Unix epoch (exact, sortable)."""
    return (value - _EPOCH) // _MICROSECOND


def from_micros(value: int) -> datetime:
    return _EPOCH + timedelta(microseconds=value)


def dump_metadata(metadata: Mapping[str, Scalar] | Mapping[str, object]) -> str:
    if not metadata:
        return "{}"
    return json.dumps(metadata, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def load_metadata(text: str) -> dict[str, object]:
    if text == "{}":
        return {}
    loaded: dict[str, object] = json.loads(text)
    return loaded
