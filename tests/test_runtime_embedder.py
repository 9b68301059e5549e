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


@pytest.mark.parametrize("provider", ["auto", "minilm"])
async def test_a_directory_keeps_its_minilm_precision_on_a_cpu_that_picks_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    """``precision="auto"`` differs between CPUs (bf16 only with AVX512_BF16): a directory built
    on one CPU and opened on the other keeps the precision its collections were built with,
    finds the same memories, and is never a model mismatch."""
    from remem.embeddings import sentence_transformer

    path = tmp_path / "m"
    async with Runtime.open(path, embedding_provider=provider) as rt:
        assert isinstance(rt.embedder, SentenceTransformerEmbedder)
        built = rt.embedder.precision
        await rt.controller.remember("My sister Ines moved to Porto in June.")
        before = await rt.controller.recall("where does my sister live?")
    accelerated = built == "float32"  # the other CPU: the one whose auto picks the other one
    monkeypatch.setattr(sentence_transformer, "bf16_accelerated", lambda: accelerated)
    assert SentenceTransformerEmbedder.bundled_minilm().precision != built
    async with Runtime.open(path, embedding_provider=provider) as rt:
        assert isinstance(rt.embedder, SentenceTransformerEmbedder)
        assert rt.embedder.precision == built
        assert f"embeddings.model = {rt.embedder.model_name}" in rt.describe()
        after = await rt.controller.recall("where does my sister live?")
    assert before
    assert "Porto" in before[0].record.text
    assert [h.record.id for h in after] == [h.record.id for h in before]
    # A new directory on that CPU gets its own choice.
    async with Runtime.open(tmp_path / "new", embedding_provider=provider) as rt:
        assert isinstance(rt.embedder, SentenceTransformerEmbedder)
        assert rt.embedder.precision != built
