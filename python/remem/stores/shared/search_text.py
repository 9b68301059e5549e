"""What full-text search indexes and matches: one normalisation shared by every backend.

Chat text mixes languages, accents, emoji and code. Rather than rely on each engine's own
tokenizer (SQLite FTS5 ``unicode61`` and PostgreSQL's ``simple`` config disagree on accents and
neither segments Chinese or Japanese), remem derives a *search text* in Python and lets both
engines merely split it on non-word characters and lowercase it:

1. NFKC normalisation, then accents removed (NFKD, combining marks dropped): "café" ≡ "cafe",
   fullwidth letters ≡ ASCII ones.
2. Runs of CJK characters (Han, Hiragana, Katakana, Hangul) become overlapping **bigrams**
   plus unigrams — the classic CJK indexing of Lucene's CJKAnalyzer. "東京に住む" is indexed as
   東 京 に 住 む 東京 京に に住 住む, so the two-character word 東京 matches. Measured on the
   cases in tests/stores/test_search_text.py: FTS5 ``unicode61`` alone finds none of the CJK
   queries (a whole sentence is one token); the ``trigram`` tokenizer cannot match one- or
   two-character queries, and 2-character words are the most common in Chinese and Japanese;
   bigrams find all of them, in both backends, with the same tokens.
3. The query goes through the same steps and its words are ORed: a turn matching more of the
   words (or rarer ones) ranks higher. Each word is quoted for the engine, so operators and
   punctuation in user text are never query syntax.
4. Query planning: English stop words (:data:`STOPWORDS`) are dropped from the *query* (never
   from the index), unless every term of the query is one — then all are kept, so a query is
   never emptied ("the who" still finds "The Who"). In real chat text "the", "is", "where"
   occur in most turns: they add almost nothing to a bm25 ranking (idf near zero) but make the
   engine score every document containing them — measured on a 10k-memory chat corpus, most of
   a recall's full-text time. Question and hedge words ("kind", "likely", "think": see
   :data:`QUESTION_STOPWORDS`, chosen on the LoCoMo dev split) are dropped too, and so is a
   contraction's tail after a stop word ("what's", "I'm": :data:`CONTRACTION_FRAGMENTS`). Both
   backends plan through :meth:`FullTextConfig.query_terms`, so they agree.
5. Stemming (:mod:`remem.stores.shared.stemming`, Snowball English by default): every word token
   without a digit is replaced by its stem, in the index and in the query alike, so "hiking"
   finds "hiked". Numbers, mixed tokens ("3pm") and CJK grams are kept as they are. The
   language is a :class:`FullTextConfig` field carried to every backend; ``None`` keeps words
   unstemmed. Stop words are matched *before* stemming, on the folded word the user wrote.

Engines: PostgreSQL ranks with ``ts_rank_cd`` over a ``simple`` tsvector of the (already
stemmed) search text. SQLite keeps an FTS5
table (``unicode61 remove_diacritics 2``) as the durable index and, by default, answers queries
from an in-memory copy of it that ranks identically
(:mod:`remem.stores.sqlite.episode_index`); that copy indexes the tokens *FTS5* made of the
search text, which are this module's tokens but for three details measured over every code
point — the final sigma, a few characters SQLite's older Unicode tables treat as separators
(kana voicing marks and middle dots among them), and tokens over 32 KB — see
:mod:`remem.stores.sqlite.fts5_tokens`.

BM25 keeps FTS5's k1 = 1.2, b = 0.75 (constants of ``fts5Bm25Function`` in SQLite's
fts5_aux.c: FTS5 cannot rank otherwise). Measured on the LoCoMo dev split
(``scripts/tune_fulltext.py``, a k1 × b grid over the in-memory index), the best pair (k1 1.6,
b 0.3) gains 1.4 points of R@10 and 2.3 of MRR: too little to let the in-memory index rank
differently from FTS5 (which answers phrase terms and ``search_index="fts5"``) and PostgreSQL.

Only the first ``MAX_INDEXED_CHARS`` characters of a text are searchable (PostgreSQL's tsvector
is limited to 1 MB); the whole text is stored and returned.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from remem.errors import ConfigError
from remem.stores.shared.stemming import check_language, stemmer_for

MAX_INDEXED_CHARS = 100_000
"""Characters of a turn or note that search covers; the rest is stored but not indexed."""

MAX_QUERY_TERMS = 64
"""Distinct words of a query that are searched; later ones are ignored."""

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
"""English stop words dropped from full-text queries (see step 4 of the module docstring).

