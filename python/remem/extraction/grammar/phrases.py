"""Slot readers for common-noun phrases: a short phrase, a job, a diet, a habit, a list of
likes, an activity, a pastime taken as classes, a group one joins, one word.

A reader is ``(tokens, i) -> (end, value) | None`` (see :mod:`.slots`); a phrase stops at a stop
word or punctuation, drops a leading article and trailing dangling words, and gives nothing
when it runs on into a pronoun ("the sound of that").
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.extraction.grammar.lexicon import CLASSES, STOP, words
from remem.extraction.grammar.names import word_ok
from remem.extraction.grammar.tokens import Token

__all__ = [
    "read_activity",
    "read_diet",
    "read_group",
    "read_habit",
    "read_job",
    "read_list",
    "read_pastime",
    "read_phrase",
    "read_vice",
    "read_word",
]

_DIET = CLASSES["diet"]
_JOB_HEAD = CLASSES["job_head"]
_ARTICLE = words("a an the some")
_DANGLING = words("of the a an and or to")
_UNFINISHED = words("that it this them those these him her")
_TIME_NOUNS = words("days day week weeks weekend month months year years summer winter term")
_PHRASE_STOP = STOP | words("my your his her our their me you him them us i we allergy allergies")
_DIET_PAIRS = {
    ("plant", "based"): "plant-based",
    ("gluten", "free"): "gluten-free",
    ("dairy", "free"): "dairy-free",
    ("low", "carb"): "low-carb",
    ("whole", "30"): "whole30",
}


def read_phrase(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """1–4 words up to a stop word (a leading article dropped)."""
    n = len(tokens)
    if (
        i < n
        and tokens[i].low in _ARTICLE
        and not (tokens[i].cap and i + 1 < n and tokens[i + 1].cap)
    ):
        i += 1  # "the Cure" keeps no article, "The Cure" keeps its own
    j = i
    while j < n and j - i < 4 and tokens[j].kind == "word" and tokens[j].low not in _PHRASE_STOP:
        j += 1
    # "the sound of that" goes on into a pronoun; "gardening these days" ends in a time phrase
    unfinished = (
        j < n
        and tokens[j].low in _UNFINISHED
        and not (j + 1 < n and tokens[j + 1].low in _TIME_NOUNS)
    )
    while j > i and tokens[j - 1].low in _DANGLING:
        j -= 1
    if j == i or unfinished:
        return None
    return j, " ".join(t.text for t in tokens[i:j])


def read_job(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A phrase whose last word is a job ("senior software engineer", "nurse")."""
    found = read_phrase(tokens, i)
    if found is None:
        return None
    j, _ = found
    start = i + 1 if tokens[i].low in _ARTICLE else i
    if start < j and tokens[start].low == "new":
        start += 1  # "the new head chef" is a head chef
    while j > start and tokens[j - 1].low not in _JOB_HEAD:
        j -= 1
    if (
        j == start
        and tokens[start].low == "head"
        and start + 2 < len(tokens)
        and tokens[start + 1].low == "of"
        and word_ok(tokens[start + 2])
    ):
        j = start + 3  # "head of design"
    if j == start:
        return None
    return j, " ".join(t.text for t in tokens[start:j]).lower()


