"""Slot readers for proper nouns: names, places, organisations and schools.

A reader is ``(tokens, i) -> (end, value) | None`` (see :mod:`.slots`); these read capitalised
words as typed (a lower-case place or name is title-cased, an article dropped) and stop at the
words of :data:`NAME_STOP` and at punctuation. They never make a value up.
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.extraction.grammar.lexicon import CLASSES, NOT_PLACES, STOP, words
from remem.extraction.grammar.tokens import Token

__all__ = [
    "NAME_STOP",
    "SCHOOL_WORDS",
    "read_corg",
    "read_cschool",
    "read_lname",
    "read_name",
    "read_names",
    "read_nschool",
    "read_org",
    "read_place",
    "read_school",
    "read_selfname",
    "shown",
    "word_ok",
]

NAME_STOP = STOP | words(
    "i me you he she they we my your his her our their the a an mr ms mrs dr mum mom dad "
    "hi hey hello god lol omg ok okay yes no yeah thanks sorry actually so well oh and but "
    "also just not mine yours monday tuesday wednesday thursday friday saturday sunday "
    "january february march april june july august september october november december "
    "christmas easter english british american french spanish italian german"
)
_PLACE_LINK = words("de do da del della di upon on-sea le la am of")
_ORG_LINK = words("of & and de")
_CAP_NOT_PLACES = words("i the a an my our it there here home")
_LONE_LOWER_PLACE_STOP = NAME_STOP | NOT_PLACES
SCHOOL_WORDS = CLASSES["school_noun"] | words("uni")


def word_ok(t: Token) -> bool:
    return t.kind == "word" and t.low not in STOP


def _title(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split())


def shown(t: Token) -> str:
    """How a capitalised token is written in a value: as typed, or title-cased when its capital
    was restored in a message typed without any ("callum" → "Callum"; :mod:`.casing`)."""
    text = t.text
    return text if not t.cap or text[:1].isupper() else text[:1].upper() + text[1:]


def read_name(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """1–3 capitalised words ("Óscar", "Mary Jane", "Jean-Luc O'Brien")."""
    j, n = i, len(tokens)
    while j < n and j - i < 3 and tokens[j].cap and tokens[j].kind == "word":
        if tokens[j].low in NAME_STOP:
            break
        j += 1
    if j == i:
        return None
    return j, " ".join(map(shown, tokens[i:j]))


def read_lname(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A name, or one lower-case word title-cased ("named sophie" → "Sophie")."""
    found = read_name(tokens, i)
    if found is not None:
        return found
    if i < len(tokens):
        t = tokens[i]
        if t.kind == "word" and t.low not in NAME_STOP and len(t.low) > 1:
            return i + 1, _title(t.text)
    return None


