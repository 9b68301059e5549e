"""Slot readers: how many tokens from position ``i`` a slot of each type takes, and its value.

A reader is ``(tokens, i) -> (end, value) | None``; it is greedy and deterministic (the
pattern matcher never backtracks into a slot), so a reader stops at the words of
:data:`~remem.extraction.grammar.lexicon.STOP` and at punctuation. A reader never makes a
value up: it returns the words as typed (an article dropped, a lower-case place or name
title-cased) or nothing.

Types: ``place``, ``org``, ``name`` (capitalised only), ``lname`` (also one lower-case word,
after "called"/"named"), ``names`` ("Mochi and Miso"), ``phrase`` (1–4 words), ``job`` (a
phrase whose last word is a job), ``diet``, ``habit``, ``list`` ("X, Y and Z"), ``email``,
``phone``, ``num``, ``date``, ``event`` (what a date is for), ``kin``, ``animal`` and ``who``
(the subject of a clause, a :class:`Subject`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from remem.extraction.grammar.lexicon import CLASSES, NOT_PLACES, STOP, VERB_STARTS, words
from remem.extraction.grammar.tokens import Token

__all__ = ["READERS", "Reader", "Subject"]

Value = "str | tuple[str, ...] | Subject"


@dataclass(frozen=True, slots=True)
class Subject:
    """Whom a clause is about: ``user`` (I, we, "Sam and I"), ``person`` (a name: ``name``
    is set) or ``other`` (someone unnamed — "my friend", "she" — whose facts are dropped)."""

    kind: str
    name: str | None = None
    role: str | None = None


USER_SUBJECT = Subject("user")
Reader = Callable[[Sequence[Token], int], "tuple[int, object] | None"]

_KIN = CLASSES["kin"]
_KIN_ADJ = CLASSES["kin_adj"]
_OTHER = CLASSES["other_person"]
_ANIMAL = CLASSES["animal"]
_ANIMAL_ADJ = CLASSES["animal_adj"]
_DIET = CLASSES["diet"]
_JOB_HEAD = CLASSES["job_head"]
_WEEKDAY = CLASSES["weekday"]
_MONTH = CLASSES["month"]
_DATE_WORD = CLASSES["date_word"]
_NAME_STOP = STOP | words(
    "i me you he she they we my your his her our their the a an mr ms mrs dr mum mom dad "
    "hi hey hello god lol omg ok okay yes no yeah thanks sorry actually so well oh and but "
    "also just not mine yours monday tuesday wednesday thursday friday saturday sunday "
    "january february march april june july august september october november december "
    "christmas easter english british american french spanish italian german"
)
_PLACE_LINK = words("de do da del della di upon on-sea le la am of")
_ORG_LINK = words("of & and de")
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
_PLURAL = {
    "puppies": "puppy",
    "kitties": "kitty",
    "bunnies": "bunny",
    "fish": "fish",
    "ponies": "pony",
}
_ANIMAL_PAIRS = {
    (first, second): f"{first} {base}"
    for first, base in (
        ("guinea", "pig"),
        ("bearded", "dragon"),
        ("sugar", "glider"),
        ("stick", "insect"),
        ("hermit", "crab"),
    )
    for second in (base, base + "s")
}
"""Animals named in two words ("two guinea pigs")."""
ANIMAL_FIRST_WORDS = frozenset(first for first, _ in _ANIMAL_PAIRS)
_CAP_NOT_PLACES = words("i the a an my our it there here home")
_LONE_LOWER_PLACE_STOP = _NAME_STOP | NOT_PLACES


def _word_ok(t: Token) -> bool:
    return t.kind == "word" and t.low not in STOP


def _title(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split())


def read_name(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """1–3 capitalised words ("Óscar", "Mary Jane", "Jean-Luc O'Brien")."""
    j, n = i, len(tokens)
    while j < n and j - i < 3 and tokens[j].cap and tokens[j].kind == "word":
        if tokens[j].low in _NAME_STOP:
            break
        j += 1
    if j == i:
        return None
    return j, " ".join(t.text for t in tokens[i:j])


def read_lname(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A name, or one lower-case word title-cased ("named sophie" → "Sophie")."""
    found = read_name(tokens, i)
    if found is not None:
        return found
    if i < len(tokens):
        t = tokens[i]
        if t.kind == "word" and t.low not in _NAME_STOP and len(t.low) > 1:
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
        return j, " ".join(t.text for t in tokens[i:j])
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
        if (t.cap or (t.kind == "num" and j > i)) and t.low not in _NAME_STOP:
            parts.append(t.text)
            j += 1
        elif t.low == "'s" and j > i and j + 1 < n and tokens[j + 1].cap:
            parts[-1] += "'s"  # "King's College", "St Mary's"
            j += 1
        elif t.low in _ORG_LINK and j > i and j + 1 < n and tokens[j + 1].cap:
            parts += [t.text, tokens[j + 1].text]
            j += 2
        else:
            break
    if j > i:
        return j, " ".join(parts)
    if i < n and i > 0 and tokens[i - 1].low in ("the", "at", "for"):
        t = tokens[i]
        alone = i + 1 >= n or tokens[i + 1].low in STOP or tokens[i + 1].kind == "punct"
        if t.kind == "word" and t.low not in _NAME_STOP and t.low not in _NOT_ORGS and alone:
            return i + 1, t.text  # "at the council", "a job at asda"
    if i < n and tokens[i].low in ("a", "an"):
        k = i + 1
        while k < n and k - i <= 3 and _word_ok(tokens[k]) and tokens[k].low not in _NAME_STOP:
            k += 1
        if k > i + 1:
            return k, " ".join(t.text for t in tokens[i + 1 : k])
    return None


