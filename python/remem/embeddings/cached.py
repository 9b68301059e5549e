"""CachedEmbedder: an LRU cache of vectors in front of any EmbeddingService."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from remem.embeddings._checks import check_matrix, check_text, check_texts
from remem.embeddings.service import EmbeddingService, embed_queries
from remem.errors import ConfigError

__all__ = ["CacheStats", "CachedEmbedder"]

DEFAULT_MAX_ENTRIES = 65_536
"""About 100 MB of 384-d float32 vectors (plus keys)."""


@dataclass(frozen=True, slots=True)
class CacheStats:
    """Counters of a :class:`CachedEmbedder` (texts, not calls)."""

    hits: int
    misses: int
    size: int
    max_entries: int


class CachedEmbedder:
    """Memoises ``inner`` by ``(model_name, kind, sha256(text))`` with an LRU bound.

    ``embed_documents`` looks every text up, sends the misses to ``inner`` in ONE call with
    duplicates removed (a text repeated in a batch is embedded once), then stores the results.
    Documents and queries are cached apart because some models embed them differently. Cached
    vectors are read-only; every call returns a fresh array. Concurrent calls that miss on the same
    text may both embed it (harmless: the vectors are equal).

    Example::

        embedder = CachedEmbedder(HashingEmbedder(), max_entries=10_000)
        await embedder.embed_documents(["hi", "hi", "bye"])   # inner embeds ["hi", "bye"]
        embedder.stats                                        # CacheStats(hits=1, misses=2, ...)
    """

    def __init__(self, inner: EmbeddingService, *, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        if not isinstance(max_entries, int) or max_entries < 1:
            raise ConfigError(f"max_entries must be a positive int, got {max_entries!r}")
        self._inner = inner
        self._max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str, bytes], NDArray[np.float32]] = OrderedDict()
        self._hits = 0
        self._misses = 0

    @property
    def inner(self) -> EmbeddingService:
        return self._inner

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    @property
    def recommended_floors(self) -> object:
        """The inner model's similarity floors (None when it has none): without them a lexical
        or MiniLM embedder behind this cache would get the generic semantic floors."""
        return getattr(self._inner, "recommended_floors", None)

    @property
    def stats(self) -> CacheStats:
        return CacheStats(self._hits, self._misses, len(self._entries), self._max_entries)

    def clear(self) -> None:
        """Drop every entry (the counters are kept)."""
        self._entries.clear()

    def _key(self, kind: str, text: str) -> tuple[str, str, bytes]:
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        return (self._inner.model_name, kind, digest)

    def _put(self, key: tuple[str, str, bytes], vector: NDArray[np.float32]) -> None:
        stored = vector.copy()
        stored.flags.writeable = False
        self._entries[key] = stored
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)

    def _get(self, key: tuple[str, str, bytes]) -> NDArray[np.float32] | None:
        vector = self._entries.get(key)
        if vector is not None:
            self._entries.move_to_end(key)
        return vector

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return await self._cached("doc", check_texts(texts), self._inner.embed_documents)

    async def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Query vectors of ``texts`` (row i is :meth:`embed_query` of ``texts[i]``, the same
        cache entries): the misses in one call of the inner embedder's ``embed_queries`` when
        it has one, else one ``embed_query`` each."""
        return await self._cached("query", check_texts(texts), self._inner_queries)

    async def _inner_queries(self, texts: list[str]) -> NDArray[np.float32]:
        return await embed_queries(self._inner, texts)

    async def _cached(
        self,
        kind: str,
        batch: list[str],
        embed: Callable[[list[str]], Awaitable[NDArray[np.float32]]],
    ) -> NDArray[np.float32]:
        """``batch``'s vectors of ``kind`` from the cache, the misses (each text once) through
        ``embed`` in one call."""
        keys = [self._key(kind, t) for t in batch]
        found: dict[tuple[str, str, bytes], NDArray[np.float32]] = {}
        missing: dict[tuple[str, str, bytes], str] = {}
        for key, text in zip(keys, batch, strict=True):
            vector = found.get(key)
            if vector is None and key not in missing:
                vector = self._get(key)
            if vector is not None:
                found[key] = vector
                self._hits += 1
            elif key in missing:
                self._hits += 1  # a duplicate within this batch: embedded once
            else:
                missing[key] = text
                self._misses += 1
        if missing:
            fresh = await embed(list(missing.values()))
            check_matrix(fresh, rows=len(missing), dimension=None, source=self.model_name)
            for key, vector in zip(missing, fresh, strict=True):
                found[key] = vector
                self._put(key, vector)
        if not batch:
            return np.zeros((0, self._inner.dimension), dtype=np.float32)
        return np.ascontiguousarray(np.stack([found[k] for k in keys]), dtype=np.float32)

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        key = self._key("query", check_text(text))
        vector = self._get(key)
        if vector is not None:
            self._hits += 1
            return vector.copy()
        self._misses += 1
        fresh = await self._inner.embed_query(text)
        check_matrix(fresh[None, :], rows=1, dimension=None, source=self.model_name)
        self._put(key, fresh)
        return np.array(fresh, dtype=np.float32, copy=True)
