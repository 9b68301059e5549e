"""The subject of a clause: whom a statement is about (the user, a named person, or someone
unnamed whose facts are dropped)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from remem.extraction.grammar.lexicon import CLASSES, VERB_STARTS
from remem.extraction.grammar.names import read_name
from remem.extraction.grammar.tokens import Token

__all__ = ["USER_SUBJECT", "Subject", "read_who"]

_KIN_ADJ = CLASSES["kin_adj"]
_OTHER = CLASSES["other_person"]
_WEEKDAY = CLASSES["weekday"]
_WHEN = frozenset({"today", "tomorrow", "tonight", "yesterday"})


@dataclass(frozen=True, slots=True)
class Subject:
    """Whom a clause is about: ``user`` (I, we, "Sam and I"), ``person`` (a name: ``name``
    is set) or ``other`` (someone unnamed — "my friend", "she" — whose facts are dropped)."""

    kind: str
    name: str | None = None
    role: str | None = None


USER_SUBJECT = Subject("user")


def read_who(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """The subject of a clause; an elided subject ("moved to Leeds lol") is the user."""
    n = len(tokens)
    if i >= n:
        return None
    t = tokens[i]
    low = t.low
    if low in ("i", "we"):
        return i + 1, USER_SUBJECT
    if (low in _WEEKDAY or low in _WHEN) and i + 1 < n and tokens[i + 1].low in ("i", "we"):
        return i + 2, USER_SUBJECT  # "Monday I start at Globex": a day, not a person
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
            if named is None and j + 1 < n and tokens[j].low == ",":
                # an apposition closed by a comma: "my husband, Aled, is a plumber"
                inner = read_name(tokens, j + 1)
                if inner is not None and inner[0] < n and tokens[inner[0]].low == ",":
                    named = (inner[0] + 1, inner[1])
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
            named = read_name(tokens, j + 1)  # "me and my girlfriend (Siân)"
            if named is not None:
                return named[0], Subject("user", str(named[1]), tokens[j].low)
            return j + 1, Subject("user", None, tokens[j].low)
    if t.cap and low not in VERB_STARTS:
        named = read_name(tokens, i)
        if named is not None:
            j = named[0]
            if j == i + 1 and low.endswith("ing") and len(low) > 4 and low.isalpha():
                return None  # "Cooking keto at home is easy": a gerund, not a person
            if j + 1 < n and tokens[j].low == "and" and tokens[j + 1].low in ("i", "me"):
                return j + 2, Subject("user", str(named[1]))
            return j, Subject("person", str(named[1]))
        return None
    return i, USER_SUBJECT
