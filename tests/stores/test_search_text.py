"""The shared search-text normalisation, and the measurement behind the CJK decision."""

from __future__ import annotations

import sqlite3
import unicodedata

import pytest
import Stemmer  # type: ignore[import-not-found]
from hypothesis import given
from hypothesis import strategies as st

from remem.errors import ConfigError
from remem.stores.shared.search_text import (
    _CJK_RUN,
    _TOKEN,
    DEFAULT_FULL_TEXT,
    DEFAULT_STOPWORDS,
    MAX_QUERY_TERMS,
    QUESTION_STOPWORDS,
    STOPWORDS,
    FullTextConfig,
    fold,
    fts5_match,
    query_terms,
    search_text,
)

UNSTEMMED = FullTextConfig(language=None)

# (text, query): a word a user would type, inside a sentence without spaces.
CJK_CASES = [
    ("我住在东京都很多年了", "东京"),  # 2-character Chinese word
    ("私は東京に住んでいます", "東京"),  # 2-character Japanese word
    ("私は東京に住んでいます", "住んで"),  # 3 characters
    ("明天我们去北京大学参观", "北京大学"),  # 4 characters
    ("我喜欢喝茶", "茶"),  # 1 character
    ("서울에서 커피를 마셨다", "커피"),  # Korean, spaced words with particles
]


def _hits(tokenizer: str, prepare: bool) -> int:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{tokenizer}')")
    found = 0
    for text, query in CJK_CASES:
        conn.execute("DELETE FROM t")
        conn.execute("INSERT INTO t VALUES (?)", (search_text(text) if prepare else text,))
        terms = query_terms(query) if prepare else [query]
        row = conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (fts5_match(terms),))
        found += row.fetchone()[0]
    conn.close()
    return found


def test_cjk_bigrams_beat_unicode61_and_trigram() -> None:
    """The measurement behind the choice documented in remem.stores.shared.search_text."""
    assert _hits("unicode61 remove_diacritics 2", prepare=False) == 0
    assert _hits("trigram", prepare=False) == 2  # only the 3- and 4-character queries
    assert _hits("unicode61 remove_diacritics 2", prepare=True) == len(CJK_CASES)


def test_fold_removes_accents_but_keeps_kana_voicing() -> None:
    assert fold("Café ÉTÉ") == "cafe ete"
    assert fold("ＡＢＣ１") == "abc1"  # noqa: RUF001
    assert fold("が") != fold("か")


def test_search_text_and_terms() -> None:
    assert search_text("Hello, 東京に!") == "hello 東 京 に 東京 京に"
    assert query_terms("東京に hello HELLO") == ["東京", "京に", "hello"]
    assert query_terms("'\" AND ()") == ["and"]
    assert query_terms("") == []
    assert len(query_terms(" ".join(f"w{i}" for i in range(500)))) == MAX_QUERY_TERMS


def test_stopwords_are_dropped_unless_the_query_is_only_stopwords() -> None:
    assert query_terms("Where is the spare key?") == ["spare", "key"]
    assert query_terms("THE Who") == ["the", "who"]  # never emptied
    assert query_terms("not the coffee") == ["not", "coffe"]  # negations are kept
    assert UNSTEMMED.query_terms("not the coffee") == ["not", "coffee"]
    assert {fold(w) for w in DEFAULT_STOPWORDS} == DEFAULT_STOPWORDS  # folded like query terms
    assert not {"no", "not", "nor", "never"} & DEFAULT_STOPWORDS
    # Stop words do not use up the term budget.
    long = " ".join(["the"] * 10 + [f"w{i}" for i in range(MAX_QUERY_TERMS)])
    assert query_terms(long) == [f"w{i}" for i in range(MAX_QUERY_TERMS)]


@given(st.text())
def test_any_text_makes_a_valid_fts5_query(text: str) -> None:
    terms = query_terms(text)
    if not terms:
        return
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    conn.execute("INSERT INTO t VALUES (?)", (search_text(text),))
    row = conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (fts5_match(terms),))
    assert row.fetchone() == (1,)
    conn.close()


@pytest.mark.parametrize("text", ["", "   ", "!!!", "🙂🙂"])
def test_texts_without_words_have_no_tokens(text: str) -> None:
    assert search_text(text) == ""


