"""as_embedding_service: the seed's duck-typed embedding functions, checked."""

from __future__ import annotations

import math

import numpy as np
import pytest

from remem.embeddings import (
    EmbeddingFunctionAdapter,
    EmbeddingService,
    HashingEmbedder,
    as_embedding_service,
)
from remem.errors import ConfigError, InvalidArgumentError, NonFiniteError, ShapeError


class DemoEmbeddings:
    """The seed's example embedding function (lists of floats, async)."""

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [await self.embed_query(text) for text in texts]

    async def embed_query(self, text: str) -> list[float]:
        lowered = text.lower()
        return [float("python" in lowered), float("rust" in lowered), 1.0]


class Scripted:
    """Returns whatever it is told to, synchronously."""

    def __init__(self, result: object) -> None:
        self.result = result

    def embed_documents(self, texts: list[str]) -> object:
        return self.result

    def embed_query(self, text: str) -> object:
        return self.result


async def test_demo_embeddings_become_float32_and_learn_dimension() -> None:
    service = as_embedding_service(DemoEmbeddings())
    assert service.model_name == f"{__name__}.DemoEmbeddings"
    with pytest.raises(ConfigError, match="not known until its first embed call"):
        _ = service.dimension
    docs = await service.embed_documents(["I like Python", "Rust is fast"])
    assert docs.dtype == np.float32
    assert docs.flags.c_contiguous
    assert docs.shape == (2, 3)
    assert service.dimension == 3
    assert isinstance(service, EmbeddingService)  # on 3.11 only once the dimension is known
    query = await service.embed_query("python")
    assert query.tolist() == [1.0, 0.0, 1.0]
    assert (await service.embed_documents([])).shape == (0, 3)


async def test_own_embedders_pass_through_and_names_override() -> None:
    hashing = HashingEmbedder()
    assert as_embedding_service(hashing) is hashing
    named = as_embedding_service(DemoEmbeddings(), model_name="demo-v1", dimension=3)
    assert (named.model_name, named.dimension) == ("demo-v1", 3)


@pytest.mark.parametrize(
    ("result", "error", "match"),
    [
        ([[1.0, 2.0], [3.0]], ShapeError, "rectangular"),
        ([[1.0, 2.0]], ShapeError, r"shape \(1, 2\), expected \(2, dimension\)"),
        ([[1.0, math.nan], [1.0, 2.0]], NonFiniteError, "NaN"),
        ([[1e39, 1.0], [1.0, 2.0]], NonFiniteError, "NaN or infinite"),
        ([["a", "b"], [1.0, 2.0]], ShapeError, "rectangular"),
    ],
)
async def test_bad_results_are_typed_errors(result: object, error: type, match: str) -> None:
    service = as_embedding_service(Scripted(result), model_name="scripted")
    with pytest.raises(error, match=match):
        await service.embed_documents(["x", "y"])


async def test_dimension_is_enforced_after_discovery() -> None:
    inner = Scripted([[1.0, 2.0]])
    service = as_embedding_service(inner, model_name="scripted")
    await service.embed_documents(["x"])
    inner.result = [[1.0, 2.0, 3.0]]
    with pytest.raises(ShapeError, match="dimension 3, expected 2"):
        await service.embed_documents(["x"])


def test_objects_without_the_methods_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="no embed_documents"):
        as_embedding_service(object())
    with pytest.raises(ConfigError):
        EmbeddingFunctionAdapter(DemoEmbeddings(), model_name="x", dimension=0)
