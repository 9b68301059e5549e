"""What a match of a rule becomes: a :class:`Statement` — subject, attribute, value and
operation, with the fact's sentence and, when the clause says one, the time it holds from.

:func:`build` applies the subject and negation guards of a single match (someone unnamed is
dropped, a negation drops the match or ends the fact) and reads the value from the ``v`` slot,
the rule's fixed value or the name beside "and I"; it never makes a value up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter

from remem.extraction.dates import resolve_time_phrase
from remem.extraction.grammar.guards import NEGATION as _NEG
from remem.extraction.grammar.guards import stopped as _stopped
from remem.extraction.grammar.lexicon import ROLE_ATTRIBUTE
from remem.extraction.grammar.pattern import Match
from remem.extraction.grammar.rule import END, Operation, Rule
from remem.extraction.grammar.subject import Subject
from remem.extraction.grammar.tokens import Token

__all__ = ["USER", "Statement", "build"]

USER = "user"


@dataclass(frozen=True, slots=True)
class Statement:
    """One fact found in one message: ``subject``/``attribute``/``value`` with the operation
    (``set``, ``end`` or ``correct``); ``previous`` is the value a correction or a rename
    replaces, when it was said."""

    attribute: str
    value: str
    text: str
    turn_id: str = ""
    entity_type: str | None = None
    valid_from: datetime | None = None
    confidence: float = 0.9
    subject: str = USER
    operation: Operation = "set"
    previous: str | None = None
    kind: str = ""


_TIME_WORDS = frozenset(
    [
        "yesterday",
        "today",
        "tonight",
        "this",
        "last",
        "ago",
        "for",
        "in",
        "since",
        "morning",
        "evening",
    ]
)
"""A clause without one of these has no time phrase :func:`resolve_time_phrase` knows."""
_LOW = itemgetter(1)
"""A token's case-folded form (``Token.low``), for C-level scans of a clause."""


def build(
    r: Rule,
    m: Match,
    clause: Sequence[Token],
    at: datetime,
    turn_id: str,
    inherited: Subject | None = None,
) -> list[Statement]:
    slots = m.slots
    who = slots.get("who")
    subject_obj = who[2] if who is not None else None
    if who is not None and who[0] == who[1] and inherited is not None:
        # an elided subject ("… and started at Asda") is whoever the sentence last named
        subject_obj = inherited
    subject = USER
    co_subject: str | None = None
    if isinstance(subject_obj, Subject):
        if subject_obj.kind == "other":
            return []
        if subject_obj.kind == "person":
            subject = subject_obj.name or USER
        else:
            co_subject = subject_obj.name
    v = slots.get("v")
    value_end = v[0] if v is not None else m.end
    op: Operation = r.op
    negated = (
        r.negated != "keep"
        and not r.scan
        and not _NEG.isdisjoint(map(_LOW, clause[m.start : value_end]))
    )
    if negated:
        if r.negated == "end" and r.op != END and _stopped(clause):
            op = END
        else:
            return []
    values: tuple[str, ...]
    if v is not None:
        raw = v[2]
        values = raw if isinstance(raw, tuple) else (str(raw),)
    elif r.value_from_with and co_subject:
        values = (co_subject,)
    elif r.fixed is not None:
        values = (r.fixed,)
    else:
        return []
    attribute = r.attribute
    role = str(slots["role"][2]) if "role" in slots else ""
    if attribute == "{role}":
        attribute = ROLE_ATTRIBUTE.get(role, "relative")
    if r.subject_slot is not None:
        subject = str(slots[r.subject_slot][2])
    animal = str(slots["animal"][2]) if "animal" in slots else "pet"
    prev = str(slots["prev"][2]) if "prev" in slots and r.kind == "project" else None
    since = None
    if not _TIME_WORDS.isdisjoint(map(_LOW, clause)):
        since = resolve_time_phrase(" ".join(t.text for t in clause), at)
    if since is None and r.event:
        since = at
    shown = "The user" if subject == USER else subject.capitalize()
    out: list[Statement] = []
    for value in values:
        if attribute == "preference":
            attr, value = _classify_like(value)
        elif attribute == "favourite":
            attr, value = (
                ("favourite_food", value)
                if role in ("food", "dish", "meal")
                else (
                    "preference",
                    f"favourite {role}: {value}",
                )
            )
        else:
            attr = attribute
        text = r.text
        if op == END and r.op != END:
            text = "{S} no longer: " + r.text.replace("{S} ", "").rstrip(".") + "."
        if attribute == "preference" and attr == "hobby":
            text = text.replace("likes", "enjoys")
        # "a design studio" is stored as "design studio"; the sentence keeps the article
        said = f"{_a(value)} {value}" if r.entity == "org" and value[:1].islower() else value
        text = text.format(
            S=shown,
            Ss=shown + "'s",
            v=said,
            a=_a(value),
            role=role,
            animal=animal,
            a_animal=_a(animal),
            prev=prev or "",
            n=str(slots["n"][2]) if "n" in slots else "",
        )
        out.append(
            Statement(
                attr,
                value,
                text,
                turn_id,
                r.entity if r.entity and value != "none" else None,
                since,
                r.confidence,
                subject,
                op,
                prev,
                r.kind,
            )
        )
    return out


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


def _classify_like(item: str) -> tuple[str, str]:
    """ "hiking" → hobby; "jazz" → preference."""
    first = item.split()[0].lower()
    if first.endswith("ing") and len(first) > 4 and first not in _NOT_GERUNDS:
        return "hobby", item
    return "preference", item


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"
