"""Snowball stemming of search tokens (PyStemmer), cached, safe to call from any thread.

Full text matches how people write only if "hiking", "hiked" and "hikes" meet at one term:
:func:`stemmer_for` gives the :class:`TokenStemmer` of a Snowball language (``"english"`` by
default in :class:`~remem.stores.shared.search_text.FullTextConfig`), which
:mod:`remem.stores.shared.search_text` applies to every word token it indexes or queries — so every
backend (SQLite FTS5, its in-memory copy, PostgreSQL) sees the same stemmed tokens.

What is stemmed: word tokens without a digit. Numbers and mixed tokens ("2022", "3pm", "b12")
keep their exact form — a stemmer would cut "1990s" to "1990" and "3pm" carries no suffix to
remove — and CJK unigrams and bigrams are never passed here (they have no inflection the
Snowball algorithms know).

Speed: PyStemmer's ``stemWords`` is C, but a Python call per turn and its list copies still add
up over a chat corpus where the same few thousand words repeat; a dict in front of it answers
most tokens with one C-level ``dict.get`` per token (measured in benches/bench_fulltext.py).
PyStemmer objects are not thread-safe, so each thread gets its own; the cache is a plain dict
(single ``get``/``__setitem__`` calls are atomic under the GIL) cleared when it grows past
``CACHE_SIZE`` entries.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no stubs

from remem.errors import ConfigError

__all__ = ["CACHE_SIZE", "LANGUAGES", "TokenStemmer", "check_language", "stemmer_for"]

CACHE_SIZE = 200_000
"""Distinct tokens a stemmer remembers before its cache is cleared (~20 MB at most)."""

LANGUAGES: frozenset[str] = frozenset(Stemmer.algorithms())
"""The Snowball languages PyStemmer provides ("english", "french", "german", "russian", ...)."""

_DIGIT = re.compile(r"\d")


def check_language(language: str | None) -> str | None:
    """``language`` lowercased, or None for no stemming (``None`` or ``"none"``).

    Raises ConfigError for anything else that is not a Snowball language.
    """
    if language is None:
        return None
    if not isinstance(language, str):
        raise ConfigError(
            f"full-text language must be a str or None, got {type(language).__name__}"
        )
    name = language.strip().lower()
    if name == "none":
        return None
    if name not in LANGUAGES:
        raise ConfigError(
            f"full-text language {language!r} has no Snowball stemmer; use one of "
            f"{', '.join(sorted(LANGUAGES))}, or 'none' to index words unstemmed"
        )
    return name


class TokenStemmer:
    """The stems of word tokens in one language; tokens holding a digit are returned as is.

    >>> stemmer_for("english").stem(["hiking", "hiked", "3pm", "2022"])
    ['hike', 'hike', '3pm', '2022']
    """

    def __init__(self, language: str) -> None:
        self.language = language
        self._local = threading.local()
        self._cache: dict[str, str] = {}

    def _stemmer(self) -> Any:  # a Stemmer.Stemmer
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            # PyStemmer's own cache would duplicate ours; 0 switches it off.
            stemmer = self._local.stemmer = Stemmer.Stemmer(self.language, 0)
        return stemmer

    def stem(self, tokens: list[str]) -> list[str]:
        """The stem of each token, in order (same length as ``tokens``)."""
        cache = self._cache
        try:
            return list(map(cache.__getitem__, tokens))  # the common case: all seen before
        except KeyError:
            pass
        missing = list(dict.fromkeys(t for t in tokens if t not in cache))
        if len(cache) + len(missing) > CACHE_SIZE:
            cache.clear()
        found = self._stemmer().stemWords(missing)
        for token, stem in zip(missing, found, strict=True):
            # An empty stem would drop the word from the index: keep the word instead.
            cache[token] = token if not stem or _DIGIT.search(token) else stem
        return [cache.get(t) or self._one(t) for t in tokens]

    def _one(self, token: str) -> str:
        """A token whose cache entry another thread cleared meanwhile."""
        if _DIGIT.search(token):
            return token
        stem: str = self._stemmer().stemWord(token)
        return stem or token


@functools.cache
def stemmer_for(language: str) -> TokenStemmer:
    """The shared :class:`TokenStemmer` of a :func:`check_language`-valid language."""
    return TokenStemmer(language)
