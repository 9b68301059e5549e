"""Time: aware UTC datetimes only, and an injectable clock.

Every time-dependent component takes a :class:`Clock`, so tests and simulations advance time
explicitly instead of sleeping.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Protocol, runtime_checkable

import pydantic

from remem.errors import InputError, InvalidArgumentError, NaiveDatetimeError, shown


def require_aware(value: datetime, *, field: str = "datetime") -> datetime:
    """Return ``value`` converted to UTC; raise NaiveDatetimeError if it has no timezone and
    InvalidArgumentError if it is not a datetime."""
    if not isinstance(value, datetime):
        raise InvalidArgumentError(
            f"{field} must be an aware datetime, got {type(value).__name__} {shown(value)}; "
            "pass e.g. datetime.now(timezone.utc)"
        )
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise NaiveDatetimeError(
            f"{field} {value.isoformat()} has no timezone; pass an aware datetime, "
            "e.g. datetime.now(timezone.utc)"
        )
    return value.astimezone(UTC)


def _validate(value: datetime) -> datetime:
    try:
        return require_aware(value)
    except NaiveDatetimeError as exc:
        raise ValueError(str(exc)) from exc


UTCDateTime = Annotated[datetime, pydantic.AfterValidator(_validate)]
"""A datetime field that must be timezone-aware; stored and returned in UTC."""


@runtime_checkable
class Clock(Protocol):
    """Something that tells the current time as an aware UTC datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that only moves when told to; for tests and simulated time-lapses."""

    def __init__(self, start: datetime) -> None:
        self._now = require_aware(start, field="start")

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move forward by ``delta`` (never backwards) and return the new time."""
        if delta < timedelta(0):
            raise InputError(f"a clock cannot go backwards (delta={delta}); use set() to jump")
        self._now += delta
        return self._now

    def set(self, when: datetime) -> None:
        self._now = require_aware(when, field="when")
