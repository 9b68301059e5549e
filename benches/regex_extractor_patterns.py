"""The statement patterns of the regex baseline (:mod:`benches.regex_extractor_baseline`, the
extractor :class:`~remem.extraction.RuleExtractor` replaced): one row per way of saying a fact,
anchored at the start of a clause (after discourse words such as "well," or "btw" and a leading
time phrase are stripped).

Groups: ``v`` is the value; ``role`` (sister, wife …) and ``animal`` (dog, cat …) refine the
attribute and the fact's text. ``value`` says how the raw value is cleaned (see
:mod:`benches.regex_extractor_baseline`). ``event`` marks a change ("moved", "started"):
without a time phrase its relationship is valid from the turn's time; a state ("I live in")
gets no start date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["PATTERNS", "ROLE_ATTRIBUTE", "FactPattern", "ValueKind"]

ValueKind = Literal["place", "org", "name", "phrase", "list", "raw", "fixed"]
"""place/org/name: an entity (cleaned, capitalised for place and name); phrase: a short noun
phrase; list: "X, Y and Z" → one fact each; raw: the words as said (birthday, age); fixed: the
pattern's ``fixed`` value (a break-up sets partner to "none")."""


@dataclass(frozen=True, slots=True)
class FactPattern:
    attribute: str
    """The fact's attribute; ``"role"`` means: look the ``role`` group up in ROLE_ATTRIBUTE."""
    regex: re.Pattern[str]
    value: ValueKind
    text: str
    """The fact's sentence; ``{v}``, ``{role}``, ``{animal}`` and ``{a}`` (a/an for v)."""
    event: bool = False
    fixed: str | None = None
    check_negation: bool = True
    confidence: float = 0.9


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile("^" + pattern, re.IGNORECASE)


# Building blocks (case-insensitive; `(?-i:...)` where a capital letter carries meaning).
_I = r"(?:i|we)"
_IM = r"i(?:'m| am|m)"
_IVE = r"i(?:'ve| have)"
_ADV = r"(?:(?:just|recently|finally|now|currently|actually|also|really|still|officially)\s+)*"
_NAMED = r"(?:'s name is|s name is| is called| is named| name is| goes by)\s+"
_CALLED = r"(?:\s+(?:who is|who's|that is|that's))?\s+(?:called|named)\s+"
_CAP_NAME = r"(?P<v>(?-i:[A-Z][a-z'\-]+(?:\s[A-Z][a-z'\-]+)?))(?=$|[\s,.;!])"
_SIB_ADJ = r"(?:(?:older|younger|little|big|baby|twin|elder|oldest|youngest|step|half)[\s\-]?)?"
_KIN = (
    r"(?P<role>sister|brother|sibling|mother|mom|mum|father|dad|son|daughter|"
    r"partner|boyfriend|girlfriend|wife|husband|fianc[ée]e?|spouse)"
)
_PARTNER = r"(?P<role>partner|boyfriend|girlfriend|wife|husband|fianc[ée]e?|spouse)"
_ANIMAL = (
    r"(?P<animal>dog|cat|puppy|kitten|rabbit|bunny|hamster|parrot|bird|horse|tortoise|turtle|"
    r"snake|lizard|guinea pig|ferret|goldfish|fish)"
)
_DIETS = (
    r"(?P<v>vegetarian|vegan|pescatarian|pescetarian|flexitarian|plant[\s\-]based|keto|paleo|"
    r"gluten[\s\-]free|dairy[\s\-]free|halal|kosher)"
)
_CONDITIONS = (
    r"(?P<v>diabetes|type [12] diabetes|asthma|adhd|autism|celiac disease|coeliac disease|"
    r"migraines|epilepsy|arthritis|anxiety|depression|lactose intolerance|high blood pressure|"
    r"hypertension|insomnia|eczema|a bad back|tinnitus)"
)
_FAVOURITE = r"(?:favourite|favorite|fave)"

