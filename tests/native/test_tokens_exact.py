"""Exactness of the fast counter: hand-written splitter + cached BPE vs the crate's regex path.

Three independent implementations must agree piece for piece and count for count: the fast
native path (``count_tokens``), the ``bpe-openai`` crate's own regex pre-tokenizer
(``_native._count_tokens_crate`` / ``_pretokenize(oracle=True)``), and the pure-Python reference.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import _corpus, _native
from remem.kernels import tokens as k
from remem.reference import _tokens_bpe
from remem.reference import tokens as ref

ENCODINGS = ("o200k_base", "cl100k_base")
SPLITS = {"o200k_base": _tokens_bpe.split_o200k, "cl100k_base": _tokens_bpe.split_cl100k}

# Characters chosen to hit every branch of the two regexes: contractions in all cases (and the
# long s U+017F that case-folds to 's'), Lu/Ll/Lt/Lm/Lo letters, combining marks (prefix chars
# that are also "upper-ish" and "lower-ish"), N digits of other scripts, Unicode whitespace,
# \r\n runs, '/', emoji with ZWJ/VS16/skin tones/flags, CJK, Arabic with harakat.
TRICKY = (
    "aZ zA'sS'LLre'Ve'dMtT\u017f\r\n\t \u3000\u00a0\u0085\u2028 0123\u0663\u216b\u00bd"
    "\u0301\u0300\u094d\u01c5\u02b0\u4e2d\u3072\ud55c\u00e9\u00c9\u00df\u03a3\u03c3\u0414\u0434"
    "!?.,/\\-_(){}#@\U0001f389\U0001f44d\U0001f3fd\u200d\ufe0f\U0001f1fa\U0001f1f8\u0627\u064b"
)
ADVERSARIAL = (
    st.text(alphabet=st.sampled_from(TRICKY), max_size=40)
    | st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40)
    | st.lists(
        st.sampled_from(["'s", "'LL", " \r\n", "  ", "\u0301AB", "HTTPServer", "123456", " // "]),
        max_size=8,
    ).map("".join)
)


def _reference_knows(text: str) -> bool:
    """False when ``text`` has a code point unassigned in Python's (older) Unicode database.

    The crate's tables are newer (e.g. CJK Extension H, U+31350, is a letter there): on such text
    only the fast path and the crate regex are compared.
    """
    return all(unicodedata.category(c) != "Cn" for c in text)


@settings(max_examples=200, deadline=None)
@given(ADVERSARIAL)
def test_pieces_match_crate_regex_and_reference(text: str) -> None:
    for enc in ENCODINGS:
        fast = _native._pretokenize(text, enc)
        assert fast == _native._pretokenize(text, enc, oracle=True)
        assert "".join(fast) == text
        if _reference_knows(text):
            assert fast == SPLITS[enc](text)


@settings(max_examples=80, deadline=None)
@given(st.lists(ADVERSARIAL, max_size=5))
def test_counts_match_crate_and_reference(texts: list[str]) -> None:
    for enc in ENCODINGS:
        fast = k.count_tokens(texts, enc).tolist()
        assert fast == _native._count_tokens_crate(texts, enc).tolist()
        if all(map(_reference_knows, texts)):
            assert fast == ref.count_tokens(texts, enc)
        assert fast == [k.count_tokens_one(t, enc) for t in texts]


@pytest.mark.parametrize("kind", _corpus.KINDS)
def test_corpus_counts_match_crate(kind: str) -> None:
    texts = _corpus.generate(kind, 40, seed=3)
    for enc in ENCODINGS:
        fast = k.count_tokens(texts, enc).tolist()
        assert fast == _native._count_tokens_crate(texts, enc).tolist()
        # The pure-Python BPE is slow on long pieces: check it on a prefix of each text.
        short = [t[:300] for t in texts[:6]]
        assert k.count_tokens(short, enc).tolist() == ref.count_tokens(short, enc)


def test_cache_refill_keeps_counts_exact() -> None:
    # Far more distinct short pieces than the per-thread cache holds, so it clears and refills.
    words = [f" w{i:x}q" for i in range(60_000)]
    texts = ["".join(words[j : j + 500]) for j in range(0, len(words), 500)]
    for enc in ENCODINGS:
        first = k.count_tokens(texts, enc).tolist()
        assert first == _native._count_tokens_crate(texts, enc).tolist()
        assert k.count_tokens(texts, enc).tolist() == first


def test_mark_before_capitals_splits_like_the_regex() -> None:
    # A combining mark is a prefix char and also U/W: the first word alternative without its
    # prefix wins over the second with it.
    assert _native._pretokenize("\u0301AB") == ["\u0301", "AB"]
    assert _tokens_bpe.split_o200k("\u0301AB") == ["\u0301", "AB"]
