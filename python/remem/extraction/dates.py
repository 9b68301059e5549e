"""Relative time phrases in a statement, resolved against the time of the turn that says them.

``"I moved to Lisbon last month"`` said on 2026-05-14 began on 2026-04-14; ``"in 2019"`` is
2019-01-01; ``"in March"`` is the last 1 March not after the turn; ``"for three years"`` (as in
"I've lived here for three years") is three years before the turn. Only the first phrase of a
statement counts. Results are dates at midnight UTC: a day is the precision people speak in.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

__all__ = ["TIME_PHRASE", "resolve_time_phrase"]

_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a few": 3,
    "a couple of": 2,
    "several": 3,
}
_COUNT = (
    r"(?P<n>\d{1,2}|a couple of|a few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"

TIME_PHRASE = re.compile(
    r"\b(?:"
    r"(?P<yesterday>yesterday)|(?P<today>today|this morning|tonight|this evening)"
    r"|last (?P<last>week|month|year)"
    rf"|{_COUNT} {_UNIT} ago"
    rf"|for (?:the (?:last|past) )?{_COUNT.replace('P<n>', 'P<n2>')} "
    rf"{_UNIT.replace('P<unit>', 'P<unit2>')}"
    r"|(?:in|since) (?P<year>(?:19|20)\d\d)"
    rf"|(?:in|since) (?P<month>{'|'.join(_MONTHS)})\b"
    r")",
    re.IGNORECASE,
)
"""The phrases :func:`resolve_time_phrase` understands (also used to trim values)."""


def _months_back(at: datetime, months: int) -> datetime:
    total = at.year * 12 + (at.month - 1) - months
    year, month = divmod(total, 12)
    month += 1
    for day in (at.day, 30, 29, 28):  # clamp 31 March - 1 month to 28/29/30 February
        try:
            return at.replace(year=year, month=month, day=day)
        except ValueError:
            continue
    raise AssertionError("unreachable: day 28 exists in every month")


def _back(at: datetime, n: int, unit: str) -> datetime:
    unit = unit.lower()
    if unit == "day":
        return at - timedelta(days=n)
    if unit == "week":
        return at - timedelta(weeks=n)
    return _months_back(at, n * (12 if unit == "year" else 1))


def _midnight(at: datetime) -> datetime:
    return datetime(at.year, at.month, at.day, tzinfo=UTC)


def resolve_time_phrase(text: str, at: datetime) -> datetime | None:
    """The date the first time phrase of ``text`` points at, seen from ``at``; None if none.

    >>> resolve_time_phrase("I moved here last month", datetime(2026, 5, 14, tzinfo=UTC))
    datetime.datetime(2026, 4, 14, 0, 0, tzinfo=datetime.timezone.utc)
    """
    m = TIME_PHRASE.search(text)
    if m is None:
        return None
    at = at.astimezone(UTC)
    g = m.groupdict()
    if g["yesterday"]:
        return _midnight(at - timedelta(days=1))
    if g["today"]:
        return _midnight(at)
    if g["last"]:
        return _midnight(_back(at, 1, g["last"]))
    for n_key, unit_key in (("n", "unit"), ("n2", "unit2")):
        if g[n_key]:
            raw = g[n_key].lower()
            n = int(raw) if raw.isdigit() else _NUMBERS[raw]
            return _midnight(_back(at, n, g[unit_key]))
    if g["year"]:
        return datetime(int(g["year"]), 1, 1, tzinfo=UTC)
    month = _MONTHS.index(g["month"].lower()) + 1
    year = at.year if month <= at.month else at.year - 1
    return datetime(year, month, 1, tzinfo=UTC)
