"""SimpleVectorStore: the seed example and the convenience API (in memory and over hnsw)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import remem
from remem.errors import (
    DimensionMismatchError,
    InvalidArgumentError,
    NotFoundError,
    ShapeError,
    StoreClosedError,
)
from remem.stores.hnsw import HnswVectorStore
from remem.stores.memory.simple import SimpleVectorStore

SEED = """
import asyncio
from remem import SimpleVectorStore

class DemoEmbeddings:
    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [await self.embed_query(text) for text in texts]

    async def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0] if "python" in text.lower() else [0.0, 1.0]

async def main() -> None:
    store = SimpleVectorStore(embedding_function=DemoEmbeddings())
    await store.add_documents(
        texts=["Python project", "Gardening notes"],
        metadatas=[{"source": "demo"}, {"source": "demo"}],
        ids=["python", "garden"],
    )
    matches = await store.query("Python", n_results=1)
    print(matches[0]["id"])

asyncio.run(main())
"""


class Embeddings:
    model_name = "demo-3"

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [await self.embed_query(t) for t in texts]

    async def embed_query(self, text: str) -> list[float]:
        t = text.lower()
        return [float("python" in t), float("garden" in t), 0.1]


def test_seed_example_prints_python() -> None:
    out = subprocess.run([sys.executable, "-c", SEED], capture_output=True, text=True, check=True)
    assert out.stdout == "python\n"


def test_exported_from_the_top_level() -> None:
    assert "SimpleVectorStore" in remem.__all__
    assert remem.SimpleVectorStore is SimpleVectorStore


@pytest.fixture(params=["memory", "hnsw"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SimpleVectorStore]:
    backend = HnswVectorStore(tmp_path) if request.param == "hnsw" else None
    s = SimpleVectorStore(Embeddings(), vector_store=backend)
    yield s
    await s.aclose()


async def test_add_query_get_update_delete(store: SimpleVectorStore) -> None:
    assert await store.count() == 0
    assert await store.query("python") == []
    ids = await store.add_documents(
        ["Python tips", "Garden diary", "Python garden bot"],
        metadatas=[{"k": 1}, {"k": 2}, None],
        ids=["p", "g", "pg"],
    )
    assert ids == ["p", "g", "pg"]
    hits = await store.query("python", n_results=2)
    assert [h["id"] for h in hits] == ["p", "pg"]
    assert hits[0]["document"] == "Python tips"
    assert hits[0]["metadata"] == {"k": 1}
    assert hits[0]["score"] >= hits[1]["score"]
    assert [h["id"] for h in await store.query("python", where={"k": 2})] == ["g"]
    assert await store.get_by_id("g") == {
        "id": "g",
        "document": "Garden diary",
        "metadata": {"k": 2},
    }
    assert await store.get_by_id("missing") is None
    await store.update_metadata("g", {"extra": "x"})
    assert (await store.get_by_id("g") or {})["metadata"] == {"k": 2, "extra": "x"}
    await store.update_metadata("g", {"only": True}, replace=True)
    assert (await store.get_by_id("g") or {})["metadata"] == {"only": True}
    with pytest.raises(NotFoundError):
        await store.update_metadata("missing", {"a": 1})
    assert await store.delete(["g", "nope"]) == 1
    assert await store.count() == 2
    generated = await store.add_documents(["no ids given"])
    assert len(generated) == 1
    assert await store.get_by_id(generated[0]) is not None
    info = await store.vector_store.get_collection("default")
    assert (info.model_name, info.dimension) == ("demo-3", 3)


async def test_metadata_is_copied_never_shared(store: SimpleVectorStore) -> None:
    shared = {"tag": "original"}
    await store.add_documents(["a python", "b python"], metadatas=[shared, shared], ids=["a", "b"])
    shared["tag"] = "mutated"
    await store.update_metadata("a", {"tag": "changed"})
    assert (await store.get_by_id("a") or {})["metadata"] == {"tag": "changed"}
    assert (await store.get_by_id("b") or {})["metadata"] == {"tag": "original"}
    hit = (await store.query("python", n_results=1))[0]
    hit["metadata"]["tag"] = "caller's copy"
    assert (await store.get_by_id(hit["id"]) or {})["metadata"]["tag"] != "caller's copy"


async def test_mismatched_lengths_raise_shape_error(store: SimpleVectorStore) -> None:
    with pytest.raises(ShapeError, match="metadatas"):
        await store.add_documents(["a", "b"], metadatas=[{}])
    with pytest.raises(ShapeError, match="ids"):
        await store.add_documents(["a", "b"], ids=["a"])
    assert await store.count() == 0


async def test_rerank_and_hybrid_are_rejected_not_ignored(store: SimpleVectorStore) -> None:
    await store.add_documents(["python"], ids=["p"])
    with pytest.raises(InvalidArgumentError, match="rerank or hybrid"):
        await store.query("python", rerank=True)
    with pytest.raises(InvalidArgumentError, match="rerank or hybrid"):
        await store.query("python", hybrid=True)


async def test_bad_embeddings_are_typed(store: SimpleVectorStore) -> None:
    await store.add_documents(["python"], ids=["p"])

    class Wrong(Embeddings):
        async def embed_query(self, text: str) -> list[float]:
            return [1.0, 0.0]

    store.embedding_function = Wrong()
    with pytest.raises(DimensionMismatchError, match=r"2.*3"):
        await store.add_documents(["x"], ids=["x"])
    with pytest.raises(DimensionMismatchError):
        await store.query("x")
    assert await store.count() == 1


async def test_use_after_close(store: SimpleVectorStore) -> None:
    await store.aclose()
    with pytest.raises(StoreClosedError):
        await store.query("python")
