"""Time-expression prior: "when / how long / what year" questions favour turns that say a time.

The answer to "When did Melanie run the charity race?" is the turn that says "last Saturday",
not the one that describes the race. A question *asks for a time* when it opens (after an
optional preposition) with when / how long / how many days|weeks|months|years / what|which
year|month|day|date|time of; a candidate *states a time* when its text holds a time expression
(weekday, month, year, a date, "yesterday", "last week", "N days ago", "next month", …). Such a
candidate of such a question is multiplied by ``1 + boost``.

>>> asks_for_time("When did Melanie paint a sunrise?"), states_time("I did it last Friday!")
(True, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from remem.errors import ConfigError

__all__ = ["TimeExpressionPriorConfig", "asks_for_time", "states_time"]

_ASKS = re.compile(
    r"^\W*(?:(?:in|on|at|by|since|from|until)\s+)?(?:"
    r"when\b|how\s+long\b|how\s+many\s+(?:days|weeks|months|years|times)\b"
    r"|(?:what|which)\s+(?:year|month|day|date|time|week|season|weekend)\b"
    r")",
    re.IGNORECASE,
)
_MONTH = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_STATES = re.compile(
    r"\b(?:"
    r"yesterday|today|tonight|tomorrow|this (?:morning|evening|afternoon|week|month|year)"
    r"|(?:last|next|this past|past|coming) (?:night|week|weekend|month|year|summer|winter|"
    r"spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|(?:\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|"
    r"several) (?:days?|weeks?|months?|years?) (?:ago|back|later|before|after)"
    r"|(?:for|over) (?:the (?:last|past) )?(?:\d{1,2}|a|an|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|a few|a couple of|several) (?:days|weeks|months|years)"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend"
    rf"|(?:{_MONTH})\.?(?: \d{{1,2}}(?:st|nd|rd|th)?)?"
    r"|(?:19|20)\d\d|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"|recently|lately|ago|since"
    r")\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TimeExpressionPriorConfig:
    """``enabled``; ``boost``: the extra share of a time-stating candidate of a time question."""

    enabled: bool = True
    boost: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(
                f"time_expressions.enabled must be true or false, got {self.enabled!r}"
            )
        if not (isinstance(self.boost, int | float) and 0.0 <= self.boost <= 10.0):
            raise ConfigError(f"time_expressions.boost is {self.boost!r}; use a number in [0, 10]")


def asks_for_time(question: str) -> bool:
    """Whether ``question`` asks when / how long / which year … (see the module docstring)."""
    return _ASKS.search(question) is not None


@lru_cache(maxsize=8192)
def states_time(text: str) -> bool:
    """Whether ``text`` holds a time expression (see the module docstring). Cached: the same
    memories come back query after query, and the pattern costs ~70 µs on a long turn."""
    return _STATES.search(text) is not None
