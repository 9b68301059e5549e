"""Test doubles around the hashing embedder."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from remem.embeddings import HashingEmbedder


class HashingWrapper:
    """A HashingEmbedder behind a plain class, for doubles that watch or hold its calls (the
    embedder itself is a frozen dataclass, so a subclass cannot carry state)."""

    def __init__(self, dimension: int = 384) -> None:
        self.inner = HashingEmbedder(dimension=dimension)

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return await self.inner.embed_documents(texts)

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        return await self.inner.embed_query(text)
