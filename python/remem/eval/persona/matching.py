"""Does a text mention a value? Robust to case, accents, punctuation and aliases.

Both sides are normalised (NFKD with accents dropped, lower case, every run of non-alphanumeric
characters a single space) and the value must occur on word boundaries (a plural ending is
allowed: "software engineers"), so "Porto" is not found in "Portobello" and "Kraków" is found in
"krakow,". Any alias of the value counts
(:func:`~remem.eval.persona.values.aliases_of`).

    mentions("The commute from ALFAMA is brutal!", "Lisbon")   # True: Alfama is an alias
    mentions("Portobello Road", "Porto")                      # False
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from remem.eval.persona.values import aliases_of

__all__ = ["mentions", "mentions_any", "normalise"]


def normalise(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    # ø and ß do not decompose; map the ones our pools use.
    stripped = stripped.replace("ø", "o").replace("Ø", "O").replace("ß", "ss")
    return " ".join(re.sub(r"[^0-9a-z]+", " ", stripped.lower()).split())


@lru_cache(maxsize=4096)
def _pattern(value: str) -> re.Pattern[str]:
    forms = sorted({normalise(a) for a in aliases_of(value)} - {""}, key=len, reverse=True)
    return re.compile(
        r"(?<![0-9a-z])(?:" + "|".join(map(re.escape, forms)) + r")(?:s|es)?(?![0-9a-z])"
    )


def mentions(text: str, value: str) -> bool:
    """True when ``text`` names ``value`` or one of its aliases (see module docstring)."""
    if not normalise(value):
        return False
    return _pattern(value).search(normalise(text)) is not None


def mentions_any(text: str, values: Iterable[str]) -> bool:
    normalised = normalise(text)
    return any(normalise(v) and _pattern(v).search(normalised) is not None for v in values)
