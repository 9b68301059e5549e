"""Slot readers: how many tokens from position ``i`` a slot of each type takes, and its value.

A reader is ``(tokens, i) -> (end, value) | None``; it is greedy and deterministic (the
pattern matcher never backtracks into a slot), so a reader stops at the words of
:data:`~remem.extraction.grammar.lexicon.STOP` and at punctuation. A reader never makes a
value up: it returns the words as typed (an article dropped, a lower-case place or name
title-cased) or nothing.

:data:`READERS` maps each slot type to its reader. The proper-noun readers live in
:mod:`.names` (``name`` — capitalised only, ``lname`` — also one lower-case word after
"called"/"named", ``names`` — "Mochi and Miso", ``pname`` — a name after "is" that is no
nationality, faith or star sign, ``place``, ``org``, ``corg``, ``school``), the
phrase readers in :mod:`.phrases` (``phrase`` — 1–4 words, ``job``, ``diet``, ``habit``,
``list`` — "X, Y and Z", ``activity``, ``pastime`` — "salsa classes", ``group`` — "a
choir", ``phrase1``), the clause subject ``who`` in
:mod:`.subject`; this module holds the closed-vocabulary ones: ``email``, ``phone``, ``num``,
``date``, ``event`` (what a date is for), ``kin`` and ``animal``; ``condition`` ("asthma",
"a bad knee") is in :mod:`.conditions`, ``dish`` ("jollof rice", never "a taxi") in :mod:`.dishes`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from remem.extraction.grammar.conditions import read_condition
from remem.extraction.grammar.dishes import read_dish
from remem.extraction.grammar.lexicon import CLASSES, STOP, words
from remem.extraction.grammar.names import (
    NAME_STOP,
    read_corg,
    read_cschool,
    read_lname,
    read_name,
    read_names,
    read_nschool,
    read_org,
    read_place,
    read_school,
    read_selfname,
)
from remem.extraction.grammar.phrases import (
    read_activity,
    read_diet,
    read_group,
    read_habit,
    read_job,
    read_list,
    read_pastime,
    read_phrase,
    read_vice,
    read_word,
)
from remem.extraction.grammar.subject import read_who
from remem.extraction.grammar.tokens import Token

__all__ = ["ANIMAL_FIRST_WORDS", "READERS", "Reader"]

Reader = Callable[[Sequence[Token], int], "tuple[int, object] | None"]
_KIN = CLASSES["kin"]
_KIN_ADJ = CLASSES["kin_adj"]
_OTHER = CLASSES["other_person"]
_ANIMAL = CLASSES["animal"]
_ANIMAL_ADJ = CLASSES["animal_adj"]
_WEEKDAY = CLASSES["weekday"]
_MONTH = CLASSES["month"]
_DATE_WORD = CLASSES["date_word"]
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
    """A day: "Thursday", "next Tuesday at 3pm", "the 14th", "March 3rd", "tomorrow", a
    holiday ("halloween", "christmas eve"). With a month named, a leading "the" is dropped
    ("the 3rd of April" → "3rd of April"); alone, "the 14th" keeps it."""
    n = len(tokens)
    j = i
    anchor = False
    month = False
    while j < n and j - i < 6:
        t = tokens[j]
        if t.low in _HOLIDAY:
            anchor = True
            if j + 1 < n and tokens[j + 1].low in ("eve", "day"):
                j += 1  # "christmas eve", "valentines day"
        elif (
            t.low in _WEEKDAY
            or t.low in _MONTH
            or t.low in ("tomorrow", "tonight", "today")
            or (t.kind == "num" and t.low[-2:] in ("st", "nd", "rd", "th"))
        ):
            anchor = True
            month = month or t.low in _MONTH
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
    if month and j - i > 1 and tokens[i].low == "the":
        i += 1
    return j, " ".join(t.text for t in tokens[i:j])


_HOLIDAY = words(
    "halloween christmas xmas easter valentines hogmanay diwali eid thanksgiving hanukkah"
)


def read_event(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """What a date belongs to ("dentist appointment", "flight to Rome" → up to "is")."""
    j, n = i, len(tokens)
    while j < n and j - i < 3 and tokens[j].kind == "word" and tokens[j].low not in STOP:
        text = tokens[j].text
        acronym = text.isupper() and 2 <= len(text) <= 4  # "my MOT", "a GP appointment"
        if tokens[j].low in ("got", "has", "will", "'ll", "moved") or (
            tokens[j].cap and not acronym
        ):
            break
        j += 1
    if j == i or any(t.low in _NOT_EVENTS for t in tokens[i:j]):
        return None
    return j, " ".join(_EVENT_SPELLED.get(t.low, t.text) for t in tokens[i:j]).lower()


_EVENT_SPELLED = {"appt": "appointment", "appts": "appointments", "mtg": "meeting"}
"""Chat abbreviations of what a date is for, stored spelled out ("dentist appt")."""


_NOT_EVENTS = (
    NAME_STOP | _OTHER | _ANIMAL | words("birthday bday name email number phone") | CLASSES["kin"]
)


def read_kin(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A kinship word, after any of "older", "little", "twin" …"""
    j, n = i, len(tokens)
    while j < n and tokens[j].low in _KIN_ADJ and j - i < 2:
        j += 1
    if j < n and tokens[j].low in _KIN and tokens[j].low not in _KIN_ADJ:
        if j + 2 < n and tokens[j + 1].low == "in" and tokens[j + 2].low == "law":
            return j + 3, f"{tokens[j].low}-in-law"  # "brother in law" → a relative
        return j + 1, tokens[j].low
    if j > i and tokens[j - 1].low in _KIN:
        return j, tokens[j - 1].low  # "our eldest, Jago": a child named by their place
    return None


