"""Aware-datetime helpers shared by the lifecycle scorers."""

from __future__ import annotations

from datetime import UTC, datetime

from remem.errors import NaiveDatetimeError


def epoch_seconds(value: datetime, name: str) -> float:
    """UNIX seconds of an aware datetime; a naive one raises NaiveDatetimeError."""
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise NaiveDatetimeError(
            f"{name} is a naive datetime ({value.isoformat()}); attach a timezone, "
            "e.g. value.replace(tzinfo=timezone.utc)"
        )
    return value.timestamp()


def now_or(value: datetime | None, name: str = "now") -> float:
    """UNIX seconds of ``value`` (validated), or of the current UTC time when None."""
    return epoch_seconds(datetime.now(UTC) if value is None else value, name)


def hours_between(now: float, then: float) -> float:
    """Hours from ``then`` to ``now``; a ``then`` in the future (clock skew) counts as 0."""
    return max(0.0, (now - then) / 3600.0)
