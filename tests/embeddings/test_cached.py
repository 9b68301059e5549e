"""CachedEmbedder: dedupe, LRU bound, counters, isolation of cached vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from remem.embeddings import CachedEmbedder, CacheStats, HashingEmbedder
from remem.errors import ConfigError
from tests.embeddings.doubles import HashingWrapper


class Counting(HashingWrapper):
    """A HashingEmbedder that records what it was asked to embed."""

    def __init__(self) -> None:
        super().__init__(dimension=16)
        self.calls: list[list[str]] = []

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.calls.append(list(texts))
        return await super().embed_documents(texts)

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        self.calls.append([text])
        return await super().embed_query(text)


async def test_duplicates_and_repeats_are_embedded_once() -> None:
    inner = Counting()
    cached = CachedEmbedder(inner, max_entries=100)
    out = await cached.embed_documents(["a", "b", "a", "c"])
    assert inner.calls == [["a", "b", "c"]]
    np.testing.assert_array_equal(out, inner.inner.encode(["a", "b", "a", "c"]))
    assert out.dtype == np.float32
    assert out.flags.c_contiguous
    again = await cached.embed_documents(["c", "d"])
    assert inner.calls[-1] == ["d"]
    np.testing.assert_array_equal(again, inner.inner.encode(["c", "d"]))
    assert cached.stats == CacheStats(hits=2, misses=4, size=4, max_entries=100)
    assert (cached.model_name, cached.dimension) == (inner.model_name, 16)


async def test_lru_bound_evicts_least_recently_used() -> None:
    inner = Counting()
    cached = CachedEmbedder(inner, max_entries=2)
    await cached.embed_documents(["a", "b"])
    await cached.embed_documents(["a"])  # a is now most recent
    await cached.embed_documents(["c"])  # evicts b
    inner.calls.clear()
    await cached.embed_documents(["a", "b"])
    assert inner.calls == [["b"]]
    assert cached.stats.size == 2


async def test_returned_arrays_are_fresh_and_queries_are_cached_apart() -> None:
    inner = Counting()
    cached = CachedEmbedder(inner)
    first = await cached.embed_query("hello")
    first[:] = 0.0  # the caller may scribble on its copy
    second = await cached.embed_query("hello")
    np.testing.assert_array_equal(second, inner.inner.encode(["hello"])[0])
    await cached.embed_documents(["hello"])
    assert inner.calls == [["hello"], ["hello"]]  # one query call, one document call
    assert (await cached.embed_documents([])).shape == (0, 16)


def test_invalid_bound() -> None:
    with pytest.raises(ConfigError):
        CachedEmbedder(HashingEmbedder(), max_entries=0)


class Batched(Counting):
    """Counting, with a batched query encode."""

    async def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.calls.append(["queries", *texts])
        return await self.inner.embed_queries(texts)


async def test_embed_queries_shares_the_query_entries_and_batches_the_misses() -> None:
    inner = Batched()
    cached = CachedEmbedder(inner)
    await cached.embed_query("a")
    out = await cached.embed_queries(["a", "b", "c", "b"])
    assert inner.calls == [["a"], ["queries", "b", "c"]]  # "a" cached, "b" once
    np.testing.assert_array_equal(out, inner.inner.encode(["a", "b", "c", "b"]))
    inner.calls.clear()
    np.testing.assert_array_equal(await cached.embed_query("c"), out[2])
    await cached.embed_documents(["b"])
    assert inner.calls == [["b"]]  # documents are cached apart from queries
    assert (await cached.embed_queries([])).shape == (0, 16)


async def test_embed_queries_of_an_inner_without_it_asks_one_query_at_a_time() -> None:
    inner = Counting()
    cached = CachedEmbedder(inner)
    out = await cached.embed_queries(["x", "y", "x"])
    assert inner.calls == [["x"], ["y"]]
    np.testing.assert_array_equal(out, inner.inner.encode(["x", "y", "x"]))
