"""Date prior: a question that names a date, a month or a relative time favours what was said then.

"What did Maria donate in December 2023?" is answered by what was said in December 2023. The
windows a question names, resolved against the time it is asked (``now``):

* a day — "on 7 July, 2023", "May 3, 2023", "3 June 2023" → that day (an impossible day such
  as "31 February, 2023" falls back to its month);
* a month — "in May 2023", "December 2023" → that month; "in May" → the last May not after now;
* a relative phrase — "yesterday", "last week|month|year", "three days ago", "in 2022"
  (:func:`remem.extraction.dates.resolve_time_phrase`) → the day/week/month/year it points at.

Each window is widened by ``slack_days`` on both sides (people mention an event a few days after
it, and a session's turns straddle midnight). A candidate created inside any window is multiplied
by ``1 + boost``. A question without dates changes nothing.

>>> from datetime import UTC, datetime
>>> [(a.date().isoformat(), b.date().isoformat()) for a, b in
...  question_windows("What did she do in May 2023?", datetime(2024, 1, 1, tzinfo=UTC), 0)]
[('2023-05-01', '2023-06-01')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from remem.errors import ConfigError
from remem.extraction.dates import resolve_time_phrase

__all__ = ["DatePriorConfig", "Window", "question_windows"]

Window = tuple[datetime, datetime]
"""``[start, end)`` in UTC."""

_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_M = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_FIRST = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_M})\.?,?\s+((?:19|20)\d\d)\b", re.I
)
_MONTH_FIRST = re.compile(rf"\b({_M})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b", re.I)
_MONTH_YEAR = re.compile(rf"\b({_M})\.?,?\s+((?:19|20)\d\d)\b", re.I)
_MONTH_ONLY = re.compile(rf"\b(?:in|during|of|since)\s+({_M})\b(?!\s*\d)", re.I)
_RELATIVE_SPAN = re.compile(
    r"\b(?:(yesterday)|last (week|month|year)|(?:\d{1,2}|a|an|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|a few|a couple of|several) (day|week|month|year)s? ago"
    r"|(?:in|since) ((?:19|20)\d\d))\b",
    re.I,
)
_SPAN = {"day": timedelta(days=1), "week": timedelta(days=7), "month": timedelta(days=31)}


@dataclass(frozen=True)
class DatePriorConfig:
    """``enabled``; ``boost``: the extra share of a candidate dated inside a window;
    ``slack_days``: how far each window is widened on both sides."""

    enabled: bool = True
    boost: float = 3.0  # re-searched with MiniLM + linear fusion (benches/locomo_stages.py)
    slack_days: float = 7.0

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"dates.enabled must be true or false, got {self.enabled!r}")
        if not (isinstance(self.boost, int | float) and 0.0 <= self.boost <= 10.0):
            raise ConfigError(f"dates.boost is {self.boost!r}; use a number in [0, 10]")
        if not (isinstance(self.slack_days, int | float) and 0.0 <= self.slack_days <= 60.0):
            raise ConfigError(f"dates.slack_days is {self.slack_days!r}; use 0..60 days")


def _month(year: int, month: int) -> Window:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _day(year: int, month: int, day: int) -> Window | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None  # "31 February": not a day; the month pattern still finds "February, 2023"
    return start, start + timedelta(days=1)


def question_windows(question: str, now: datetime, slack_days: float) -> list[Window]:
    """The windows ``question`` names (see the module docstring), widened by ``slack_days``."""
    found: list[Window] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= a or m.start() >= b for a, b in taken)

    for m in _DAY_FIRST.finditer(question):
        w = _day(int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
        if w is not None:
            found.append(w)
            taken.append(m.span())
    for m in _MONTH_FIRST.finditer(question):
        w = _day(int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
        if free(m) and w is not None:
            found.append(w)
            taken.append(m.span())
    for m in _MONTH_YEAR.finditer(question):
        if free(m):
            found.append(_month(int(m[2]), _MONTHS[m[1].lower()]))
            taken.append(m.span())
    at = now.astimezone(UTC)
    for m in _MONTH_ONLY.finditer(question):
        if free(m):
            month = _MONTHS[m[1].lower()]
            found.append(_month(at.year if month <= at.month else at.year - 1, month))
            taken.append(m.span())
    for m in _RELATIVE_SPAN.finditer(question):
        if not free(m):
            continue
        start = resolve_time_phrase(m[0], at)
        if start is None:
            continue
        if m[4]:
            found.append((start, datetime(start.year + 1, 1, 1, tzinfo=UTC)))
            continue
        unit = (m[2] or m[3] or "day").lower()
        span = _SPAN.get(unit, timedelta(days=366))
        found.append((start, start + span))
    slack = timedelta(days=slack_days)
    return [(a - slack, b + slack) for a, b in found]