def read_names(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """Names joined by "and", "&" or commas ("Mochi and Miso")."""
    out: list[str] = []
    j = i
    while True:
        found = read_name(tokens, j)
        if found is None:
            break
        j, name = found
        out.append(str(name))
        if j + 1 < len(tokens) and tokens[j].low in (",", "and", "&"):
            if tokens[j].low == "," and j + 2 < len(tokens) and tokens[j + 1].low == "and":
                j += 1
            j += 1
            continue
        break
    if not out:
        return None
    # a trailing conjunction that led to no name is not part of the slot
    return j if tokens[j - 1].cap else j - 1, tuple(out)


def read_place(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A place: capitalised words (with "de", "upon" … between them), or up to two lower-case
    words typed without capitals ("lisbon" → "Lisbon"); "the" is dropped."""
    n = len(tokens)
    if i < n and tokens[i].low == "the":
        i += 1
    j = i
    while j < n and j - i < 5:
        t = tokens[j]
        if (t.cap and t.kind == "word" and t.low not in _CAP_NOT_PLACES) or (
            t.low in _PLACE_LINK and j > i and j + 1 < n and tokens[j + 1].cap and j + 1 - i < 5
        ):
            j += 1
        else:
            break
    if j > i:
        while tokens[j - 1].low in _PLACE_LINK:
            j -= 1
        return j, " ".join(map(shown, tokens[i:j]))
    k = i
    while k < n and k - i < 2 and tokens[k].kind == "word":
        if tokens[k].low in _LONE_LOWER_PLACE_STOP:
            break
        k += 1
    if k == i:
        return None
    return k, _title(" ".join(t.text for t in tokens[i:k]))


def read_org(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """An organisation: capitalised words ("Acme Corp", "Bank of America", "M&S") or, after
    "a"/"an", a short lower-case description ("a design studio" → "design studio")."""
    n = len(tokens)
    if i < n and tokens[i].low == "the":
        i += 1
    j = i
    parts: list[str] = []
    while j < n and j - i < 6:
        t = tokens[j]
        if (t.cap or (t.kind == "num" and j > i)) and t.low not in NAME_STOP:
            parts.append(shown(t))
            j += 1
        elif t.low == "'s" and j > i and j + 1 < n and tokens[j + 1].cap:
            parts[-1] += t.text  # "King's College", "St Mary's"
            j += 1
        elif t.low == "'s" and j > i and (j + 1 == n or tokens[j + 1].kind != "word"):
            parts[-1] += t.text  # "a job at Nando's", "St James'" (as typed)
            j += 1
            break
        elif t.low in _ORG_LINK and j > i and j + 1 < n and tokens[j + 1].cap:
            parts += [t.text, shown(tokens[j + 1])]
            j += 2
        else:
            break
    if j > i:
        return j, " ".join(parts)
    if i < n and i > 0 and tokens[i - 1].low in ("the", "at", "for"):
        t = tokens[i]
        alone = i + 1 >= n or tokens[i + 1].low in STOP or tokens[i + 1].kind == "punct"
        if t.kind == "word" and t.low not in NAME_STOP and t.low not in _NOT_ORGS and alone:
            return i + 1, t.text  # "at the council", "a job at asda"
    if i < n and tokens[i].low in ("a", "an"):
        k = i + 1
        while k < n and k - i <= 3 and word_ok(tokens[k]) and tokens[k].low not in NAME_STOP:
            k += 1
        if k > i + 1:
            return k, " ".join(t.text for t in tokens[i + 1 : k])
    return None


_NOT_ORGS = NOT_PLACES | words(
    "night nights weekends weekend moment minute time end same top back front gym lunch "
    "dinner breakfast desk computer myself home remote remotely kids night-shift "
    "firm company business workplace practice employer job"
)


def read_corg(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A capitalised organisation that is not a school ("joined Canonical")."""
    if i < len(tokens) and not (tokens[i].cap or tokens[i].low == "the"):
        return None
    found = read_org(tokens, i)
    if found is None or not str(found[1])[:1].isupper():
        return None
    if any(w.casefold() in SCHOOL_WORDS for w in str(found[1]).split()):
        return None
    return found


def read_school(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """An organisation that is a school: it names one ("Leeds Uni", "King's College") or is
    an acronym ("MIT", "UCL")."""
    found = read_org(tokens, i)
    if found is None:
        return None
    j, value = found
    text = str(value)
    if any(w.casefold() in SCHOOL_WORDS for w in text.split()) or (
        text.isupper() and 2 <= len(text) <= 6
    ):
        return j, text
    if j < len(tokens) and tokens[j].low in SCHOOL_WORDS:
        return j + 1, f"{text} {tokens[j].text}"
    return None


def read_nschool(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A school that names itself one ("Leeds Uni", "King's College"): after a verb that
    also starts jobs ("started at"), an acronym ("KPMG") is not taken for a school."""
    found = read_school(tokens, i)
    if found is None or not any(w.casefold() in SCHOOL_WORDS for w in str(found[1]).split()):
        return None
    return found


def read_cschool(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A school, or any capitalised organisation where the verb already says it is one
    ("studying at Sciences Po", "accepted to Yale", "a PhD student at Oxford")."""
    found = read_school(tokens, i)
    if found is not None:
        return found
    found = read_org(tokens, i)
    if found is None or not str(found[1])[:1].isupper():
        return None
    return found


_NOT_SELF_NAMES = CLASSES["nationality"] | words(
    "fine good ok okay tired sure done back home here busy ready glad happy sad sick sorry "
    "great well free off out in on up down new old single married vegan vegetarian stuck "
    "bored lost late early excited nervous starving exhausted jewish muslim christian catholic "
    "protestant hindu buddhist sikh atheist agnostic gay straight bi bisexual lesbian trans "
    "queer autistic deaf blind"
)


def read_selfname(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """The name after "I'm": one or two capitalised words that are not a state or a
    nationality ("I'm Ola btw", not "I'm Fine" or "I'm British")."""
    found = read_name(tokens, i)
    if found is None or found[0] - i > 2:
        return None
    if any(t.low in _NOT_SELF_NAMES for t in tokens[i : found[0]]):
        return None
    return found
