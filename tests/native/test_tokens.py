"""Parity and exactness of the token kernels: native vs the pure-Python twins."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import _corpus, errors
from remem.kernels import tokens as k
from remem.reference import tokens as ref

# (text, o200k_base, cl100k_base). Each count is checked three ways below: the native kernel, the
# independent pure-Python BPE over the crate's vocabulary files, and a decode(encode()) round trip
# inside the crate's own tests (cargo test).
KNOWN = [
    ("", 0, 0),
    ("hello world", 2, 2),
    ("I'm don't HTTPServer  foo\n\n  bar", 9, 11),
    ("Привет, мир! 你好 🎉", 9, 13),
]

TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60) | st.sampled_from(
    ["'s", "I'M", "x'LL", "\r\n \n  a", "  \t b", "中A's", "ÀB", "1234567", " // ", ""]
)


@pytest.mark.parametrize(("text", "o200k", "cl100k"), KNOWN)
def test_known_counts(text: str, o200k: int, cl100k: int) -> None:
    assert k.count_tokens([text]).tolist() == [o200k]
    assert k.count_tokens_one(text, "cl100k_base") == cl100k


def test_reference_bpe_agrees_on_corpus() -> None:
    texts = [t[:400] for kind in _corpus.KINDS for t in _corpus.generate(kind, 4, seed=7)]
    for enc in ("o200k_base", "cl100k_base"):
        assert k.count_tokens(texts, enc).tolist() == ref.count_tokens(texts, enc)


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, max_size=6))
def test_estimate_matches_reference(texts: list[str]) -> None:
    got = k.estimate_tokens(texts)
    assert got.dtype == np.int64
    assert got.tolist() == ref.estimate_tokens(texts)
    assert [k.estimate_tokens_one(t) for t in texts] == got.tolist()


@settings(max_examples=60, deadline=None)
@given(TEXT)
def test_count_matches_reference_bpe(text: str) -> None:
    for enc in ("o200k_base", "cl100k_base"):
        assert k.count_tokens_one(text, enc) == ref.count_tokens_one(text, enc)


@settings(max_examples=60, deadline=None)
@given(TEXT)
def test_invariants(text: str) -> None:
    est, exact = k.estimate_tokens_one(text), k.count_tokens_one(text)
    assert (est == 0) == (text == "") == (exact == 0)
    assert exact <= len(text.encode("utf-8"))


def test_empty_inputs() -> None:
    for fn in (k.estimate_tokens, k.count_tokens):
        out = fn([])
        assert out.shape == (0,)
        assert out.dtype == np.int64
    # Tuples and plain iterables are accepted too.
    assert k.count_tokens(("a", "")).tolist() == [1, 0]
    lazy = iter(["", "a b"])
    assert k.estimate_tokens(lazy).tolist() == [0, 2]  # type: ignore[arg-type]


def test_large_batch_parallel_matches_sequential() -> None:
    texts = _corpus.generate("chat", 300, seed=5)
    assert k.count_tokens(texts).tolist() == [k.count_tokens_one(t) for t in texts]
    assert k.estimate_tokens(texts * 5).tolist() == [k.estimate_tokens_one(t) for t in texts] * 5


@pytest.mark.parametrize("name", ["p50k_base", "O200K_BASE", "", "gpt-4o"])
def test_unknown_encoding(name: str) -> None:
    with pytest.raises(errors.UnknownEncodingError, match="o200k_base"):
        k.count_tokens(["x"], name)
    with pytest.raises(errors.UnknownEncodingError):
        k.count_tokens_one("x", name)
    with pytest.raises(errors.UnknownEncodingError):
        ref.count_tokens(["x"], name)


@pytest.mark.parametrize("bad", ["a\ud800b", "\udfff", "ok\udc80"])
def test_lone_surrogate_is_invalid_argument(bad: str) -> None:
    for fn in (k.estimate_tokens, k.count_tokens, ref.estimate_tokens):
        with pytest.raises(errors.InvalidArgumentError, match=r"texts\[1\].*surrogate"):
            fn(["fine", bad])
    with pytest.raises(errors.InvalidArgumentError):
        k.count_tokens_one(bad)
    with pytest.raises(errors.InvalidArgumentError):
        k.estimate_tokens_one(bad)


@pytest.mark.parametrize("bad", ["a single str", ["ok", 3], [b"bytes"], 42])
def test_not_a_sequence_of_str(bad: object) -> None:
    for fn in (k.estimate_tokens, k.count_tokens, ref.estimate_tokens):
        with pytest.raises(errors.InvalidArgumentError):
            fn(bad)  # type: ignore[arg-type]
