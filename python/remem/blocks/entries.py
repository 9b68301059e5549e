"""What a block entry may be, and when two entries count as the same fact.

An entry is one line of plain text. On the way in, runs of whitespace (line breaks included)
collapse to one space and the ends are stripped, so that one entry is one rendered line and the
size the model is shown is the size that is stored. Empty entries, NUL characters and lone
surrogates (which no store can hold) are refused with :class:`InvalidArgumentError`.

Duplicates: an entry is refused only when it states *the same fact with the same value* as an
existing one — when their keys (:func:`entry_key`) are equal. The key is the text in NFKC,
case-folded, accents dropped, punctuation turned into spaces, the articles "a", "an" and "the"
left out and whitespace collapsed, so "The user has a dog named Rex." and "user has dog named
rex" are one fact. There is no fuzzy similarity: two entries that differ in any word are
distinct ("...a dog named Rex" / "...named Max", "sister Anna" / "sister Ana", "brother Tom" /
"brother Tim") — a similarity score cannot tell a typo from a second pet or a second sibling, and
refusing a true fact silently loses it while a typo costs one line. Correcting a value is what
``replace`` is for.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from remem.errors import InvalidArgumentError

_SPACE = re.compile(r"\s+")
_NOT_WORD = re.compile(r"[^\w]+")
_ARTICLES = frozenset({"a", "an", "the"})
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
    """The form two entries are compared in: equal keys are the same fact with the same value.

    >>> entry_key("The user has a dog named Rex.") == entry_key("user has dog, named REX")
    True
    >>> entry_key("My sister is Anna") == entry_key("My sister is Ana")
    False
    """
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    bare = "".join(c for c in folded if not unicodedata.combining(c))
    words = _NOT_WORD.sub(" ", bare).replace("_", " ").split()
    kept = [w for w in words if w not in _ARTICLES]
    # An entry of articles or punctuation only keeps its words, so it still has a key.
    return " ".join(kept or words) or _SPACE.sub(" ", text.casefold()).strip()


def _plain_key(text: str) -> str:
    """Case-folded, whitespace collapsed, trailing ``.,;:!`` dropped: the *exact* repeat."""
    return _SPACE.sub(" ", text.casefold()).strip().rstrip(".,;:! ")


def find_duplicate(text: str, existing: Iterable[str]) -> tuple[str, bool] | None:
    """The first existing entry stating the same fact as ``text``, and whether it is an exact
    repeat (same words up to case, spacing and a trailing stop) rather than one that differs in
    punctuation, articles or accents only; None if ``text`` is a new fact."""
    key = entry_key(text)
    plain = _plain_key(text)
    for entry in existing:
        if entry_key(entry) == key:
            return entry, _plain_key(entry) == plain
    return None