ROLE_ATTRIBUTE: dict[str, str] = {
    "sister": "sibling",
    "brother": "sibling",
    "sibling": "sibling",
    "mother": "parent",
    "mom": "parent",
    "mum": "parent",
    "father": "parent",
    "dad": "parent",
    "son": "child",
    "daughter": "child",
    "partner": "partner",
    "boyfriend": "partner",
    "girlfriend": "partner",
    "wife": "partner",
    "husband": "partner",
    "fiance": "partner",
    "fiancé": "partner",
    "fiancee": "partner",
    "fiancée": "partner",
    "spouse": "partner",
}

PATTERNS: tuple[FactPattern, ...] = (
    # -- where the user lives and comes from ---------------------------------------------------
    FactPattern(
        "city",
        _p(
            rf"(?:{_I}|{_IVE}|we(?:'ve| have)) {_ADV}(?:moved|relocated) "
            r"(?:over |back )?to\s+(?P<v>.+)"
        ),
        "place",
        "The user lives in {v}.",
        event=True,
    ),
    FactPattern(
        "city",
        _p(
            rf"(?:{_I} {_ADV}live|{_IM} {_ADV}living|we(?:'re| are) {_ADV}living|"
            rf"(?:{_IVE}|we(?:'ve| have)) {_ADV}been living|{_I} {_ADV}reside|"
            rf"{_IM} {_ADV}based|{_IM} {_ADV}settled) in\s+(?P<v>.+)"
        ),
        "place",
        "The user lives in {v}.",
    ),
    FactPattern(
        "city",
        _p(r"my (?:home|flat|apartment|house|place) is in\s+(?P<v>.+)"),
        "place",
        "The user lives in {v}.",
    ),
    FactPattern(
        "hometown",
        _p(rf"(?:{_IM} {_ADV}(?:originally )?from|{_I} (?:originally )?come from)\s+(?P<v>.+)"),
        "place",
        "The user is from {v}.",
    ),
    FactPattern(
        "hometown",
        _p(
            r"(?:i (?:grew up|was born and raised|was raised|was born) in|my home ?town is)"
            r"\s+(?P<v>.+)"
        ),
        "place",
        "The user is from {v}.",
    ),
    # -- work ------------------------------------------------------------------------------------
    FactPattern(
        "employer",
        _p(
            rf"(?:i|{_IVE}) {_ADV}(?:started|began|got|landed|accepted|took|found) (?:a |my |the )?"
            r"(?:new )?(?:job|position|role|internship|gig)(?: as .+?)? (?:at|with)\s+(?P<v>.+)"
        ),
        "org",
        "The user works at {v}.",
        event=True,
    ),
    FactPattern(
        "employer",
        _p(
            rf"(?:i {_ADV}work|{_IM} {_ADV}working|{_IVE} {_ADV}been working|"
            rf"i {_ADV}(?:got|was) hired|{_IM} {_ADV}employed|i {_ADV}(?:started|began) working)"
            r"(?: as .+?)? (?:at|for|by)\s+(?P<v>.+)"
        ),
        "org",
        "The user works at {v}.",
    ),
    FactPattern(
        "job_title",
        _p(
            rf"(?:i {_ADV}work|{_IM} {_ADV}working|{_IVE} {_ADV}been working|"
            rf"{_IM} {_ADV}employed) as\s+(?P<v>.+)"
        ),
        "phrase",
        "The user works as {a} {v}.",
    ),
    FactPattern(
        "job_title",
        _p(
            rf"(?:i|{_IVE}) {_ADV}(?:started|began|got|landed|accepted|took|found) (?:a |my |the )?"
            r"(?:new )?(?:job|position|role) as\s+(?P<v>.+)"
        ),
        "phrase",
        "The user works as {a} {v}.",
        event=True,
    ),
    FactPattern(
        "job_title",
        _p(
            rf"(?:my job title is|my (?:job|role|position) is (?=an? )|"
            rf"{_IM} (?=an? \w+(?: \w+)? by (?:profession|trade)))\s*(?P<v>.+)"
        ),
        "phrase",
        "The user works as {a} {v}.",
    ),
    # -- family and partner ------------------------------------------------------------------------
    FactPattern(
        "role",
        _p(rf"my {_SIB_ADJ}{_KIN}{_NAMED}(?P<v>.+)"),
        "name",
        "The user's {role} is called {v}.",
    ),
    FactPattern(
        "role",
        _p(rf"{_IVE}(?: got)? (?:a|an|one) {_SIB_ADJ}{_KIN}{_CALLED}(?P<v>.+)"),
        "name",
        "The user's {role} is called {v}.",
    ),
    FactPattern(
        "role",
        _p(rf"my {_SIB_ADJ}{_KIN}\s*,?\s+{_CAP_NAME}"),
        "name",
        "The user's {role} is called {v}.",
        check_negation=False,
        confidence=0.75,
    ),
    FactPattern(
        "role",
        _p(rf"{_CAP_NAME} is my {_SIB_ADJ}{_KIN}\b"),
        "name",
        "The user's {role} is called {v}.",
    ),
    FactPattern(
        "partner",
        _p(
            rf"(?:{_IM} {_ADV}(?:dating|seeing|married to|engaged to|in a relationship with|"
            rf"going out with)|i {_ADV}(?:got married to|married|got engaged to))\s+(?P<v>.+)"
        ),
        "name",
        "The user's partner is called {v}.",
    ),
    FactPattern(
        "partner",
        _p(rf"(?:i|{_IVE}) {_ADV}(?:broke up|split up|separated)(?: with\s+(?P<v>.+))?"),
        "fixed",
        "The user broke up with their partner.",
        event=True,
        fixed="none",
    ),
    FactPattern(
        "partner",
        _p(
            rf"(?:my {_PARTNER} and i|we) {_ADV}(?:broke up|split up|separated|"
            r"(?:got )?divorced)"
        ),
        "fixed",
        "The user broke up with their partner.",
        event=True,
        fixed="none",
    ),
    FactPattern(
        "partner",
        _p(rf"(?:i {_ADV}(?:got divorced|divorced)|{_IM} {_ADV}(?:single|divorced))\b"),
        "fixed",
        "The user is single.",
        fixed="none",
    ),
    # -- pets ------------------------------------------------------------------------------------
    FactPattern(
        "pet",
        _p(
            rf"(?:{_IVE}(?: got)?|(?:i|we)(?:'ve| have)? (?:got|adopted|rescued|own)|we have) "
            rf"(?:a|an) (?:new |little |cute |\w+ )?{_ANIMAL}{_CALLED}(?P<v>.+)"
        ),
        "name",
        "The user has {a_animal} {animal} named {v}.",
    ),
    FactPattern(
        "pet",
        _p(rf"my {_ANIMAL}{_NAMED}(?P<v>.+)"),
        "name",
        "The user has {a_animal} {animal} named {v}.",
    ),
    FactPattern(
        "pet",
        _p(rf"my {_ANIMAL}\s*,?\s+{_CAP_NAME}"),
        "name",
        "The user has {a_animal} {animal} named {v}.",
        check_negation=False,
        confidence=0.75,
    ),
    FactPattern(
        "pet",
        _p(
            rf"(?:{_IVE}(?: got)?|(?:i|we)(?:'ve| have)? (?:got|adopted|rescued|own)|we have) "
            r"(?:a|an|one|two|three) (?:new |little |cute )?"
            r"(?P<v>dogs?|cats?|pupp(?:y|ies)|kittens?|rabbits?|hamsters?|parrots?|birds?|horses?|"
            r"tortoises?|turtles?|snakes?|lizards?|guinea pigs?|ferrets?|goldfish|fish)"
            r"(?=$|\s*[,.;!]|\s+(?:and|but|at|too)\b)"
        ),
        "phrase",
        "The user has {a} {v}.",
    ),
    # -- food and health -------------------------------------------------------------------------
    FactPattern(
        "diet",
        _p(
            rf"(?:{_IM}|{_IVE} been|i (?:went|became|turned|have become|eat)) {_ADV}"
            rf"(?:(?:a|an|fully|strictly|mostly) )?{_DIETS}\b"
        ),
        "phrase",
        "The user is {v}.",
    ),
    FactPattern(
        "diet",
        _p(rf"(?:i (?:follow|keep|eat)|{_IM} on) (?:a|an) {_ADV}{_DIETS} diet\b"),
        "phrase",
        "The user is {v}.",
    ),
    FactPattern(
        "allergy",
        _p(
            rf"{_IM} {_ADV}(?:(?:very|severely|mildly|deathly|super|quite) )?"
            r"allergic to\s+(?P<v>.+)"
        ),
        "list",
        "The user is allergic to {v}.",
    ),
    FactPattern(
        "allergy",
        _p(
            rf"(?:{_IVE}|i (?:have|'ve) got) (?:a |an )?(?:(?:severe|mild|bad) )?"
            r"(?P<v>[\w\s\-]+?) allerg(?:y|ies)\b"
        ),
        "list",
        "The user is allergic to {v}.",
    ),
    FactPattern(
        "allergy",
        _p(r"my allerg(?:y is|ies are)(?: to)?\s+(?P<v>.+)"),
        "list",
        "The user is allergic to {v}.",
    ),
    FactPattern(
        "health",
        _p(rf"(?:i (?:was|got)|{_IVE} been) {_ADV}diagnosed with\s+(?P<v>.+)"),
        "phrase",
        "The user has {v}.",
    ),
    FactPattern(
        "health",
        _p(rf"(?:{_IVE}|i (?:suffer from|live with|'ve got))\s+{_CONDITIONS}\b"),
        "phrase",
        "The user has {v}.",
    ),
    FactPattern(
        "health",
        _p(rf"{_IM} {_ADV}(?P<v>lactose intolerant|diabetic|asthmatic|coeliac|celiac|epileptic)\b"),
        "phrase",
        "The user is {v}.",
    ),
    FactPattern(
        "favourite_food",
        _p(rf"my {_FAVOURITE} (?:food|dish|meal|thing to eat) is\s+(?P<v>.+)"),
        "phrase",
        "The user's favourite food is {v}.",
    ),
    FactPattern(
        "favourite_food",
        _p(rf"(?P<v>[\w\s]+?) is my {_FAVOURITE} (?:food|dish|meal)\b"),
        "phrase",
        "The user's favourite food is {v}.",
    ),
    # -- likes ------------------------------------------------------------------------------------
    FactPattern(
        "hobby",
        _p(rf"(?:my {_FAVOURITE} hobby is|my hobb(?:y is|ies are|ies include))\s+(?P<v>.+)"),
        "list",
        "The user enjoys {v}.",
    ),
    FactPattern(
        "preference",
        _p(
            rf"my {_FAVOURITE} (?P<role>colou?r|band|movie|film|book|song|singer|artist|sport|team|"
            r"game|drink|season|city|animal|show|series|author|holiday|place)\s+is\s+(?P<v>.+)"
        ),
        "phrase",
        "The user's favourite {role} is {v}.",
    ),
    FactPattern(
        "preference",
        _p(
            rf"(?:i {_ADV}(?:(?:absolutely|totally|quite|kind of|kinda) )?"
            r"(?:love|enjoy|like|adore)|"
            rf"{_IM} {_ADV}(?:(?:really|very|quite|super|a big|a huge|huge|big) )?"
            r"(?:into|a fan of|fan of|passionate about|obsessed with))\s+(?P<v>.+)"
        ),
        "list",
        "The user likes {v}.",
        confidence=0.8,
    ),
    FactPattern(
        "hobby",
        _p(rf"i {_ADV}(?:play|practi[cs]e)\s+(?P<v>.+)"),
        "list",
        "The user plays {v}.",
        confidence=0.8,
    ),
    # -- who the user is --------------------------------------------------------------------------
    FactPattern(
        "birthday",
        _p(r"my birthday(?:'s| is)\s+(?:on\s+|in\s+)?(?P<v>.+)"),
        "raw",
        "The user's birthday is {v}.",
    ),
    FactPattern("birthday", _p(r"i was born on\s+(?P<v>.+)"), "raw", "The user's birthday is {v}."),
    FactPattern(
        "name",
        _p(rf"(?:my name is|my name's|{_IM} called|call me)\s+(?P<v>.+)"),
        "name",
        "The user's name is {v}.",
    ),
    FactPattern(
        "age",
        _p(rf"{_IM} (?P<v>\d{{1,3}}) (?:years old|yrs old|y/?o)\b"),
        "raw",
        "The user is {v} years old.",
    ),
    FactPattern(
        "age",
        _p(rf"i {_ADV}turned (?P<v>\d{{1,3}})\b"),
        "raw",
        "The user is {v} years old.",
        event=True,
    ),
)
