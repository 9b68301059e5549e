"""RegexRuleExtractor: the first rule extractor (one anchored regex per way of saying a fact).

Not part of the package: kept only as the baseline the grammar-based
:class:`~remem.extraction.RuleExtractor` is measured against (``benches/bench_extraction.py``,
``tests/eval/persona/test_render.py``); use ``RuleExtractor``.


It lets the offline stack build real memory: "I moved to Lisbon last month" becomes the fact
``user / city / Lisbon`` ("The user lives in Lisbon."), the entity Lisbon (place) and the
exclusive edge ``user -lives_in-> Lisbon`` valid from a month before the turn. Only the
``user_message`` of a turn is read; the assistant's words are never mined.

How: each message is split into sentences, each sentence into clauses (", and I …", "; my …");
discourse words ("well,", "btw") and a leading time phrase are stripped; every pattern of
:mod:`benches.regex_extractor_patterns` is tried, anchored at the start of the clause. A match is
dropped when the clause up to the value is negated ("I don't live in Paris"), when the sentence
up to the value is a question or a hypothetical ("if", "would", "I'd", "maybe", "planning to" …),
or when the value does not look like one (a place that starts with "a"/"my", a pronoun for a
hobby). Within one batch a later value of a single-valued attribute replaces an earlier one.

What it cannot do (use :class:`~remem.extraction.MemoryExtractor` for these):

- Anything not said in the first person at the start of a clause: facts about other people
  ("my sister moved to Rome" gives no city for anyone; only the names of relatives, partners
  and pets are kept), reported speech ("Ana said I …"), facts split across sentences or turns
  ("Guess where I live now? Lisbon!"), pronouns and ellipsis ("Me too", "Same here").
- Past states and endings other than a break-up: "I used to live in Paris", "I lived in Paris",
  "I left my job", "I quit", "I no longer eat meat" give nothing; negations are dropped, never
  turned into facts ("I don't eat meat" is not recorded as vegetarian; "I hate olives" and
  "I don't like olives" are not recorded as dislikes).
- A break-up is the fact ``partner = "none"`` ("The user broke up with their partner."), which
  contradicts the old partner fact; the old ``partner_of`` edge stays until a consolidator closes
  it (the extractor only adds edges).
- Place and company names are cut at the first preposition or conjunction ("Trinidad and
  Tobago" → "Trinidad"; "Bank of America" survives); lower-case places are title-cased; a name
  typed in lower case is only found after "is called"/"named" (the appositive "my sister Ana"
  needs the capital letter); at most three words of a name.
- Plans, wishes and conditionals are skipped wholesale when the marker comes before the value
  in the sentence, including true statements that follow one ("Maybe you remember: I moved to
  Lisbon" gives nothing); "going to"/"gonna" are not markers ("I love going to the beach").
- Irony, jokes, sarcasm, corrections ("sorry, I meant Porto"), other languages, dates other
  than the relative phrases of :mod:`remem.extraction.dates` (birthdays are kept as said),
  insights and summaries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from benches.regex_extractor_patterns import PATTERNS, ROLE_ATTRIBUTE, FactPattern
from remem.controller.extraction import (
    ExtractedEntity,
    ExtractedMemory,
    ExtractedRelationship,
    ExtractionContext,
    ExtractionResult,
)
from remem.extraction.dates import TIME_PHRASE, resolve_time_phrase
from remem.extraction.vocabulary import EXCLUSIVE_RELATIONS, RELATIONS, SINGLE_VALUED, USER
from remem.models import MemoryKind, TranscriptEntry

__all__ = ["RegexRuleExtractor", "extract_statements"]

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_FIRST_PERSON = r"(?=(?:i|i'm|i've|im|ive|i'd|my|we|we're|we've)\b)"
_CLAUSE = re.compile(
    rf"\s*[,;]\s*(?:(?:and|but|so|plus|also)\s+)?{_FIRST_PERSON}|\s+(?:and|but|so|plus)\s+"
    + _FIRST_PERSON,
    re.IGNORECASE,
)
_DISCOURSE = (
    r"well|so|oh|ok|okay|yeah|yes|yep|no|nope|actually|btw|by the way|also|and|but|anyway|"
    r"anyways|guess what|fun fact|just so you know|fyi|hey|hi|hello|haha|lol|honestly|basically|"
    r"um|uh|you know what|as you know|oh and|right|alright|cool|great|thanks|thank you|sure"
)
_LEADING_TIME = (
    r"(?:last|this|over the) (?:week|weekend|month|year|summer|winter|spring|autumn|fall)|"
    r"yesterday|today|recently|lately|nowadays|these days|a while ago|"
    r"(?:\d{1,2}|a|an|one|two|three|four|five|a few|a couple of) (?:day|week|month|year)s? ago|"
    r"(?:in|since) (?:19|20)\d\d|(?:in|since) (?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december)"
)
_PREFIX = re.compile(
    rf"^(?:(?:{_DISCOURSE})\b[\s,!:\-]*|(?:{_LEADING_TIME})\b\s*,?\s*)+", re.IGNORECASE
)
_NEGATION = re.compile(
    r"\b(?:not|never|no longer|no|nobody|neither|nor|cannot|hardly|dont|doesnt|didnt|isnt|"
    r"arent|wasnt|havent|cant|wont)\b|n't\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|wish|wished|would|might|maybe|perhaps|could|"
    r"should|hypothetically|whether|pretend|want to|wanna|plan to|planning to|"
    r"hope to|hoping to|thinking of|thinking about|considering|dream of|dreaming of|someday)\b"
    r"|\b(?:i|we|you|he|she|they)'d\b",
    re.IGNORECASE,
)

# Where a value ends, by kind (searched in the raw value; the value is what precedes).
_END = r"[,;:()!?\"]|\.(?:\s|$)|\s-\s"
_END_WORDS = (
    r"because|since|but|so that|so|which|who|where|when|while|after|before|until|though|"
    r"although|unless|if|lol|haha|btw|right now|now|anymore|again|too|as well|these days|"
    r"nowadays|at the moment|currently|recently|lately|already|actually|yet|and then"
)
_ENTITY_END = (
    _END_WORDS + r"|with|for|as|in|on|at|near|from|to|by|and|or|about|around|last|this|next"
)
_PHRASE_END = _END_WORDS + r"|with|for|at|in|from|by|and|or|who|last|this|next"
_LIST_END = (
    r"because|since|but|so|which|who|when|while|though|although|unless|if|lol|haha|btw|"
    r"especially|except|right now|at the moment|these days|nowadays|lately|with"
)
_RAW_END = r"because|since|but|so|and|lol|haha|btw|which"


def _stopper(words: str, end: str = _END) -> re.Pattern[str]:
    return re.compile(rf"{end}|\s+(?:{words})\b|{TIME_PHRASE.pattern}", re.IGNORECASE)


_CUT = {
    "place": _stopper(_ENTITY_END),
    "org": _stopper(_ENTITY_END.replace("|or", "")),
    "name": _stopper(_ENTITY_END),
    "phrase": _stopper(_PHRASE_END),
    "list": _stopper(_LIST_END, end=_END.replace(",", "")),  # "X, Y and Z" is split later
    "raw": re.compile(rf"[,;:()!?\"]|\.(?:\s|$)|\s+(?:{_RAW_END})\b", re.IGNORECASE),
}
_ITEMS = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&|plus)\s+", re.IGNORECASE)
_TRAILING = re.compile(
    r"(?:\s+(?:a lot|so much|very much|too|as well|really|in my (?:free|spare) time|"
    r"on (?:the )?weekends?|at the weekend|every (?:day|week|morning|evening)|here|there|now|"
    r"lately|these days))+$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.IGNORECASE)
_PRONOUNS = frozenset(
    [
        "it",
        "that",
        "this",
        "you",
        "them",
        "him",
        "her",
        "those",
        "these",
        "me",
        "us",
        "everything",
        "nothing",
        "something",
        "anything",
        "all",
        "lots",
        "one",
        "ones",
        "mine",
        "yours",
        "someone",
        "somebody",
        "anyone",
        "nobody",
        "myself",
        "yourself",
        "people",
        "stuff",
        "things",
        "here",
        "there",
    ]
)
_POSSESSIVES = frozenset(["my", "your", "his", "her", "our", "their", "its"])
_PLACE_STOP = _PRONOUNS | _POSSESSIVES | frozenset(["another", "somewhere", "abroad"])
_NOT_PLACES = frozenset(
    [
        "home",
        "city",
        "town",
        "village",
        "countryside",
        "suburbs",
        "house",
        "flat",
        "apartment",
        "place",
        "work",
        "school",
        "bed",
        "area",
        "neighbourhood",
        "neighborhood",
        "centre",
        "center",
        "room",
        "studio",
        "dorm",
    ]
)
"""Words that make "I live in a small flat" a dwelling, not a place name."""
_ORG_STOP = (
    _PRONOUNS | _POSSESSIVES | frozenset(["home", "remotely", "night", "nights", "weekends"])
)
_PREPOSITIONS = frozenset(
    ["with", "for", "at", "in", "on", "by", "from", "about", "around", "outside", "into"]
)
_NAME_STOP = (
    _PRONOUNS
    | _POSSESSIVES
    | frozenset(
        [
            "a",
            "an",
            "the",
            "he",
            "she",
            "they",
            "guy",
            "girl",
            "man",
            "woman",
            "person",
            "mr",
            "ms",
            "mrs",
            "dr",
            "doctor",
            "again",
        ]
    )
)
_NOT_GERUNDS = frozenset(
    [
        "thing",
        "something",
        "everything",
        "nothing",
        "anything",
        "king",
        "ring",
        "spring",
        "string",
        "morning",
        "evening",
        "wedding",
        "building",
        "ceiling",
        "pudding",
        "clothing",
    ]
)
_NAME_TOKEN = re.compile(r"^[^\W\d_][\w'\-]*$")


@dataclass(frozen=True, slots=True)
class Statement:
    """One fact found in one turn (before batch-level de-duplication)."""

    attribute: str
    value: str
    text: str
    turn_id: str
    entity_type: str | None = None
    valid_from: datetime | None = None
    confidence: float = 0.9


class RegexRuleExtractor:
    """An :class:`~remem.controller.Extractor` that needs no model (see the module docstring
    for what it understands and what it cannot do).

    Example::

        async with remem.Runtime.open("./memory", extractor=RegexRuleExtractor()) as rt:
            await rt.controller.record_turn("s", "I moved to Lisbon last month", "Nice!")
            await rt.controller.flush_extraction()
            hits = await rt.controller.recall("where does the user live")
    """

    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        statements = [
            s for e in entries for s in extract_statements(e.user_message, e.created_at, e.id)
        ]
        return _result(_dedupe(statements))


def extract_statements(message: str, at: datetime, turn_id: str = "") -> list[Statement]:
    """Every fact in one user message said at ``at`` (the pure core of the extractor)."""
    out: list[Statement] = []
    text = message.translate(_QUOTES)
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip()
        if not sentence or sentence.endswith("?"):
            continue
        starts = [0] + [m.end() for m in _CLAUSE.finditer(sentence)]
        ends = [m.start() for m in _CLAUSE.finditer(sentence)] + [len(sentence)]
        for start, end in zip(starts, ends, strict=True):
            raw_clause = sentence[start:end]
            prefix = _PREFIX.match(raw_clause)
            skip = prefix.end() if prefix else 0
            clause = raw_clause[skip:].rstrip(" .!")
            offset = start + skip
            for pattern in PATTERNS:
                m = pattern.regex.match(clause)
                if m is not None:
                    found = _statement(pattern, m, clause, sentence, offset, at, turn_id)
                    out.extend(found)
    return out


def _statement(
    pattern: FactPattern,
    m: re.Match[str],
    clause: str,
    sentence: str,
    offset: int,
    at: datetime,
    turn_id: str,
) -> list[Statement]:
    groups = m.groupdict()
    role = (groups.get("role") or "").lower()
    animal = (groups.get("animal") or "").lower()
    attribute = (
        ROLE_ATTRIBUTE.get(role, "sibling") if pattern.attribute == "role" else pattern.attribute
    )
    if pattern.value == "fixed":
        values, span_end = [pattern.fixed or ""], m.end()
    else:
        raw = groups.get("v") or ""
        cut = _CUT[pattern.value].search(raw)
        kept = raw[: cut.start()] if cut else raw
        span_end = m.start("v") + len(kept)
        values = _values(pattern.value, kept)
    if not values:
        return []
    if pattern.check_negation and _NEGATION.search(clause[:span_end]):
        return []
    if _HYPOTHETICAL.search(sentence[: offset + span_end]):
        return []
    since = resolve_time_phrase(clause, at)
    if since is None and pattern.event:
        since = at
    entity_type = {"place": "place", "org": "org"}.get(pattern.value)
    if pattern.value == "name":
        entity_type = "animal" if attribute == "pet" else "person"
    out = []
    for value in values:
        attr, text = attribute, pattern.text
        if pattern.value == "list" and attribute == "preference":
            attr, value, text = _classify_like(value)
        elif attribute == "preference" and role:
            value = f"favourite {role}: {value}"
            text = text.replace("{v}", value.split(": ", 1)[1])
        # "a design studio" is stored as the entity "design studio"; the sentence keeps an
        # article for a lower-case organisation so it still reads as said.
        shown = f"{_a(value)} {value}" if pattern.value == "org" and value[:1].islower() else value
        out.append(
            Statement(
                attr,
                value,
                text.format(v=shown, role=role, animal=animal, a=_a(value), a_animal=_a(animal)),
                turn_id,
                entity_type,
                since if attr in RELATIONS else None,
                pattern.confidence,
            )
        )
    return out


def _values(kind: str, raw: str) -> list[str]:
    raw = _TRAILING.sub("", raw.strip()).strip()
    if not raw:
        return []
    if kind == "list":
        items = [_ARTICLE.sub("", _TRAILING.sub("", i.strip())) for i in _ITEMS.split(raw)]
        return [i for i in items if _plausible_item(i)]
    if kind == "name":
        name = _name(raw)
        return [name] if name else []
    if kind == "place":
        if re.match(r"(?:a|an|some)\s", raw, re.IGNORECASE):
            return []  # "a new apartment": an indefinite thing, not a named place
        place = _ARTICLE.sub("", raw)
        words = place.split()
        if not words or words[0].lower() in _PLACE_STOP or len(words) > 4:
            return []
        if any(w.lower() in _NOT_PLACES for w in words):
            return []
        if any(ch.isdigit() for ch in place):
            return []
        return [place.title() if place.islower() else place]
    if kind in ("org", "phrase"):
        value = _ARTICLE.sub("", raw)
        words = value.split()
        limit = 6 if kind == "org" else 5
        if not words or words[0].lower() in _ORG_STOP or len(words) > limit:
            return []
        return [value]
    return [raw]


def _name(raw: str) -> str | None:
    tokens = raw.split()
    if not tokens or not _NAME_TOKEN.match(tokens[0]) or tokens[0].lower() in _NAME_STOP:
        return None
    if not tokens[0][0].isupper():
        return tokens[0].capitalize() if len(tokens[0]) > 1 else None
    taken = []
    for t in tokens[:3]:
        if not (_NAME_TOKEN.match(t) and t[0].isupper()):
            break
        taken.append(t)
    return " ".join(taken)


def _plausible_item(item: str) -> bool:
    words = item.split()
    if not words or len(words) > 5 or len(item) < 2:
        return False
    first = words[0].lower()
    return first not in _PRONOUNS and first not in _POSSESSIVES and first not in _PREPOSITIONS


def _classify_like(item: str) -> tuple[str, str, str]:
    """ "hiking" → hobby; "to swim" → hobby "swim"; "jazz" → preference."""
    first = item.split()[0].lower()
    if first == "to" and len(item.split()) > 1:
        verb = item.split(None, 1)[1]
        return "hobby", verb, "The user likes to {v}."
    if first.endswith("ing") and len(first) > 4 and first not in _NOT_GERUNDS:
        return "hobby", item, "The user enjoys {v}."
    return "preference", item, "The user likes {v}."


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _dedupe(statements: list[Statement]) -> list[Statement]:
    """A later value of a single-valued attribute replaces an earlier one (the batch's turns are
    in order); repeats of a multi-valued value are kept once."""
    kept: dict[tuple[str, str], Statement] = {}
    for s in statements:
        key = (s.attribute, "" if s.attribute in SINGLE_VALUED else s.value.casefold())
        kept.pop(key, None)
        kept[key] = s
    return list(kept.values())


def _result(statements: list[Statement]) -> ExtractionResult:
    if not statements:
        return ExtractionResult()
    entities: dict[str, ExtractedEntity] = {USER: ExtractedEntity(USER, "person")}
    relationships: list[ExtractedRelationship] = []
    memories: list[ExtractedMemory] = []
    for s in statements:
        linked: tuple[str, ...] = (USER,)
        relation = RELATIONS.get(s.attribute)
        if s.entity_type is not None:
            entities.setdefault(s.value, ExtractedEntity(s.value, s.entity_type))
            linked = (USER, s.value)
            if relation is not None:
                relationships.append(
                    ExtractedRelationship(
                        USER,
                        relation,
                        s.value,
                        valid_from=s.valid_from,
                        confidence=s.confidence,
                        exclusive=relation in EXCLUSIVE_RELATIONS,
                    )
                )
        memories.append(
            ExtractedMemory(
                s.text,
                kind=MemoryKind.FACT,
                entities=linked,
                confidence=s.confidence,
                subject=USER,
                attribute=s.attribute,
                value=s.value,
            )
        )
    return ExtractionResult(tuple(entities.values()), tuple(relationships), tuple(memories))
