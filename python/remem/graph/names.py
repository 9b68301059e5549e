"""Entity-name normalisation and the merge guards shared by the resolver and the query matcher.

``normalise`` is stricter than the stores' lookup key (casefold + whitespace): it also applies NFKC
(full-width letters, ligatures, superscripts), strips punctuation at both ends (but keeps ``#`` and
``+`` so ``C#`` and ``C++`` stay themselves) and drops leading articles (``the``, ``a``, ``an``)
when more words follow::

    >>> normalise("  The   Python  3.11! ")
    'python 3.11'

The guards decide whether two *different* normalised names may still be the same entity:
their number tokens (``3.11``, ``2024``, the ``2`` of ``v2``) must be equal as a multiset, and
names of at most :data:`SHORT_NAME_CHARS` characters only ever match exactly.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

ARTICLES = frozenset({"the", "a", "an"})
SHORT_NAME_CHARS = 3
"""Names this short (after normalisation) never merge fuzzily: "Ana" ≠ "Anna", "Bob" ≠ "Rob"."""

_KEEP_AT_ENDS = frozenset("#+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _is_edge_punct(ch: str) -> bool:
    return ch not in _KEEP_AT_ENDS and unicodedata.category(ch).startswith("P")


_ASCII_EDGES = "".join(c for c in map(chr, range(128)) if c.isspace() or _is_edge_punct(c))
"""The ASCII characters :func:`_strip_edges` trims: whitespace and punctuation but ``#``."""


def normalise(name: str) -> str:
    """The resolver's lookup key of a name: NFKC, casefold, collapsed whitespace, trimmed
    punctuation, no leading article. Returns "" for a name of punctuation only."""
    if name.isascii():
        # The same key without the Unicode passes (NFKC and casefold are lower() on ASCII):
        # the query matcher normalises every n-gram of every query (~22 a recall).
        words = name.lower().strip(_ASCII_EDGES).split()
        while len(words) > 1 and words[0] in ARTICLES:
            words = " ".join(words[1:]).strip(_ASCII_EDGES).split()
        return " ".join(words)
    return _normalise_unicode(name)


def _normalise_unicode(name: str) -> str:
    words = unicodedata.normalize("NFKC", name).casefold().split()
    words = _strip_edges(words)
    while len(words) > 1 and words[0] in ARTICLES:  # a loop, so normalise is idempotent
        words = _strip_edges(words[1:])
    return " ".join(words)


def _strip_edges(words: list[str]) -> list[str]:
    text = " ".join(words)
    start, end = 0, len(text)
    while start < end and (_is_edge_punct(text[start]) or text[start].isspace()):
        start += 1
    while end > start and (_is_edge_punct(text[end - 1]) or text[end - 1].isspace()):
        end -= 1
    return text[start:end].split()


def number_tokens(normalised: str) -> tuple[str, ...]:
    """The number/version tokens of a normalised name, sorted.

    ``"python 3.11 v2"`` → ``("2", "3.11")``.
    """
    return tuple(sorted(_NUMBER.findall(normalised)))


def word_tokens(normalised: str) -> list[str]:
    """The words of a normalised name that are not pure numbers (the fuzzy-matchable part)."""
    return [w for w in normalised.split() if not _NUMBER.fullmatch(w.lstrip("v"))]


def guards_allow(a: str, b: str) -> bool:
    """Whether two normalised names *may* be compared fuzzily: equal number multisets and both
    longer than :data:`SHORT_NAME_CHARS`. Identical names always pass."""
    if a == b:
        return True
    if len(a) <= SHORT_NAME_CHARS or len(b) <= SHORT_NAME_CHARS:
        return False
    return Counter(_NUMBER.findall(a)) == Counter(_NUMBER.findall(b))