def read_diet(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A diet from the vocabulary ("vegan", "plant based" → "plant-based")."""
    n = len(tokens)
    if i < n and tokens[i].low in _ARTICLE:
        i += 1
    if i + 1 < n and (tokens[i].low, tokens[i + 1].low) in _DIET_PAIRS:
        return i + 2, _DIET_PAIRS[(tokens[i].low, tokens[i + 1].low)]
    if i < n and tokens[i].low in _DIET:
        value = "vegetarian" if tokens[i].low == "veggie" else tokens[i].low
        end = i + 1
        if end < n and tokens[end].low == "diet":
            end += 1
        return end, value
    return None


def read_habit(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """What a habit is: a gerund and up to two more words ("smoking", "drinking coffee"), one
    word and a gerund ("the sea swimming" → "sea swimming") or a habit noun ("coffee",
    "sugar", "yoga")."""
    n = len(tokens)
    if i < n and tokens[i].low == "the":
        i += 1
    if i >= n or tokens[i].kind != "word":
        return None
    first = tokens[i].low
    if (
        i + 1 < n
        and word_ok(tokens[i])
        and first not in _PHRASE_STOP
        and not _gerund(first)
        and first not in _HABIT_NOUNS
        and _gerund(tokens[i + 1].low)
        and tokens[i + 1].low not in _NOT_HABITS
    ):
        found = _read_item(tokens, i)
        if found is None:
            return None
        return found[0], str(found[1]).lower()
    verb = _HABIT_VERBS.get(first)
    if verb is not None:
        first_text = verb
    elif _gerund(first) and first not in _NOT_HABITS:
        found = _read_item(tokens, i)
        if found is None:
            return None
        return found[0], str(found[1]).lower()
    elif first in _HABIT_NOUNS:
        first_text = first
    else:
        return None
    j = i + 1
    while j < n and j - i < 3 and word_ok(tokens[j]) and tokens[j].low not in _PHRASE_STOP:
        if tokens[j].low in ("every", "daily", "again", "anymore"):
            break
        j += 1
    return j, " ".join([first_text, *(t.low for t in tokens[i + 1 : j])])


def read_vice(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A habit one gives up: smoking, vaping, drinking (and what), gambling, or a habit noun
    ("sugar") — not any gerund ("not going out with Kit anymore" names no habit)."""
    if i < len(tokens) and tokens[i].low in _VICES:
        return read_habit(tokens, i)
    return None


_VICES = words(
    "smoking vaping drinking gambling biting snacking smoke vape drink coffee caffeine alcohol "
    "booze sugar meat dairy cigarettes weed chocolate soda fags"
)
_HABIT_VERBS = {
    "smoke": "smoking",
    "smokes": "smoking",
    "vape": "vaping",
    "vapes": "vaping",
    "drink": "drinking",
    "drinks": "drinking",
}
_NOT_HABITS = words(
    "working living dating seeing doing being getting trying thinking planning looking "
    "feeling having making"
)
_HABIT_NOUNS = words(
    "coffee caffeine alcohol booze sugar meat dairy cigarettes weed yoga pilates meditation "
    "crossfit therapy gluten carbs chocolate soda fags tea"
)
_NOT_GERUNDS = words(
    "thing something everything nothing anything king ring spring string morning evening "
    "wedding building ceiling pudding clothing sibling darling nothing"
)


def _gerund(low: str) -> bool:
    return low.endswith("ing") and len(low) > 4 and low not in _NOT_GERUNDS


_GERUND_LINKS = words("to the a an of")


def _read_item(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """One list item; a gerund phrase may run on through "to the" ("going to the beach")."""
    found = read_phrase(tokens, i)
    if found is None:
        return None
    start = i + 1 if tokens[i].low in _ARTICLE else i
    if not _gerund(tokens[start].low):
        return found
    j, n = start + 1, len(tokens)
    while j < n and j - start < 5 and tokens[j].kind == "word":
        low = tokens[j].low
        if (
            low in _GERUND_LINKS and j + 1 < n and tokens[j + 1].low not in _PHRASE_STOP
        ) or low not in _PHRASE_STOP:
            j += 1
        else:
            break
    return j, " ".join(t.text for t in tokens[start:j])


def read_list(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """Items joined by commas, "and", "or", "&" ("peanuts, shellfish and cats")."""
    out: list[str] = []
    j = i
    n = len(tokens)
    while j < n:
        found = _read_item(tokens, j)
        if found is None:
            break
        j, item = found
        out.append(str(item))
        if j < n and tokens[j].low in (",", "and", "or", "&"):
            k = j + 1
            if tokens[j].low == "," and k < n and tokens[k].low in ("and", "or"):
                k += 1
            if k < n and read_phrase(tokens, k) is not None:
                j = k
                continue
        break
    if not out:
        return None
    return j, tuple(out)


_NOT_ACTIVITIES = words(
    "think say know believe imagine see hear hope keep be have get help ask tell talk "
    "hear point mention remind pretend"
)


def read_activity(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """What someone likes to do ("swim", "bake bread"), not a way of speaking ("think so")."""
    if i < len(tokens) and tokens[i].low in _NOT_ACTIVITIES:
        return None
    return read_phrase(tokens, i)


_CLASS_NOUNS = words("class classes lesson lessons course courses")
_GROUP_NOUNS = words(
    "choir choirs band orchestra club league team society ensemble troupe group gym"
)


def read_pastime(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """What someone takes classes in: "salsa dancing classes" gives "salsa dancing"; a phrase
    that does not end in a class noun ("a newsletter") gives nothing."""
    found = read_phrase(tokens, i)
    if found is None:
        return None
    j, text = found
    head, _, last = str(text).rpartition(" ")
    if last.lower() not in _CLASS_NOUNS or not head:
        return None
    return j, head.lower()


def read_group(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A group one joins for a pastime, ending in a group noun ("a choir", "the local running
    club"); anything else (a company, "the queue") gives nothing."""
    found = read_phrase(tokens, i)
    if found is None:
        return None
    j, text = found
    if str(text).rpartition(" ")[2].lower() not in _GROUP_NOUNS:
        return None
    return j, str(text).lower()


def read_word(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """One word that is not a stop word."""
    if i < len(tokens) and word_ok(tokens[i]):
        return i + 1, tokens[i].low
    return None
