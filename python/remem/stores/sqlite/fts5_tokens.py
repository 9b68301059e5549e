"""The tokens SQLite FTS5 (``unicode61 remove_diacritics 2``) makes of a normalised search text.

:func:`remem.stores.shared.search_text.search_text` already folds and splits text, so FTS5 *almost*
indexes exactly its space-separated tokens — the in-memory index must see the very same tokens
to rank like FTS5. Checked exhaustively against SQLite 3.40's tokenizer over every code point
(tests/stores/test_fts5_tokens.py), three differences remain, and :func:`fts5_tokens` applies
them:

1. FTS5 folds the final sigma ``ς`` to the medial sigma U+03C3 (Python's ``lower()`` keeps ``ς``).
2. A few characters Python's Unicode 14 database calls letters are separators in SQLite's older
   tables (New Tai Lue vowel signs and tone marks, two Vedic signs), and so are the kana voicing
   marks and middle dots that :func:`search_text` keeps inside CJK runs: FTS5 splits there and
   drops them.
3. A token longer than 32,768 UTF-8 bytes is cut to its first 32,768 bytes (FTS5's
   ``FTS5_MAX_TOKEN_SIZE``), in documents and in queries alike; a cut inside a multi-byte
   character keeps the partial bytes, represented here with ``surrogateescape``.

A query term FTS5 splits into two or more tokens is a *phrase* (the tokens adjacent, in order),
which a bag-of-words index cannot answer: a caller seeing ``len(fts5_tokens(term)) > 1`` falls
back to FTS5 for that query. A term with no token at all matches nothing.
"""

from __future__ import annotations

import re

MAX_TOKEN_BYTES = 32_768
"""FTS5_MAX_TOKEN_SIZE: longer tokens are truncated to this many UTF-8 bytes."""

_FINAL_SIGMA = "\u03c2"
_SEPARATORS = (
    "\u19b0-\u19c0\u19c8\u19c9"  # New Tai Lue vowel signs, tone marks (Mc in SQLite's tables)
    "\u1cf2\u1cf3"  # Vedic ardhavisarga signs
    "\u3099-\u309c\u30a0\u30fb\uff65\uff9e\uff9f"  # kana voicing marks, double hyphen, middle dots
)
_DIFFERS = re.compile(f"[{_FINAL_SIGMA}{_SEPARATORS}]")
_SPLIT = re.compile(f"[{_SEPARATORS}]+")
# A token of more than MAX_TOKEN_BYTES bytes has more than MAX_TOKEN_BYTES // 4 characters.
_LONG_CHARS = MAX_TOKEN_BYTES // 4


def _truncate(token: str) -> str:
    raw = token.encode("utf-8")
    if len(raw) <= MAX_TOKEN_BYTES:
        return token
    return raw[:MAX_TOKEN_BYTES].decode("utf-8", "surrogateescape")


def fts5_tokens(text: str) -> list[str]:
    """The tokens FTS5 indexes for a :func:`~remem.stores.shared.search_text.search_text` string.

    >>> fts5_tokens("οδος 東・京")
    ['οδοσ', '東', '京']
    """
    if text.isascii() or _DIFFERS.search(text) is None:
        tokens = text.split()
    else:
        tokens = [
            part
            for token in text.replace(_FINAL_SIGMA, "\u03c3").split()
            for part in _SPLIT.split(token)
            if part
        ]
    if len(text) > _LONG_CHARS:
        tokens = [_truncate(t) if len(t) > _LONG_CHARS else t for t in tokens]
    return tokens
