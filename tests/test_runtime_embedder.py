"""The Runtime's default embedder: ``auto`` picks the bundled MiniLM, but a directory keeps the
model its collections were built with (never re-embedded or wiped on reopen)."""

from __future__ import annotations

from pathlib import Path

import pytest

from remem import Runtime
from remem.embeddings import MINILM_MODEL_NAME, HashingEmbedder, SentenceTransformerEmbedder
from remem.errors import ConfigError, EmbeddingModelMismatchError

pytestmark = pytest.mark.local_model


async def test_auto_is_minilm_on_a_new_directory(tmp_path: Path) -> None:
    async with Runtime.open(tmp_path / "m", embedding_provider="auto") as rt:
        assert isinstance(rt.embedder, SentenceTransformerEmbedder)
        assert rt.embedder.backend == "native"
        assert f"embeddings.model = {MINILM_MODEL_NAME}" in rt.describe()


async def test_auto_keeps_the_hashing_embedder_of_an_existing_directory(tmp_path: Path) -> None:
    path = tmp_path / "m"
    async with Runtime.open(path, embedding_provider="hashing") as rt:
        await rt.controller.record_turn("s1", "I moved to Lisbon in May", "Noted!")
        before = await rt.controller.recall("when did I move to Lisbon?")
    async with Runtime.open(path, embedding_provider="auto") as rt:
        assert isinstance(rt.embedder, HashingEmbedder)
        assert f"embeddings.model = {HashingEmbedder().model_name}" in rt.describe()
        after = await rt.controller.recall("when did I move to Lisbon?")
    assert before
    assert [h.record.id for h in after] == [h.record.id for h in before]
    # Asking for MiniLM explicitly on that directory is the stores' clear mismatch error.
    with pytest.raises(EmbeddingModelMismatchError):
        async with Runtime.open(path, embedding_provider="minilm"):
            pass


def test_unknown_provider_names_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="hashing, auto, minilm"):
        Runtime.open(tmp_path, embedding_provider="bert")