def read_kins(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A plural kinship word ("brothers", "sons", "older sisters") as its singular."""
    j, n = i, len(tokens)
    while j < n and tokens[j].low in _KIN_ADJ and j - i < 2:
        j += 1
    if j < n and tokens[j].low.endswith("s") and tokens[j].low[:-1] in _KIN:
        return j + 1, tokens[j].low[:-1]
    return None


def read_nationality(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A nationality ("Portuguese", "irish" → "Irish")."""
    if i < len(tokens) and tokens[i].low in _NATIONALITY:
        return i + 1, tokens[i].low.capitalize()
    return None


def read_pronouns(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """Pronouns written with slashes ("she/her", "they/them", "he/they")."""
    j, n = i, len(tokens)
    parts: list[str] = []
    while j < n and tokens[j].low in _PRONOUN:
        parts.append(tokens[j].low)
        j += 1
        if j + 1 < n and tokens[j].low == "/" and tokens[j + 1].low in _PRONOUN:
            j += 1
            continue
        break
    if len(parts) < 2:
        return None
    return j, "/".join(parts)


_NATIONALITY = CLASSES["nationality"]
_PRONOUN = CLASSES["pronoun"]
_NOT_A_NAME = words(
    # capitalised words that say what someone is, not who: a faith, a star sign, a language
    "catholic christian muslim jewish hindu buddhist sikh atheist agnostic protestant mormon "
    "orthodox anglican methodist baptist quaker pagan aries taurus gemini cancer leo virgo "
    "libra scorpio sagittarius capricorn aquarius pisces latina latino asian african european "
    "arabic hebrew mandarin cantonese welsh-speaking"
)


def read_pname(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A person's name said after "is" ("my sister is Sofia"): a ``name`` whose first word is
    no nationality, faith or star sign ("my wife is Greek", "my mum is Catholic")."""
    if i < len(tokens) and (tokens[i].low in _NATIONALITY or tokens[i].low in _NOT_A_NAME):
        return None
    return read_name(tokens, i)


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


READERS: dict[str, Reader] = {
    "school": read_school,
    "corg": read_corg,
    "activity": read_activity,
    "phrase1": read_word,
    "name": read_name,
    "pname": read_pname,
    "lname": read_lname,
    "names": read_names,
    "place": read_place,
    "org": read_org,
    "phrase": read_phrase,
    "job": read_job,
    "diet": read_diet,
    "habit": read_habit,
    "vice": read_vice,
    "pastime": read_pastime,
    "group": read_group,
    "list": read_list,
    "email": read_kind("email"),
    "phone": read_kind("phone"),
    "num": read_num,
    "date": read_date,
    "event": read_event,
    "kin": read_kin,
    "kins": read_kins,
    "nationality": read_nationality,
    "pronouns": read_pronouns,
    "cschool": read_cschool,
    "nschool": read_nschool,
    "selfname": read_selfname,
    "animal": read_animal,
    "condition": read_condition,
    "dish": read_dish,
    "who": read_who,
}
"""Slot type → reader."""
