"""One row of a fact table: a token pattern, the fact it states, and what negation does to it.

Operations (:data:`SET`, :data:`END`, :data:`CORRECT`): a statement *sets* a value ("I moved
to Leeds"), *ends* one without a replacement ("Sam and I split up", "I'm not doing keto any
more", "our cat Whiskers died") or *corrects* a misstatement ("sorry, Thursday, not
Wednesday"). Only the engine's correction pass produces CORRECT; a row says SET or END.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from remem.errors import InvalidArgumentError
from remem.extraction.grammar.lexicon import CLASSES
from remem.extraction.grammar.pattern import Pattern, compile_pattern

__all__ = ["CORRECT", "END", "SET", "Operation", "Rule", "rule"]

Operation = Literal["set", "end", "correct"]
SET: Operation = "set"
END: Operation = "end"
CORRECT: Operation = "correct"


@dataclass(frozen=True, slots=True)
class Rule:
    """A way of saying a fact.

    ``attribute`` names the fact's attribute; ``"{role}"`` takes it from the ``role`` slot
    (a kinship word → sibling, parent, child, partner, relative, friend). ``text`` is the
    fact's sentence with ``{S}`` (the subject: "The user", "Ana"), ``{Ss}`` (its possessive),
    ``{v}``, ``{a}`` (a/an for v), ``{role}``, ``{animal}``, ``{prev}`` and ``{n}`` (the
    words of an ``n`` slot: a name said beside the value, "our daughter Selam arrived").
    The value is the ``v`` slot; without one it is ``fixed`` (``"none"`` for an ending
    nobody named), or the name next to "and I" in the subject ("Sam and I split up") when
    ``value_from_with``.
    ``negated`` says what a negation before the value does: ``"drop"`` the match, ``"end"``
    the fact when the clause says it stopped ("no longer", "not … anymore"), or nothing
    (``"keep"``) when the negation is part of the phrasing ("can't stand olives"). ``scan`` rows are
    tried at every token of a clause (names in passing: "took my dog Pepper to the vet");
    other rows only at the start of a clause. ``event`` marks a change (valid from the turn's
    time when no date is said). ``entity`` is the entity type of the value, if it is one.
    ``subject_slot`` names a slot whose words are the subject (a date's event);
    ``needs`` an attribute the same message must set (or a word class, or a phrase: see
    the field).
    """

    kind: str
    attribute: str
    pattern: Pattern
    text: str
    op: Operation = SET
    negated: Literal["drop", "end", "keep"] = "drop"
    fixed: str | None = None
    value_from_with: bool = False
    scan: bool = False
    event: bool = False
    entity: str | None = None
    subject_slot: str | None = None
    confidence: float = 0.9
    needs: str | None = None
    """An attribute the message must also set for this row to count: "left Costa" is a job
    ending only beside a new job ("…, starting at Greggs on monday"), else it may be a city;
    ``"@class"`` instead asks for a word of that lexicon class ("…, now freelancing"), and
    ``"~pattern"`` for a phrase said anywhere in the message, in another clause or sentence
    ("Met Elena at a gig, we're an item!"); :attr:`needs_phrase` is that pattern compiled."""
    needs_phrase: Pattern | None = None
    presupposed: bool = False
    """The row states its fact even inside a question, which otherwise states none: "any tips
    for a vegetarian like me?" asks for tips and takes the diet as given. Only such rows run on
    a question's clauses (every other guard still applies)."""


def rule(
    kind: str,
    attribute: str,
    pattern: str,
    text: str,
    *,
    op: Operation = SET,
    negated: Literal["drop", "end", "keep"] = "drop",
    fixed: str | None = None,
    value_from_with: bool = False,
    scan: bool = False,
    event: bool = False,
    entity: str | None = None,
    subject_slot: str | None = None,
    needs: str | None = None,
    presupposed: bool = False,
) -> Rule:
    """A :class:`Rule` with its pattern compiled; a rule that could never yield a value raises
    :class:`~remem.errors.InvalidArgumentError`."""
    compiled = compile_pattern(pattern)
    if needs is not None and needs.startswith("@") and needs[1:] not in CLASSES:
        raise InvalidArgumentError(
            f"rule {pattern!r} needs unknown word class {needs!r}; add it to lexicon.CLASSES"
        )
    phrase = compile_pattern(needs[1:]) if needs is not None and needs.startswith("~") else None
    slots = {e.slot for e in compiled.elements if e.slot}
    if "v" not in slots and fixed is None and not value_from_with:
        raise InvalidArgumentError(
            f"rule {pattern!r} has no {{v}} slot and no fixed value; add one of them"
        )
    return Rule(
        kind,
        attribute,
        compiled,
        text,
        op,
        negated,
        fixed,
        value_from_with,
        scan,
        event,
        entity,
        subject_slot,
        needs=needs,
        needs_phrase=phrase,
        presupposed=presupposed,
    )