The classic English list (NLTK's, itself from the Snowball stemmer project) minus the
negations ("no", "not", "nor") and the contraction fragments ("s", "t", "don" ...): a negation
can carry the point of a question. Words are folded (lowercase, no accents) like every term.
"""

QUESTION_STOPWORDS: frozenset[str] = frozenset(
    """
    believe considered get go going got kind like likely many maybe mention mentioned might
    often perhaps possibly probably recently specific tell think thinks type types
    """.split()  # noqa: SIM905
)
"""Question and hedge words with no content in a question ("What *kind* of music would she
*likely* enjoy?"), dropped from queries besides :data:`STOPWORDS` (together:
:data:`DEFAULT_STOPWORDS`). Chosen by measurement on the LoCoMo dev split
(``scripts/tune_fulltext.py``): each candidate was kept only if dropping it lowered neither
R@10 nor MRR there ("say" did); the four pure hedges are kept although no dev question has them.
Together (with stemming): R@10 62.5 → 63.2, MRR 46.9 → 47.6. "may" (also the month) and "one"
(a number) were not tried.
"""

_CJK = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"  # Hangul
    "\U00020000-\U0002fa1f"  # Han extensions
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
"""``_TOKEN`` on lowercase ASCII text: no CJK, and ``[^\\W_]`` is exactly ``[a-z0-9]``."""
_ACCENTS = re.compile("[\u0300-\u036f]+")


def fold(text: str) -> str:
    """NFKC, lowercased, then Latin/Greek/Cyrillic accents (U+0300-U+036F) removed.

    Only that block is stripped: kana voicing marks (が = か + U+3099) carry meaning.
    ASCII text only needs lowercasing (every normalisation step leaves it unchanged); that
    shortcut matters because every turn and memory is folded when it is indexed.
    """
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).lower())
    return unicodedata.normalize("NFC", _ACCENTS.sub("", decomposed))


def _cjk_grams(run: str) -> list[str]:
    grams = list(run)
    grams.extend(run[i : i + 2] for i in range(len(run) - 1))
    return grams


NORMALISATION_VERSION = 2
"""Bumped whenever :func:`search_text` indexes a text differently (2: Snowball stemming). A store
whose index was built by another version (or language) re-indexes its stored texts on open."""

DEFAULT_LANGUAGE = "english"
DEFAULT_STOPWORDS: frozenset[str] = STOPWORDS | QUESTION_STOPWORDS
"""The query stop words every store uses unless told otherwise."""

CONTRACTION_FRAGMENTS: frozenset[str] = frozenset({"s", "m", "re", "ve", "ll", "d"})
"""The tails of English contractions ("what's", "I'm", "you're", "we've", "they'll", "I'd"),
which the tokeniser splits off as words. After a stop word ("what" 's, "i" 'm) such a tail is a
stop word too: "What's my job?" is planned as ``['job']``, not ``['s', 'job']`` — "s" occurs in
most chat turns ("it's", "that's"), and as a query's only matching term it ranked a full-text
list of pure noise first (a persona's "What's my job?" against a turn that names the job but not
the word). After any other word the tail stays, since it is the possessive ("Caroline's",
in 67 of the 383 LoCoMo dev questions): dropping "s" everywhere lowered the dev split's
full-text R@10 by 0.3 and MRR by 0.2 (``scripts/tune_fulltext.py``). "t" ("don't", "isn't") is
not a fragment here: a negation can carry the point of a question. The rule only fires after a
word of the config's own ``stopwords``, so another language's list is unaffected."""


@dataclass(frozen=True)
class FullTextConfig:
    """How text is normalised for full-text search, identical in every backend.

    ``language``: the Snowball stemmer applied to indexed and queried words (``"english"``,
    ``"french"``, ... — see :data:`remem.stores.shared.stemming.LANGUAGES`), or ``None`` /
    ``"none"`` for no stemming; anything else raises ConfigError. ``stopwords``: the words dropped
    from queries (matched on the folded, unstemmed word), by default :data:`DEFAULT_STOPWORDS`; pass
    :data:`STOPWORDS` to keep question words, or another language's list.

    >>> FullTextConfig().search_text("We went hiking in 2022")
    'we went hike in 2022'
    >>> FullTextConfig(language=None).query_terms("What kind of hikes would she likely enjoy?")
    ['hikes', 'enjoy']
    """

    language: str | None = DEFAULT_LANGUAGE
    stopwords: frozenset[str] = field(default_factory=lambda: DEFAULT_STOPWORDS)

    def __post_init__(self) -> None:
        object.__setattr__(self, "language", check_language(self.language))
        words = self.stopwords
        if isinstance(words, str) or not all(isinstance(w, str) for w in words):
            raise ConfigError("stopwords must be a set of words (str), e.g. STOPWORDS")
        object.__setattr__(self, "stopwords", frozenset(fold(w) for w in words))

    @property
    def identity(self) -> str:
        """What an index built with this config depends on (stored beside the index): the
        normalisation version and the language — not the query-side stop words."""
        return f"remem-search-text-{NORMALISATION_VERSION}:{self.language or 'none'}"

    def _stem(self, tokens: list[str]) -> list[str]:
        if self.language is None or not tokens:
            return tokens
        return stemmer_for(self.language).stem(tokens)

    def search_text(self, text: str) -> str:
        """The space-separated tokens a backend indexes for ``text``."""
        folded = fold(text[:MAX_INDEXED_CHARS])
        if folded.isascii():
            return " ".join(self._stem(_ASCII_TOKEN.findall(folded)))
        tokens: list[str] = []
        words: list[str] = []  # stemmed in one call, then put back at their places
        places: list[int] = []
        for match in _TOKEN.finditer(folded):
            token = match.group()
            if _CJK_RUN.fullmatch(token):
                tokens.extend(_cjk_grams(token))
            else:
                places.append(len(tokens))
                words.append(token)
                tokens.append(token)
        for place, stem in zip(places, self._stem(words), strict=True):
            tokens[place] = stem
        return " ".join(tokens)

    def query_terms(self, query: str) -> list[str]:
        """The distinct terms of a user query, in order (at most ``MAX_QUERY_TERMS``), stemmed,
        without stop words unless every term is one.

        A CJK run of one character is that character; a longer run is its bigrams, so a query
        matches texts that contain the run (every bigram) best, and texts with part of it still
        rank.

        >>> FullTextConfig().query_terms("Where is the spare key?")
        ['spare', 'key']
        >>> FullTextConfig().query_terms("The Who")
        ['the', 'who']
        """
        terms, after_stopword = _all_terms(query, self.stopwords)
        kept = [t for t in terms if t not in self.stopwords and t not in after_stopword] or terms
        if self.language is not None:
            words = [t for t in kept if not _CJK_RUN.match(t)]
            stems = iter(self._stem(words))
            kept = list(dict.fromkeys(t if _CJK_RUN.match(t) else next(stems) for t in kept))
        return kept[:MAX_QUERY_TERMS]


DEFAULT_FULL_TEXT = FullTextConfig()
"""English stemming and the question stop words: what every store uses unless told otherwise."""


def search_text(text: str, config: FullTextConfig = DEFAULT_FULL_TEXT) -> str:
    """:meth:`FullTextConfig.search_text` (the default config unless one is given)."""
    return config.search_text(text)


def query_terms(query: str, config: FullTextConfig = DEFAULT_FULL_TEXT) -> list[str]:
    """:meth:`FullTextConfig.query_terms` (the default config unless one is given).

    >>> query_terms("Where did we go hiking?")
    ['go', 'hike']
    """
    return config.query_terms(query)


def _all_terms(query: str, stopwords: frozenset[str]) -> tuple[list[str], set[str]]:
    """The distinct terms of ``query`` in order, and the contraction fragments that occur only
    right after a stop word (:data:`CONTRACTION_FRAGMENTS`)."""
    terms: list[str] = []
    seen: set[str] = set()
    fragments: set[str] = set()
    content_fragments: set[str] = set()
    previous = ""
    for match in _TOKEN.finditer(fold(query)):
        token = match.group()
        if token in CONTRACTION_FRAGMENTS:
            (fragments if previous in stopwords else content_fragments).add(token)
        previous = token
        if _CJK_RUN.fullmatch(token) and len(token) > 1:
            candidates = [token[i : i + 2] for i in range(len(token) - 1)]
        else:
            candidates = [token]
        for term in candidates:
            if term not in seen:
                seen.add(term)
                terms.append(term)
    return terms, fragments - content_fragments


def fts5_match(terms: list[str]) -> str:
    """An FTS5 MATCH expression ORing the terms, each a quoted string (never syntax)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)
