"""The guards of the grammar: where a clause starts, and whether a sentence is a question, a
plan or a condition, or says that something stopped.

- :func:`skip_lead` — leading discourse words ("so", "lol", "by the way"), a leading time
  phrase ("last week,") and a leading "after the divorce" are not part of a statement;
- :func:`is_question` — ends with "?" or starts like one ("should i quit");
- :func:`hypothetical` — "if", "would", "I'd", "maybe", "thinking of", "going to move" …, and a
  clause-initial gerund that is judged ("living in Milan sounds amazing");
- :func:`stopped` — "no longer", "anymore", "any more", "any longer" (a negation that ends a
  fact rather than denying it).
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.extraction.grammar.lexicon import CLASSES, DISCOURSE_PHRASES
from remem.extraction.grammar.tokens import Sentence, Token

__all__ = [
    "NEGATION",
    "hypothetical",
    "is_question",
    "maybe_hypothetical",
    "skip_lead",
    "stopped",
]

_DISCOURSE = CLASSES["discourse"] | CLASSES["correction"] | frozenset({"actually", ","})
_TIME_LEAD = frozenset(
    [
        "last",
        "this",
        "next",
        "yesterday",
        "today",
        "recently",
        "lately",
        "finally",
        "so",
        "since",
        "in",
        "over",
        "a",
        "few",
        "couple",
        "of",
        "weeks",
        "week",
        "months",
        "month",
        "years",
        "year",
        "days",
        "day",
        "ago",
        "the",
        "past",
        "weekend",
        "summer",
        "winter",
        "spring",
        "autumn",
        "fall",
    ]
)
_PHRASE_FIRST: dict[str, list[tuple[str, ...]]] = {}
for _p in DISCOURSE_PHRASES:
    _PHRASE_FIRST.setdefault(_p[0], []).append(_p)
NEGATION = CLASSES["neg"]
"""Words that negate what follows them in a clause."""
_HYPO = CLASSES["hypothetical"]
_DAY_WORDS = CLASSES["weekday"] | frozenset({"yesterday", "today", "tonight", "tomorrow"})
_Q_AUX = CLASSES["question_aux"]
_Q_SUBJ = CLASSES["question_subject"]
_VERBISH_HYPO = frozenset({"want", "wants", "wanted", "going", "need", "trying"})
_JUDGED = frozenset({"sounds", "sound", "seems", "seem", "looks", "feels", "must"})
"""After a clause-initial gerund, a judgement: "living in Milan sounds amazing" (no fact)."""
_HYPO_ANY = _HYPO | _VERBISH_HYPO | _JUDGED | frozenset({"what", "how"})
_PLACE_AFTER_TO = frozenset(
    ["the", "a", "an", "my", "our", "bed", "work", "school", "church", "uni", "college"]
)


def maybe_hypothetical(sentence: Sentence) -> bool:
    """False when no word of the sentence can make a clause hypothetical (a quick test)."""
    return not sentence.words.isdisjoint(_HYPO_ANY)


def is_question(sentence: Sentence) -> bool:
    if sentence.question:
        return True
    tokens = sentence.tokens
    i = skip_lead(tokens)
    # an inversion typed without "?": "should i quit", "do you think I should move" — but
    # after a time word it is a statement: "yesterday was my last day at Wickes"
    return (
        i + 1 < len(tokens)
        and tokens[i].low in _Q_AUX
        and tokens[i + 1].low in _Q_SUBJ
        and not any(t.low in _DAY_WORDS for t in tokens[:i])
    )


def skip_lead(clause: Sequence[Token]) -> int:
    i, n = 0, len(clause)
    while i < n:
        low = clause[i].low
        phrase = None
        for p in _PHRASE_FIRST.get(low, ()):
            if tuple(t.low for t in clause[i : i + len(p)]) == p:
                phrase = p
                break
        if phrase is not None:
            i += len(phrase)
        elif low == "no" and i + 1 < n and clause[i + 1].low == "longer":
            break  # "no longer vegan": a negation, not a discourse "no"
        elif low in ("after", "before", "following", "once") and i == 0:
            # "after the divorce I moved to Brighton": the clause starts at the subject
            j = next((k for k in range(i + 1, min(n, i + 7)) if clause[k].low in ("i", "we")), None)
            if j is None:
                break
            i = j
        elif low in _DISCOURSE or clause[i].kind == "punct":
            i += 1
        elif low in ("last", "this", "yesterday", "today", "recently", "lately") or (
            low == "a" and i + 2 < n and clause[i + 2].low == "ago"
        ):
            j = i + 1
            while j < n and clause[j].low in _TIME_LEAD:
                j += 1
            if j < n and clause[j].low == ",":
                j += 1
            if j == i + 1 and low not in ("yesterday", "today", "recently", "lately"):
                break
            i = j
        else:
            break
    return i


def stopped(clause: Sequence[Token]) -> bool:
    """The clause says something stopped: "no longer", "anymore", "any more/longer"."""
    for k, t in enumerate(clause):
        if t.low == "anymore":
            return True
        if t.low == "any" and k + 1 < len(clause) and clause[k + 1].low in ("more", "longer"):
            return True
        if t.low == "longer" and k > 0 and clause[k - 1].low == "no":
            return True
    return False


def _wish_luck(tokens: Sequence[Token], k: int) -> bool:
    """ "wish me luck", "wish us luck": a sign-off, not a wish about the statement."""
    return (
        tokens[k].low == "wish"
        and k + 2 < len(tokens)
        and tokens[k + 1].low in ("me", "us")
        and tokens[k + 2].low == "luck"
    )


def hypothetical(tokens: Sequence[Token]) -> bool:
    lead = skip_lead(tokens)
    if (
        lead < len(tokens)
        and tokens[lead].low.endswith("ing")
        and any(t.low in _JUDGED for t in tokens[lead + 1 :])
    ):
        return True
    for k, t in enumerate(tokens):
        if t.low in _HYPO and not (t.low == "may" and t.cap) and not _wish_luck(tokens, k):
            return True
        # "going to move" is a plan; "going to the beach" is not
        if (
            t.low in _VERBISH_HYPO
            and k + 1 < len(tokens)
            and tokens[k + 1].low == "to"
            and not (k + 2 < len(tokens) and tokens[k + 2].low in _PLACE_AFTER_TO)
        ):
            return True
        if t.low in ("what", "how") and k + 1 < len(tokens) and tokens[k + 1].low == "if":
            return True
    return False
