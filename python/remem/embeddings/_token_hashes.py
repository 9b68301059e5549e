"""A bounded, thread-safe LRU cache of the hashing embedder's token hashes ``t(tok)``."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from remem.hashing_constants import PERSON

__all__ = ["DEFAULT_MAX_TOKENS", "TokenHashCache"]

DEFAULT_MAX_TOKENS = 65_536
"""Distinct tokens kept: a chat vocabulary fits; a stream of unique ids or numbers cannot grow
the cache past ~10 MB."""


class TokenHashCache:
    """``t(tok)`` (keyed 8-byte blake2b, as :func:`remem.reference.hashing_embedder.token_hash`)
    of tokens, the least recently used evicted past ``max_tokens``.

    One lock around each batch makes it safe from the event loop and worker threads at once.
    Copies and pickles start empty (a cache is not state worth carrying, and a lock cannot be
    pickled).

    Example::

        >>> cache = TokenHashCache(seed=0)
        >>> from remem.reference.hashing_embedder import token_hash
        >>> cache.hashes(["cat", "cat"]) == [token_hash("cat", 0)] * 2
        True
    """

    __slots__ = ("_entries", "_key", "_lock", "_max", "_seed", "empty_hash")

    def __init__(self, seed: int, max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        self._seed = seed
        self._max = max(1, max_tokens)
        self._key = seed.to_bytes(8, "little")
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, int] = OrderedDict()
        self.empty_hash: int = self._blake(b"")
        """``t("")``, the one feature of a text without tokens."""

    def __reduce__(self) -> tuple[type[TokenHashCache], tuple[int, int]]:
        return TokenHashCache, (self._seed, self._max)

    def __len__(self) -> int:
        return len(self._entries)

    def _blake(self, data: bytes) -> int:
        digest = hashlib.blake2b(data, digest_size=8, key=self._key, person=PERSON).digest()
        return int.from_bytes(digest, "little")

    def hashes(self, tokens: list[str]) -> list[int]:
        """``t(tok)`` of each token, in order."""
        entries = self._entries
        out: list[int] = []
        with self._lock:
            get, touch = entries.get, entries.move_to_end
            for token in tokens:
                h = get(token)
                if h is None:
                    h = entries[token] = self._blake(token.encode("utf-8"))
                    if len(entries) > self._max:
                        entries.popitem(last=False)
                else:
                    touch(token)
                out.append(h)
        return out
