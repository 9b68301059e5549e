"""Answer-type prior: a question asking for instances of a category favours turns naming one.

"Which cities has Jon visited?" is answered by "Took a short trip last week to Rome", which
shares no word with the question and little meaning. A question *asks for* a category of
:data:`~remem.controller.stages.answer_lexicon.CATEGORIES` when

* it opens (after an optional preposition) with what / which / name / list / how many and one
  of the category's nouns (or a two-word noun) is among the next four words ("What European
  countries has Maria been to?", "What book did Melanie read …?", "How many dogs …");
* or it is "where has|have|did|does|do|is|was <up to three words> <verb>" with one of the
  place verbs ("Where has Maria vacationed?", "Where did Caroline move from?"; only "where"
  asks for a place by its verb);
* or it is "what does|do|did|has|have <up to three words> <verb>" with a category's verb
  ("What instruments does X play" is caught by the noun; "What does X play?" by the verb).

A candidate *mentions an instance* of a category when its text holds one of the category's
instance words or phrases as whole words (case-insensitive); of the ``people`` category, when
it holds a capitalised word that does not start a sentence and is no participant's name, no
weekday, month or pronoun (:func:`names_someone`). Such a candidate of such a question is
multiplied by ``1 + boost``; the others by 1. On by default at boost 2 (measured on LoCoMo dev
by ``benches/locomo_stages.py --answer-type``, under both fusions by ``--fusions linear,rrf``,
and on the held-out synthetic set by ``benches/rerank_synthetic.py --answer-type 2``; see the
README). ``enabled = false`` switches it off.

>>> sorted(asked_categories("Which cities has Jon visited?"))
['place']
>>> mentions("Took a short trip last week to Rome", frozenset({"place"}), frozenset())
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from remem.controller.stages.answer_lexicon import CATEGORIES
from remem.errors import ConfigError

__all__ = ["AnswerTypePriorConfig", "asked_categories", "mentions", "names_someone"]

_WORD = re.compile(r"[a-z0-9]+(?:['\u2019.-][a-z0-9]+)*")
_OPENERS = frozenset({"what", "which", "name", "list", "how"})
_PREPOSITIONS = frozenset({"in", "on", "at", "to", "from", "for", "with", "of", "by", "about"})
_AUX = frozenset({"has", "have", "did", "does", "do", "is", "was", "are", "were", "had"})
_NOUN_WINDOW = 4
_VERB_WINDOW = 3
_NOT_NAMES = frozenset(
    re.split(
        r"\s+",
        "i i'm i've i'd i'll im ive monday tuesday wednesday thursday friday saturday sunday "
        "january february march april may june july august september october november december "
        "hey hi hello thanks thank wow oh yeah yes no ok okay omg lol haha god mom dad mum "
        "image photo lgbtq lgbt pride covid christmas easter halloween thanksgiving",
    )
)


@dataclass(frozen=True)
class AnswerTypePriorConfig:
    """``enabled``; ``boost``: the extra share of a candidate that mentions an instance of the
    category the question asks for."""

    # LoCoMo dev (``benches/locomo_stages.py --embedder local --answer-type``): boost 2 gives
    # multi-hop R@10 50.0 → 53.2, MRR 60.4 → 61.4, R@10 80.9 → 81.3, nothing hurt; the
    # held-out synthetic set MRR 0.510 → 0.777 (hashing): on by default. Boosts 0.5 to 4
    # measured, 2 the best (``--boosts 2,3,4``; README, "Answer-type prior").
    enabled: bool = True
    boost: float = 2.0

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"answer_type.enabled must be true or false, got {self.enabled!r}")
        if isinstance(self.boost, bool) or not (
            isinstance(self.boost, int | float) and 0.0 <= self.boost <= 10.0
        ):
            raise ConfigError(f"answer_type.boost is {self.boost!r}; use a number in [0, 10]")


def _nouns_in(words: list[str]) -> set[str]:
    """The categories one of whose nouns (one word or two) is among ``words``."""
    found: set[str] = set()
    pairs = [f"{a} {b}" for a, b in pairwise(words)]
    for name, category in CATEGORIES.items():
        if any(w in category.nouns for w in words) or any(p in category.nouns for p in pairs):
            found.add(name)
    return found


@lru_cache(maxsize=4096)
def asked_categories(question: str) -> frozenset[str]:
    """The categories ``question`` asks instances of (see the module docstring); empty when
    it asks for none."""
    words = _WORD.findall(question.casefold())
    while words and words[0] in _PREPOSITIONS:
        words = words[1:]
    if not words:
        return frozenset()
    head, rest = words[0], words[1:]
    found: set[str] = set()
    if head in _OPENERS:
        if head == "how":
            if not rest or rest[0] != "many":
                return frozenset()
            rest = rest[1:]
        found |= _nouns_in(rest[:_NOUN_WINDOW])
    if head in ("what", "where") and rest and rest[0] in _AUX:
        tail = rest[1 : 2 + _VERB_WINDOW]
        for name, category in CATEGORIES.items():
            if (head == "where") != (name == "place"):
                continue
            if any(w in category.verbs for w in tail):
                found.add(name)
    return frozenset(found)


@lru_cache(maxsize=64)
def _pattern(name: str) -> re.Pattern[str] | None:
    phrases = sorted(CATEGORIES[name].instances, key=len, reverse=True)
    if not phrases:
        return None
    body = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in phrases)
    return re.compile(rf"(?<![\w'])(?:{body})(?![\w'])", re.IGNORECASE)


_CAPITAL = re.compile(r"(?<![\w'])[A-Z][a-z]{2,}(?![\w])")
_SENTENCE_END = frozenset('.!?:"\u201c(')


def names_someone(text: str, participants: frozenset[str]) -> bool:
    """Whether ``text`` holds a capitalised word that is likely a name: not at the start of
    the text or of a sentence, not a participant's name word, not in a small stop list."""
    own = {w.casefold() for p in participants for w in p.split()}
    for m in _CAPITAL.finditer(text):
        before = text[: m.start()].rstrip()
        if not before or before[-1] in _SENTENCE_END:
            continue
        word = m.group().casefold()
        if word in own or word in _NOT_NAMES:
            continue
        return True
    return False


@lru_cache(maxsize=16384)
def mentions(text: str, categories: frozenset[str], participants: frozenset[str]) -> bool:
    """Whether ``text`` mentions an instance of one of ``categories`` (see the module
    docstring); ``participants``: the names that do not count as a ``people`` instance.
    Cached: the same candidates come back query after query."""
    for name in sorted(categories):
        if name == "people":
            if names_someone(text, participants):
                return True
            continue
        pattern = _pattern(name)
        if pattern is not None and pattern.search(text) is not None:
            return True
    return False
