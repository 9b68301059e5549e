"""HashingEmbedder: parity with its pure-Python spec, determinism, contract edges."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.embeddings import EmbeddingService, HashingEmbedder
from remem.errors import ConfigError, InvalidArgumentError
from remem.reference import hashing_embedder as spec

TEXTS = [
    "Hello, world!",
    "",
    "   ",
    "The cat sat on the mat 🐱",
    "a",
    "日本語のテキスト",
    "ﬁ café",
    "x" * 60,
]


def reference(embedder: HashingEmbedder, texts: list[str]) -> np.ndarray:
    return np.array(
        spec.embed_texts(
            texts,
            dimension=embedder.dimension,
            ngram_range=embedder.ngram_range,
            char_ngrams=embedder.char_ngrams,
            seed=embedder.seed,
        ),
        dtype=np.float32,
    ).reshape(len(texts), embedder.dimension)


@pytest.mark.parametrize(
    "embedder",
    [
        HashingEmbedder(),
        HashingEmbedder(dimension=64, ngram_range=(1, 3), char_ngrams=(2, 4), seed=7),
        HashingEmbedder(dimension=32, ngram_range=(2, 2), char_ngrams=None, seed=2**64 - 1),
    ],
    ids=["default", "trigrams", "words-only"],
)
def test_matches_reference_on_fixed_texts(embedder: HashingEmbedder) -> None:
    np.testing.assert_allclose(embedder.encode(TEXTS), reference(embedder, TEXTS), atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(exclude_categories=["Cs"]), max_size=40), max_size=6))
def test_matches_reference_on_drawn_texts(texts: list[str]) -> None:
    embedder = HashingEmbedder(dimension=48)
    np.testing.assert_allclose(embedder.encode(texts), reference(embedder, texts), atol=1e-6)


async def test_contract_shapes_dtype_norms() -> None:
    embedder = HashingEmbedder()
    assert isinstance(embedder, EmbeddingService)
    docs = await embedder.embed_documents(TEXTS)
    assert docs.shape == (len(TEXTS), 384)
    assert docs.dtype == np.float32
    assert docs.flags.c_contiguous
    assert np.isfinite(docs).all()
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-6)
    query = await embedder.embed_query("The cat sat on the mat 🐱")
    assert query.shape == (384,)
    np.testing.assert_array_equal(query, docs[3])
    assert (await embedder.embed_documents([])).shape == (0, 384)
    np.testing.assert_array_equal(docs[1], docs[2])  # empty and blank: same fixed unit vector


async def test_large_batch_runs_off_loop_and_equals_sync() -> None:
    embedder = HashingEmbedder()
    texts = [f"turn {i}: I parked the car near gate {i % 7}" for i in range(2000)]
    texts.append("é" * 1_000_000)  # one 1 MB token
    out = await embedder.embed_documents(texts)
    np.testing.assert_array_equal(out, embedder.encode(texts))


def test_pinned_values_are_stable_across_processes_and_platforms() -> None:
    # Golden values: if these change, every stored hashing collection silently breaks.
    vector = HashingEmbedder().encode(["Remember: my cat is called Miso."])[0]
    nonzero = np.flatnonzero(vector)[:4]
    code = (
        "from remem.embeddings import HashingEmbedder;"
        "v = HashingEmbedder().encode(['Remember: my cat is called Miso.'])[0];"
        "print(v.tobytes().hex())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
    )
    assert bytes.fromhex(out.stdout.strip()) == vector.tobytes()
    assert nonzero.tolist() == GOLDEN_INDEXES
    np.testing.assert_allclose(vector[nonzero], GOLDEN_VALUES, atol=1e-6)


GOLDEN_INDEXES = [7, 17, 24, 27]
GOLDEN_VALUES = [-0.217273, 0.09407, 0.09407, 0.09407]


def test_lexical_similarity_ranks_shared_words_first() -> None:
    embedder = HashingEmbedder()
    query, near, far = embedder.encode(
        [
            "where did I park the car?",
            "I parked the car at the station",
            "green tea is my favourite",
        ]
    )
    assert float(query @ near) > float(query @ far) + 0.1


def test_model_name_encodes_parameters() -> None:
    assert HashingEmbedder().model_name == "remem-hashing-v1-384"
    names = {
        HashingEmbedder().model_name,
        HashingEmbedder(dimension=256).model_name,
        HashingEmbedder(seed=1).model_name,
        HashingEmbedder(char_ngrams=None).model_name,
        HashingEmbedder(ngram_range=(1, 1)).model_name,
    }
    assert len(names) == 5
    assert HashingEmbedder(seed=1).model_name == "remem-hashing-v1-384-w1.2-c3.5-s1"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"dimension": 1},
        {"dimension": 384.0},
        {"ngram_range": (0, 2)},
        {"ngram_range": (2, 1)},
        {"char_ngrams": (3, 99)},
        {"seed": -1},
    ],
)
def test_invalid_configuration(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        HashingEmbedder(**kwargs)  # type: ignore[arg-type]


async def test_invalid_input() -> None:
    embedder = HashingEmbedder()
    with pytest.raises(InvalidArgumentError, match="not a single string"):
        await embedder.embed_documents("hello")
    with pytest.raises(InvalidArgumentError, match=r"texts\[1\] must be a str"):
        await embedder.embed_documents(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError, match="lone surrogate"):
        await embedder.embed_query("bad \ud800 text")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(st.characters(exclude_categories=["Cs"]), max_size=40), max_size=6))
async def test_embed_queries_rows_are_embed_query(texts: list[str]) -> None:
    e = HashingEmbedder()
    batch = await e.embed_queries(texts)
    assert batch.shape == (len(texts), e.dimension)
    for text, row in zip(texts, batch, strict=True):
        np.testing.assert_array_equal(row, await e.embed_query(text))
