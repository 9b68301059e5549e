"""RuleExtractor: keyed facts from how people type about their lives, without a model.

It runs the token grammar of :mod:`remem.extraction.grammar` (one declarative table per kind
of fact: moves, origin, jobs, school, partners, family, pets, diet, habits, health, likes,
contact details, projects, dates, identity) over each turn's ``user_message`` — the assistant's
words are never mined — and applies corrections. "I moved to Lisbon last month" becomes the
fact ``user / city / Lisbon`` ("The user lives in Lisbon."), the entity Lisbon (place) and the
exclusive edge ``user -lives_in-> Lisbon`` valid from a month before the turn.

Statements carry an operation (:attr:`~remem.controller.ExtractedMemory.operation`): ``set``,
``end`` ("I'm not doing keto any more" → ``diet = keto``, ended; an unnamed ending such as "I
broke up with my boyfriend" has the value ``"none"``) and ``correct`` ("sorry, Thursday, not
Wednesday"). An ending adds no edge (closing the old one is the consolidator's job). Facts
about a named other person ("Ana moved to Berlin") have that person as subject; facts about
someone unnamed ("my friend moved to Berlin") are dropped, never given to the user.

Within one batch a later value of a single-valued attribute replaces an earlier one. The
extractor remembers the last :data:`HISTORY` statements of each session so a correction in a
later turn ("I misspoke — Porto, not Lisbon") finds what it corrects, and the session's last
user message, which completes a row's ``needs`` when it was sent at most :data:`FOLLOW_UP`
before ("My parrot is being a menace today." / "Pip chewed the remote" names the parrot).

What it cannot do (use :class:`~remem.extraction.MemoryExtractor`): pronouns and ellipsis
across sentences ("Guess where I live now? Lisbon!") or clauses ("a dog named Rex and a cat
called Mochi" gives Rex only; "I left Acme and joined Globex" gives Globex only — a bare
"left Acme" could as well be a place left), reported speech, irony, other languages, facts
whose wording no table row knows (on the second held-out slice, first run: "going out with",
"can't stand", "divorced Phil", "I'm Siobhán btw", "I turned 40 last week"), dates other
than those said (kept as typed: "next Tuesday").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from datetime import datetime, timedelta

from remem.controller.extraction import (
    ExtractedEntity,
    ExtractedMemory,
    ExtractedRelationship,
    ExtractionContext,
    ExtractionResult,
)
from remem.extraction.grammar.corrections import apply_corrections
from remem.extraction.grammar.engine import Grammar, Statement
from remem.extraction.grammar.rhetorical import presupposed
from remem.extraction.grammar.tokens import sentences
from remem.extraction.vocabulary import EXCLUSIVE_RELATIONS, RELATIONS, SINGLE_VALUED, USER
from remem.models import MemoryKind, TranscriptEntry

__all__ = ["FOLLOW_UP", "HISTORY", "RuleExtractor", "Statement", "extract_statements"]

HISTORY = 32
"""Statements kept per session for corrections in later turns."""

FOLLOW_UP = timedelta(minutes=10)
"""How soon after a user message the next one may complete it (a thought split in two)."""

_GRAMMAR = Grammar()


class RuleExtractor:
    """An :class:`~remem.controller.Extractor` that needs no model (see the module docstring
    for what it understands and what it cannot do).

    Example::

        async with remem.Runtime.open("./memory", extractor=RuleExtractor()) as rt:
            await rt.controller.record_turn("s", "I moved to Lisbon last month", "Nice!")
            await rt.controller.flush_extraction()
            hits = await rt.controller.recall("where does the user live")
    """

    def __init__(self) -> None:
        self._history: dict[str, deque[Statement]] = {}
        self._last: dict[str, tuple[str, datetime]] = {}

    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        session = context.session_id
        history = self._history.setdefault(session, deque(maxlen=HISTORY))
        statements: list[Statement] = []
        for e in entries:
            last = self._last.get(session)
            before = ""
            if last is not None and timedelta(0) <= e.created_at - last[1] <= FOLLOW_UP:
                before = last[0]
            found = extract_statements(e.user_message, e.created_at, e.id, [*history], before)
            statements.extend(found)
            history.extend(found)
            self._last[session] = (e.user_message, e.created_at)
        return _result(_dedupe(statements))


def extract_statements(
    message: str,
    at: datetime,
    turn_id: str = "",
    history: Sequence[Statement] = (),
    before: str = "",
) -> list[Statement]:
    """Every fact in one user message said at ``at`` (the pure core of the extractor);
    ``history`` — statements said earlier — is what a correction may refer to, ``before`` —
    the user's message just before this one — what completes a row's ``needs``."""
    said = sentences(message)  # tokenised once for both passes
    found = apply_corrections(_GRAMMAR.parse(message, at, turn_id, before, said), history)
    return [*found, *(s for s in presupposed(message, at, turn_id, said) if s not in found)]


def _dedupe(statements: list[Statement]) -> list[Statement]:
    """A later value of a single-valued attribute replaces an earlier one (the batch's turns are
    in order); repeats of a multi-valued value are kept once."""
    kept: dict[tuple[str, str, str], Statement] = {}
    for s in statements:
        value = "" if s.attribute in SINGLE_VALUED and s.operation != "end" else s.value
        key = (s.subject.casefold(), s.attribute, value.casefold())
        kept.pop(key, None)
        kept[key] = s
    return list(kept.values())


def _result(statements: list[Statement]) -> ExtractionResult:
    if not statements:
        return ExtractionResult()
    entities: dict[str, ExtractedEntity] = {}
    relationships: list[ExtractedRelationship] = []
    memories: list[ExtractedMemory] = []
    for s in statements:
        entities.setdefault(
            s.subject,
            ExtractedEntity(
                s.subject, "person" if s.subject == USER or s.kind != "date" else "event"
            ),
        )
        linked: tuple[str, ...] = (s.subject,)
        relation = RELATIONS.get(s.attribute)
        if s.entity_type is not None:
            entities.setdefault(s.value, ExtractedEntity(s.value, s.entity_type))
            linked = (s.subject, s.value)
            if relation is not None and s.operation != "end":
                relationships.append(
                    ExtractedRelationship(
                        s.subject,
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
                subject=s.subject,
                attribute=s.attribute,
                value=s.value,
                operation=s.operation,
                previous=s.previous,
            )
        )
    return ExtractionResult(tuple(entities.values()), tuple(relationships), tuple(memories))
