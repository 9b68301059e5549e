"""Speaker prior: a question that names one participant favours that participant's turns.

"What did Caroline paint?" is about what *Caroline* said or did; in a two-person conversation
half the turns that share the question's words are the other speaker's. A candidate's speaker is
``metadata["speaker"]`` of its turn or memory (the LoCoMo harness and any integration that
records who spoke set it). The participants are the speakers among the query's candidates; a
participant is *named* when each word of their name appears in the query as a whole word
(case-insensitive, a trailing possessive ``'s`` allowed). When the query names some but not all
participants, a candidate spoken by a named one is multiplied by ``1 + boost``; the others by 1.

>>> sorted(named_speakers("What did Caroline's mum paint?", {"Caroline", "Melanie"}))
['Caroline']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from remem.errors import ConfigError

__all__ = ["SpeakerPriorConfig", "named_speakers"]

_APOSTROPHES = "'\u2019"
_WORD = re.compile(rf"[^\W_]+(?:[{_APOSTROPHES}][^\W_]+)*", re.UNICODE)


@dataclass(frozen=True)
class SpeakerPriorConfig:
    """``enabled``; ``boost``: the extra share a named participant's candidates get."""

    enabled: bool = True
    boost: float = 5.0  # re-searched with MiniLM + linear fusion (benches/locomo_stages.py)

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"speaker.enabled must be true or false, got {self.enabled!r}")
        if not (isinstance(self.boost, int | float) and 0.0 <= self.boost <= 10.0):
            raise ConfigError(f"speaker.boost is {self.boost!r}; use a number in [0, 10]")


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for w in _WORD.findall(text.casefold()):
        out.add(w)
        if len(w) > 2 and w[-1] == "s" and w[-2] in _APOSTROPHES:
            out.add(w[:-2])
    return out


def named_speakers(query: str, speakers: Iterable[str]) -> frozenset[str]:
    """The participants among ``speakers`` that ``query`` names (see the module docstring);
    empty when it names none or all of them (then the prior favours nobody)."""
    pool = {s for s in speakers if s.strip()}
    if len(pool) < 2:
        return frozenset()
    words = _words(query)
    named = frozenset(s for s in pool if _words(s) and _words(s) <= words)
    return named if len(named) < len(pool) else frozenset()
