"""Hashing-embedder kernel: native (remem._native / remem.kernels.hashembed) against the kernel
twin remem.reference.hashembed (exactly: same features, same float64 order, same libm log1p)
and, through HashingEmbedder, against the text-level spec remem.reference.hashing_embedder."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import _native
from remem.embeddings import HashingEmbedder
from remem.embeddings._token_hashes import TokenHashCache
from remem.errors import DTypeError, InvalidArgumentError, LayoutError, ShapeError
from remem.kernels import hashembed
from remem.reference import hashembed as ref
from remem.reference import hashing_embedder as spec

MASK = (1 << 64) - 1
Batch = tuple[list[int], list[int], list[int], list[int], list[int]]


def params(
    dimension: int = 16,
    ngram_range: tuple[int, int] = (1, 2),
    char_ngrams: tuple[int, int] | None = (3, 5),
    seed: int = 0,
    empty_hash: int = 12345,
) -> dict[str, Any]:
    return {
        "dimension": dimension,
        "ngram_range": ngram_range,
        "char_ngrams": char_ngrams,
        "seed": seed,
        "empty_hash": empty_hash,
    }


def text_spec(embedder: HashingEmbedder, texts: list[str]) -> np.ndarray:
    rows = spec.embed_texts(
        texts,
        dimension=embedder.dimension,
        ngram_range=embedder.ngram_range,
        char_ngrams=embedder.char_ngrams,
        seed=embedder.seed,
    )
    return np.array(rows, dtype=np.float32).reshape(len(texts), embedder.dimension)


# --- kernel level: random hashes and code points ---------------------------------------------

hashes_st = st.integers(0, MASK) | st.sampled_from([0, 1, 1 << 63, MASK, (1 << 63) - 1])
code_point_st = st.integers(0, 0x10FFFF) | st.sampled_from([0, 0x20, 0xD800, 0x1F600, 2**32 - 1])


@st.composite
def batches(draw: Any) -> tuple[Batch, dict[str, Any]]:
    tokens = draw(st.lists(st.lists(code_point_st, max_size=7), max_size=6))
    n_unique = len(tokens)
    ids = st.lists(st.integers(0, n_unique - 1), max_size=9) if n_unique else st.just([])
    texts = draw(st.lists(ids, max_size=5))
    char_offsets = [0]
    for t in tokens:
        char_offsets.append(char_offsets[-1] + len(t))
    text_offsets = [0]
    for t in texts:
        text_offsets.append(text_offsets[-1] + len(t))
    lo = draw(st.integers(1, 8))
    clo = draw(st.integers(1, 12))
    p = params(
        dimension=draw(st.sampled_from([2, 3, 7, 16, 97, 384])),
        ngram_range=(lo, draw(st.integers(lo, 8))),
        char_ngrams=draw(st.none() | st.just((clo, draw(st.integers(clo, 12))))),
        seed=draw(hashes_st),
        empty_hash=draw(hashes_st),
    )
    batch = (
        text_offsets,
        [i for t in texts for i in t],
        draw(st.lists(hashes_st, min_size=n_unique, max_size=n_unique)),
        char_offsets,
        [c for t in tokens for c in t],
    )
    return batch, p


@settings(max_examples=200, deadline=None)
@given(batches())
def test_kernel_equals_its_twin_bit_for_bit(case: tuple[Batch, dict[str, Any]]) -> None:
    batch, p = case
    native = hashembed.hash_embed(*batch, **p)
    expected = np.array(ref.hash_embed(*batch, **p), dtype=np.float32)
    assert native.shape == (len(batch[0]) - 1, p["dimension"])
    assert native.dtype == np.float32
    assert native.flags.c_contiguous
    np.testing.assert_array_equal(native, expected.reshape(native.shape))
    norms = np.linalg.norm(native, axis=1)
    assert np.all((np.abs(norms - 1) < 1e-6) | (norms == 0))


@pytest.mark.parametrize("dimension", [2, 1 << 20])
def test_dimension_bounds(dimension: int) -> None:
    batch = ([0, 2, 2], [0, 1], [5, MASK], [0, 1, 3], [0x1F600, 97, 98])
    p = params(dimension=dimension)
    native = hashembed.hash_embed(*batch, **p)
    np.testing.assert_array_equal(native, np.array(ref.hash_embed(*batch, **p), np.float32))
    assert np.count_nonzero(native[1]) == 1  # the empty text: t("") alone


def test_empty_batch_and_no_tokens_at_all() -> None:
    out = hashembed.hash_embed([0], [], [], [0], [], **params(dimension=5))
    assert out.shape == (0, 5)
    assert out.dtype == np.float32
    out = hashembed.hash_embed([0, 0, 0], [], [], [0], [], **params(dimension=4, empty_hash=6))
    np.testing.assert_array_equal(out, [[0, 0, 1, 0], [0, 0, 1, 0]])  # 6 % 4 = 2, bit 63 clear
    out = hashembed.hash_embed([0, 0], [], [], [0], [], **params(dimension=4, empty_hash=MASK))
    np.testing.assert_array_equal(out, [[0, 0, 0, -1]])  # MASK % 4 = 3, bit 63 set


def test_a_text_without_features_is_zero() -> None:
    # One token, bigrams only, no character n-grams: nothing to hash.
    p = params(ngram_range=(2, 2), char_ngrams=None)
    np.testing.assert_array_equal(hashembed.hash_embed([0, 1], [0], [7], [0, 0], [], **p), 0.0)


# --- text level: HashingEmbedder on the native kernel against the text spec --------------------

ADVERSARIAL = [
    "",
    "   \t\n",
    "a",
    "a b c d e",
    "😀",
    "😀😀 🐱!",
    "\U0001d518\U0001d52b\U0001d526 \U0001d7d9\U0001d7da",  # Fraktur "Uni", double-struck 12
    "ﬁ café Straße İstanbul ΣΑΣ",
    "e\u0301 \u00e9",
    "日本語のテキスト、です。",
    "x" * 200,
    "a.b,c;d!?",
    "\x00 \U0010fffd",
]

pieces = st.sampled_from(ADVERSARIAL) | st.text(
    st.characters(exclude_categories=["Cs"]), max_size=30
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(pieces, max_size=3).map(" ".join), max_size=6),
    st.sampled_from(
        [
            HashingEmbedder(),
            HashingEmbedder(dimension=2),
            HashingEmbedder(dimension=97, ngram_range=(1, 8), char_ngrams=(1, 12), seed=MASK),
            HashingEmbedder(dimension=16, ngram_range=(3, 3), char_ngrams=None, seed=5),
        ]
    ),
)
def test_embedder_equals_the_text_spec(texts: list[str], embedder: HashingEmbedder) -> None:
    out = embedder.encode(texts)
    assert out.shape == (len(texts), embedder.dimension)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, text_spec(embedder, texts), atol=1e-6, rtol=0)


def test_embedder_at_the_largest_dimension() -> None:
    embedder = HashingEmbedder(dimension=1 << 20)
    texts = ["a", "Remember: my cat is called Miso 🐱", ""]
    np.testing.assert_allclose(embedder.encode(texts), text_spec(embedder, texts), atol=1e-6)


def test_the_token_cache_changes_nothing_observable() -> None:
    a, b = HashingEmbedder(seed=3), HashingEmbedder(seed=3)
    a.encode(["warm the cache with some words"])
    assert a == b
    assert hash(a) == hash(b)
    assert repr(a) == repr(b)
    assert "TokenHashCache" not in repr(a)
    for twin in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert twin == a
        np.testing.assert_array_equal(twin.encode(["some words"]), a.encode(["some words"]))
    other = dataclasses.replace(a, seed=4)
    assert other.encode(["x"]).tolist() == HashingEmbedder(seed=4).encode(["x"]).tolist()


def test_token_cache_is_a_bounded_lru() -> None:
    cache = TokenHashCache(seed=9, max_tokens=3)
    assert cache.empty_hash == spec.token_hash("", 9)
    assert cache.hashes(["a", "b", "c", "a"]) == [spec.token_hash(t, 9) for t in "abca"]
    cache.hashes(["d"])  # evicts "b", the least recently used ("a" was just used)
    assert len(cache) == 3
    assert cache.hashes(["e"] * 5 + ["a"]) == [spec.token_hash("e", 9)] * 5 + [
        spec.token_hash("a", 9)
    ]
    assert len(cache) == 3


def test_threads_share_one_embedder() -> None:
    embedder = HashingEmbedder(dimension=64)
    texts = [f"turn {i}: word{i % 97} and word{i % 89} again" for i in range(400)]
    expected = text_spec(embedder, texts)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda t: embedder.encode([t])[0], texts))
    np.testing.assert_allclose(np.stack(results), expected, atol=1e-6)


# --- invalid input: each raises its own class, natively and in the twin -----------------------

GOOD: Batch = ([0, 2], [0, 1], [5, 6], [0, 1, 3], [97, 98, 99])


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"dimension": 1}, InvalidArgumentError),
        ({"dimension": 0}, InvalidArgumentError),
        ({"dimension": -3}, InvalidArgumentError),
        ({"dimension": (1 << 20) + 1}, InvalidArgumentError),
        ({"ngram_range": (0, 1)}, InvalidArgumentError),
        ({"ngram_range": (2, 1)}, InvalidArgumentError),
        ({"ngram_range": (1, 9)}, InvalidArgumentError),
        ({"char_ngrams": (0, 2)}, InvalidArgumentError),
        ({"char_ngrams": (3, 13)}, InvalidArgumentError),
        ({"seed": -1}, InvalidArgumentError),
        ({"seed": 1 << 64}, InvalidArgumentError),
        ({"empty_hash": -1}, InvalidArgumentError),
        ({0: []}, InvalidArgumentError),  # no text_offsets at all
        ({0: [1, 2]}, InvalidArgumentError),  # does not start at 0
        ({0: [0, 2, 1]}, InvalidArgumentError),  # decreases
        ({0: [0, 1]}, InvalidArgumentError),  # does not end at len(ids)
        ({0: [0, 3]}, InvalidArgumentError),  # past the end of ids
        ({1: [0, 2]}, InvalidArgumentError),  # id past the unique tokens
        ({1: [-1, 0]}, InvalidArgumentError),  # negative id
        ({3: [0, 1]}, ShapeError),  # char_offsets not len(hashes) + 1 long
        ({3: [0, 1, 2]}, InvalidArgumentError),  # char_offsets does not end at len(chars)
        ({3: [0, 2, 1]}, InvalidArgumentError),  # char_offsets decreases
    ],
)
def test_invalid_input(change: dict[Any, Any], error: type[Exception]) -> None:
    batch = list(GOOD)
    p = params()
    for key, value in change.items():
        if isinstance(key, int):
            batch[key] = value
        else:
            p[key] = value
    with pytest.raises(error):
        hashembed.hash_embed(*batch, **p)
    with pytest.raises(error):
        ref.hash_embed(*batch, **p)


@pytest.mark.parametrize(
    "bad",
    [{"dimension": 2.5}, {"ngram_range": (1,)}, {"ngram_range": "ab"}, {"char_ngrams": 3}],
)
def test_parameters_of_the_wrong_type(bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgumentError):
        hashembed.hash_embed(*GOOD, **{**params(), **bad})


def test_facade_conversion_errors() -> None:
    with pytest.raises(DTypeError):
        hashembed.hash_embed([0.0, 2.0], *GOOD[1:], **params())
    with pytest.raises(DTypeError):
        hashembed.hash_embed(*GOOD[:2], np.array([5.0, 6.0]), *GOOD[3:], **params())
    with pytest.raises(InvalidArgumentError):
        hashembed.hash_embed(*GOOD[:2], [-5, 6], *GOOD[3:], **params())
    with pytest.raises(InvalidArgumentError):
        hashembed.hash_embed(*GOOD[:4], np.array([97, 98, 1 << 32]), **params())
    # Matching arrays of other integer dtypes are converted.
    out = hashembed.hash_embed(*(np.asarray(a, dtype=np.int32) for a in GOOD), **params())
    np.testing.assert_array_equal(out, hashembed.hash_embed(*GOOD, **params()))


def arrays() -> list[np.ndarray]:
    dtypes = [np.int64, np.int64, np.uint64, np.int64, np.uint32]
    return [np.asarray(a, dtype=d) for a, d in zip(GOOD, dtypes, strict=True)]


@pytest.mark.parametrize("position", range(5))
def test_native_array_contracts(position: int) -> None:
    good = arrays()
    wrong = list(good)
    wrong[position] = good[position].astype(np.float64)
    with pytest.raises(DTypeError):
        _native.hash_embed(*wrong, **params())
    strided = list(good)
    strided[position] = np.repeat(good[position], 2)[::2]
    with pytest.raises(LayoutError):
        _native.hash_embed(*strided, **params())
    two_d = list(good)
    two_d[position] = good[position].reshape(1, -1)
    with pytest.raises(InvalidArgumentError):
        _native.hash_embed(*two_d, **params())
    assert _native.hash_embed(*good, **params()).shape == (1, 16)