def _slow_fold(text: str) -> str:
    """The definition, step by step, with no shortcut (the fast paths must agree with it)."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).lower())
    stripped = "".join(ch for ch in decomposed if not "\u0300" <= ch <= "\u036f")
    return unicodedata.normalize("NFC", stripped)


_ENGLISH = Stemmer.Stemmer("english")


def _slow_search_text(text: str, *, stem: bool) -> str:
    tokens: list[str] = []
    for match in _TOKEN.finditer(_slow_fold(text)):
        token = match.group()
        if _CJK_RUN.fullmatch(token):
            tokens.extend(list(token) + [token[i : i + 2] for i in range(len(token) - 1)])
        elif stem and not any(ch.isdigit() for ch in token):
            tokens.append(_ENGLISH.stemWord(token) or token)
        else:
            tokens.append(token)
    return " ".join(tokens)


@given(
    st.one_of(
        st.text(),
        st.text(alphabet=st.characters(max_codepoint=127)),
        # accents, dotless/dotted i, long s, ligature, titlecase digraph, sigmas, CJK,
        # halfwidth kana, fullwidth digit, combining marks
        st.text(alphabet="aéÉ\u0131\u0130\u017f\ufb01\u01c5Σ\u03c3ς東京ｶﾞ_0\uff19 \u0301\u3099"),
    )
)
def test_fast_paths_equal_the_definition(text: str) -> None:
    assert fold(text) == _slow_fold(text)
    assert search_text(text) == _slow_search_text(text, stem=True)
    assert UNSTEMMED.search_text(text) == _slow_search_text(text, stem=False)


def test_stemming_meets_inflections_in_index_and_query() -> None:
    indexed = search_text("We went hiking and she hikes; he hiked twice in the 1990s at 3pm")
    assert indexed.split().count("hike") == 3
    assert {"1990s", "3pm"} <= set(indexed.split())  # digits: never stemmed
    assert query_terms("hike hiking HIKES") == ["hike"]  # stems are deduplicated
    assert UNSTEMMED.query_terms("hike hiking") == ["hike", "hiking"]
    assert (
        search_text("東京に住む hiking") == "東 京 に 住 む 東京 京に に住 住む hike"
    )  # CJK as is


def test_stemming_language_is_validated_and_normalised() -> None:
    assert FullTextConfig(language="English").language == "english"
    assert FullTextConfig(language="none") == UNSTEMMED
    assert FullTextConfig(language="french").search_text("les chanteuses") == "le chanteux"
    with pytest.raises(ConfigError, match="klingon"):
        FullTextConfig(language="klingon")
    with pytest.raises(ConfigError, match="set of words"):
        FullTextConfig(stopwords="the")  # type: ignore[arg-type]
    # The identity names what the index depends on: the version and the language.
    assert DEFAULT_FULL_TEXT.identity.endswith(":english")
    assert UNSTEMMED.identity.endswith(":none")
    assert FullTextConfig(stopwords=STOPWORDS).identity == DEFAULT_FULL_TEXT.identity


def test_question_words_are_query_stop_words() -> None:
    question = "What kind of music would she likely enjoy?"
    assert query_terms(question) == ["music", "enjoy"]
    classic = FullTextConfig(stopwords=STOPWORDS)
    assert classic.query_terms(question) == ["kind", "music", "like", "enjoy"]
    assert QUESTION_STOPWORDS <= DEFAULT_STOPWORDS
    assert query_terms("likely kind") == ["like", "kind"]  # never emptied


def test_a_contraction_tail_after_a_stop_word_is_a_stop_word() -> None:
    assert query_terms("What's my job?") == ["job"]
    assert query_terms("I'm asking where you're from and what we've got") == ["ask"]
    # After a content word the tail is the possessive and stays, even if another use of it
    # in the same query follows a stop word.
    assert query_terms("What is Caroline's job?") == ["carolin", "s", "job"]
    assert query_terms("What's Caroline's job?") == ["s", "carolin", "job"]
    # "t" carries a negation; a query made only of stop words keeps them all.
    assert "t" in query_terms("Why don't I like it?")
    assert query_terms("it's") == ["it", "s"]
    # Another language's stop words: the English rule does not fire on their words.
    french = FullTextConfig(language=None, stopwords=frozenset({"le", "la"}))
    assert french.query_terms("what's up") == ["what", "s", "up"]


def test_stemming_from_many_threads_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyStemmer objects are not thread-safe: each thread must get its own, and a cache cleared
    by another thread must not lose a stem."""
    from concurrent.futures import ThreadPoolExecutor

    from remem.stores.shared import stemming

    monkeypatch.setattr(stemming, "CACHE_SIZE", 50)  # clears often
    words = [
        f"{w}{suffix}"
        for w in ("walk", "jump", "paint", "climb")
        for suffix in ("", "ing", "ed", "s", "er", "ers")
    ] * 20
    expected = [_ENGLISH.stemWord(w) for w in words]
    stemmer = stemming.TokenStemmer("english")
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: stemmer.stem(words), range(64)))
    assert all(r == expected for r in results)
