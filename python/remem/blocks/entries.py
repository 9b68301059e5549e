"""What a block entry may be, and when two entries count as the same fact.

An entry is one line of plain text. On the way in, runs of whitespace (line breaks included)
collapse to one space and the ends are stripped, so that one entry is one rendered line and the
size the model is shown is the size that is stored. Empty entries, NUL characters and lone
surrogates (which no store can hold) are refused with :class:`InvalidArgumentError`.

Duplicates: two entries are compared by their *key* — casefolded, whitespace collapsed, trailing
``.,;:!`` dropped. Equal keys are an exact duplicate. Otherwise they are a near duplicate when
``rapidfuzz.fuzz.ratio`` of the keys (normalised Indel similarity, 0-100) is at least
:data:`NEAR_DUPLICATE_THRESHOLD` (92). At 92 a one-character typo is caught in entries of 13+
characters, while short facts that differ in one word ("Has a dog named Rex" / "... Max", 89.5)
are kept apart. In longer entries a one-word or one-number difference stays above 92 ("Fact 0:
... number 0" / "Fact 1: ... number 1"): such an edit is almost always an update of the same fact,
and the error tells the model to use replace.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

from remem.errors import InvalidArgumentError

NEAR_DUPLICATE_THRESHOLD = 92.0
"""``fuzz.ratio`` (0-100) of two entry keys at or above which the newer one is refused."""

_SPACE = re.compile(r"\s+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_entry(text: object, *, what: str = "entry") -> str:
    """``text`` as it will be stored: whitespace collapsed, ends stripped; refuses bad text."""
    if not isinstance(text, str):
        raise InvalidArgumentError(f"the {what} must be a string, got {type(text).__name__}")
    if "\x00" in text:
        raise InvalidArgumentError(f"the {what} contains a NUL character; remove it and retry")
    if _SURROGATE.search(text):
        raise InvalidArgumentError(
            f"the {what} contains a lone surrogate (invalid Unicode); send valid text"
        )
    cleaned = _SPACE.sub(" ", text).strip()
    if not cleaned:
        raise InvalidArgumentError(f"the {what} is empty; write the fact to remember")
    return cleaned


def entry_key(text: str) -> str:
    """The form two entries are compared in for duplicates."""
    return _SPACE.sub(" ", text.casefold()).strip().rstrip(".,;:! ")


def find_duplicate(text: str, existing: Iterable[str]) -> tuple[str, bool] | None:
    """The first existing entry ``text`` repeats, and whether exactly; None if it is new."""
    key = entry_key(text)
    candidates = list(existing)
    for entry in candidates:
        if entry_key(entry) == key:
            return entry, True
    for entry in candidates:
        if fuzz.ratio(key, entry_key(entry)) >= NEAR_DUPLICATE_THRESHOLD:
            return entry, False
    return None