_NOT_ORGS = NOT_PLACES | words(
    "night nights weekends weekend moment minute time end same top back front gym lunch "
    "dinner breakfast desk computer myself home remote remotely kids night-shift"
)


def read_corg(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A capitalised organisation that is not a school ("joined Canonical")."""
    if i < len(tokens) and not (tokens[i].cap or tokens[i].low == "the"):
        return None
    found = read_org(tokens, i)
    if found is None or not str(found[1])[:1].isupper():
        return None
    if any(w.casefold() in _SCHOOL_WORDS for w in str(found[1]).split()):
        return None
    return found


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
        and _word_ok(tokens[start + 2])
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
    """What a habit is: a gerund and up to two more words ("smoking", "drinking coffee") or a
    habit noun ("coffee", "sugar", "yoga")."""
    n = len(tokens)
    if i >= n or tokens[i].kind != "word":
        return None
    first = tokens[i].low
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
    while j < n and j - i < 3 and _word_ok(tokens[j]) and tokens[j].low not in _PHRASE_STOP:
        if tokens[j].low in ("every", "daily", "again", "anymore"):
            break
        j += 1
    return j, " ".join([first_text, *(t.low for t in tokens[i + 1 : j])])


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


def read_kind(kind: str) -> Reader:
    def read(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
        if i < len(tokens) and tokens[i].kind == kind:
            return i + 1, tokens[i].text
        return None

    return read


def read_num(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    if i < len(tokens) and tokens[i].kind == "num" and tokens[i].low.isdigit():
        return i + 1, tokens[i].text
    return None


def read_date(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A day: "Thursday", "next Tuesday at 3pm", "the 14th", "March 3rd", "tomorrow"."""
    n = len(tokens)
    j = i
    anchor = False
    while j < n and j - i < 6:
        t = tokens[j]
        if (
            t.low in _WEEKDAY
            or t.low in _MONTH
            or t.low in ("tomorrow", "tonight", "today")
            or (t.kind == "num" and t.low[-2:] in ("st", "nd", "rd", "th"))
        ):
            anchor = True
        elif t.kind == "num" and len(t.low) <= 6:
            pass  # "14 July", "at 3": a number counts next to a day or month
        elif t.low not in _DATE_WORD:
            break
        j += 1
    while j > i and tokens[j - 1].low in ("at", "on", "the", "of", "this", "next"):
        j -= 1
    if not anchor or j == i:
        return None
    if tokens[i].low == "on":
        i += 1
    return j, " ".join(t.text for t in tokens[i:j])


def read_event(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """What a date belongs to ("dentist appointment", "flight to Rome" → up to "is")."""
    j, n = i, len(tokens)
    while j < n and j - i < 3 and tokens[j].kind == "word" and tokens[j].low not in STOP:
        if tokens[j].low in ("got", "has", "will", "'ll", "moved") or tokens[j].cap:
            break
        j += 1
    if j == i or any(t.low in _NOT_EVENTS for t in tokens[i:j]):
        return None
    return j, " ".join(t.text for t in tokens[i:j]).lower()


_NOT_EVENTS = (
    _NAME_STOP | _OTHER | _ANIMAL | words("birthday bday name email number phone") | CLASSES["kin"]
)


def read_kin(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A kinship word, after any of "older", "little", "twin" …"""
    j, n = i, len(tokens)
    while j < n and tokens[j].low in _KIN_ADJ and j - i < 2:
        j += 1
    if j < n and tokens[j].low in _KIN:
        if j + 2 < n and tokens[j + 1].low == "in" and tokens[j + 2].low == "law":
            return j + 3, f"{tokens[j].low}-in-law"  # "brother in law" → a relative
        return j + 1, tokens[j].low
    return None


def read_animal(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """An animal word, after any of "old", "rescue", "ginger" …"""
    j, n = i, len(tokens)
    while j < n and tokens[j].low in _ANIMAL_ADJ and j - i < 2:
        j += 1
    if j + 1 < n and (tokens[j].low, tokens[j + 1].low) in _ANIMAL_PAIRS:
        return j + 2, _ANIMAL_PAIRS[(tokens[j].low, tokens[j + 1].low)]
    if j < n:
        low = tokens[j].low
        single = _PLURAL.get(low, low[:-1] if low.endswith("s") else low)
        if low in _ANIMAL or single in _ANIMAL:
            return j + 1, low if low in _ANIMAL else single
    return None


def read_who(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """The subject of a clause; an elided subject ("moved to Leeds lol") is the user."""
    n = len(tokens)
    if i >= n:
        return None
    t = tokens[i]
    low = t.low
    if low in ("i", "we"):
        return i + 1, USER_SUBJECT
    if low == "me" and i + 2 < n and tokens[i + 1].low == "and":
        named = read_name(tokens, i + 2)  # "me and Sam split up"
        if named is not None:
            return named[0], Subject("user", str(named[1]))
    if low in ("my", "our"):
        j = i + 1
        while j < n and tokens[j].low in _KIN_ADJ and j - i < 3:
            j += 1
        if j < n and tokens[j].low in _OTHER:
            role = tokens[j].low
            j += 1
            named = read_name(tokens, j)
            after = named[0] if named is not None else j
            if (
                after + 1 < n
                and tokens[after].low == "and"
                and tokens[after + 1].low in ("i", "me")
            ):
                return after + 2, Subject("user", str(named[1]) if named else None, role)
            if named is not None:
                return named[0], Subject("person", str(named[1]), role)
            return j, Subject("other", None, role)
        return None
    if low in CLASSES["pronoun_other"] or low in ("you", "u", "people", "everyone"):
        return i + 1, Subject("other")
    if low == "me" and i + 3 < n and tokens[i + 1].low == "and" and tokens[i + 2].low == "my":
        j = i + 3
        while j < n and tokens[j].low in _KIN_ADJ:
            j += 1
        if j < n and tokens[j].low in _OTHER:
            return j + 1, Subject("user", None, tokens[j].low)  # "me and my girlfriend"
    if t.cap and low not in VERB_STARTS:
        named = read_name(tokens, i)
        if named is not None:
            j = named[0]
            if j + 1 < n and tokens[j].low == "and" and tokens[j + 1].low in ("i", "me"):
                return j + 2, Subject("user", str(named[1]))
            return j, Subject("person", str(named[1]))
        return None
    return i, USER_SUBJECT


_SCHOOL_WORDS = CLASSES["school_noun"] | words("uni")


def read_school(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """An organisation that is a school: it names one ("Leeds Uni", "King's College") or is
    an acronym ("MIT", "UCL")."""
    found = read_org(tokens, i)
    if found is None:
        return None
    j, value = found
    text = str(value)
    if any(w.casefold() in _SCHOOL_WORDS for w in text.split()) or (
        text.isupper() and 2 <= len(text) <= 6
    ):
        return j, text
    if j < len(tokens) and tokens[j].low in _SCHOOL_WORDS:
        return j + 1, f"{text} {tokens[j].text}"
    return None


_NOT_ACTIVITIES = words(
    "think say know believe imagine see hear hope keep be have get help ask tell talk "
    "hear point mention remind pretend"
)


def read_activity(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """What someone likes to do ("swim", "bake bread"), not a way of speaking ("think so")."""
    if i < len(tokens) and tokens[i].low in _NOT_ACTIVITIES:
        return None
    return read_phrase(tokens, i)


def read_word(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """One word that is not a stop word."""
    if i < len(tokens) and _word_ok(tokens[i]):
        return i + 1, tokens[i].low
    return None


READERS: dict[str, Reader] = {
    "school": read_school,
    "corg": read_corg,
    "activity": read_activity,
    "phrase1": read_word,
    "name": read_name,
    "lname": read_lname,
    "names": read_names,
    "place": read_place,
    "org": read_org,
    "phrase": read_phrase,
    "job": read_job,
    "diet": read_diet,
    "habit": read_habit,
    "list": read_list,
    "email": read_kind("email"),
    "phone": read_kind("phone"),
    "num": read_num,
    "date": read_date,
    "event": read_event,
    "kin": read_kin,
    "animal": read_animal,
    "who": read_who,
}
"""Slot type → reader."""
