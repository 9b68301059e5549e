"""The grammar without its speed-ups: the test oracle of :class:`~remem.extraction.grammar.
engine.Grammar` (and of :func:`~remem.extraction.grammar.tokens.sentences`).

Every non-``scan`` rule is tried at the start of every clause and every ``scan`` rule at every
token, in table order, with the pattern notation interpreted element by element; no first-word
index, no required-word filter, no sentence rejection, no cache, no shared slot readings.
Each row's own filters (the words a row needs, see :func:`required_words`) are applied the
way the engine documents them, so the fast engine must give exactly these statements.

    parsed = slow_parse("I moved to Lisbon", at)
    assert apply_corrections(parsed, ()) == extract_statements("I moved to Lisbon", at)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from remem.extraction.grammar.engine import _name_used, _named_subject, _pet_deaths, _prune
from remem.extraction.grammar.guards import hypothetical as _hypothetical
from remem.extraction.grammar.guards import is_question as _is_question
from remem.extraction.grammar.guards import skip_lead as _skip_lead
from remem.extraction.grammar.index import required_words
from remem.extraction.grammar.lexicon import CLASSES
from remem.extraction.grammar.pattern import _TRAILERS, Element, Match, Pattern
from remem.extraction.grammar.rule import END, Rule
from remem.extraction.grammar.statement import Statement
from remem.extraction.grammar.statement import build as _statement
from remem.extraction.grammar.subject import Subject
from remem.extraction.grammar.tables import TABLES
from remem.extraction.grammar.tokens import (
    _BREAKS,
    _DIGIT,
    _FIND,
    _QUOTES,
    _SENTENCE_BREAK,
    _SENTENCE_END,
    KIND_WORD,
    Sentence,
    Token,
    _clauses,
    _kind,
    _word,
    restore_names,
)

__all__ = ["slow_parse", "slow_sentences"]


def slow_tokenise(text: str) -> list[Token]:
    """Every token of ``text``, each piece tokenised afresh."""
    out: list[Token] = []
    text = text.translate(_QUOTES)
    for piece in _FIND[("@" in text, _DIGIT.search(text) is not None)].findall(text):
        _word(piece, _kind(piece), out)
    return out


def _sentence(tokens: list[Token], question: bool) -> Sentence:
    words = frozenset(t.low if t.kind == "word" else KIND_WORD.get(t.kind, t.low) for t in tokens)
    clauses = ((tuple(tokens),),) if words.isdisjoint(_BREAKS) else (_clauses(tokens),)
    return Sentence(clauses[0], question, tuple(tokens), words)


def slow_sentences(text: str) -> list[Sentence]:
    """The sentences of ``text`` token by token (the tokeniser's documented behaviour)."""
    out: list[Sentence] = []
    for line in re.split(_SENTENCE_BREAK, text):
        current: list[Token] = []
        typed = slow_tokenise(line)
        for t in restore_names(typed) if text.islower() else typed:
            if t.low in _SENTENCE_END:
                if current:
                    out.append(_sentence(current, t.low == "?"))
                elif t.low == "?" and out and not out[-1].question:
                    last = out[-1]
                    out[-1] = Sentence(last.clauses, True, last.tokens, last.words)
                current = []
                continue
            current.append(t)
        if current:
            out.append(_sentence(current, False))
    return out


def _match(
    elements: tuple[Element, ...],
    k: int,
    tokens: Sequence[Token],
    i: int,
    slots: dict[str, tuple[int, int, object]],
) -> int | None:
    if k == len(elements):
        return i
    e = elements[k]
    if e.slot == "$":
        return i if all(t.low in _TRAILERS or t.kind == "punct" for t in tokens[i:]) else None
    if e.reader is not None:
        got = e.reader(tokens, i)
        if got is None:
            return _match(elements, k + 1, tokens, i, slots) if e.optional else None
        j, value = got
        assert e.slot is not None
        slots[e.slot] = (i, j, value)
        end = _match(elements, k + 1, tokens, j, slots)
        if end is None:
            del slots[e.slot]
        return end
    assert e.words is not None
    if e.repeat:
        j = i
        while j < len(tokens) and tokens[j].low in e.words:
            j += 1
        if e.possessive:
            return _match(elements, k + 1, tokens, j, slots)
        while j >= i:
            end = _match(elements, k + 1, tokens, j, slots)
            if end is not None:
                return end
            j -= 1
        return None
    if i < len(tokens) and tokens[i].low in e.words:
        end = _match(elements, k + 1, tokens, i + 1, slots)
        if end is not None:
            return end
    if e.optional:
        return _match(elements, k + 1, tokens, i, slots)
    return None


def _slow_match(pattern: Pattern, tokens: Sequence[Token], i: int) -> Match | None:
    slots: dict[str, tuple[int, int, object]] = {}
    end = _match(pattern.elements, 0, tokens, i, slots)
    return None if end is None else Match(i, end, slots)


def _words(tokens: Sequence[Token]) -> frozenset[str]:
    return frozenset(t.low if t.kind == "word" else KIND_WORD.get(t.kind, t.low) for t in tokens)


def _meets(r: Rule, words: frozenset[str]) -> bool:
    """Every word a row needs is in ``words`` (the row's documented filter)."""
    return all(not words.isdisjoint(req) for req in required_words(r))


def slow_parse(
    message: str, at: datetime, turn_id: str = "", tables: Mapping[str, tuple[Rule, ...]] = TABLES
) -> list[tuple[Sentence, list[list[Statement]]]]:
    """What :meth:`Grammar.parse` returns, computed the slow way."""
    rules = [r for table in tables.values() for r in table]
    plain = [r for r in rules if not r.scan]
    scans = [r for r in rules if r.scan]
    parsed: list[tuple[Sentence, list[list[Statement]]]] = []
    pending: list[tuple[list[Statement], Rule, list[Statement]]] = []
    for sentence in slow_sentences(message):
        per_clause: list[list[Statement]] = []
        parsed.append((sentence, per_clause))
        # A question states only what its ``presupposed`` rows find ("… a vegan like me?").
        question = _is_question(sentence)
        tried = [r for r in plain if r.presupposed] if question else plain
        tried_scans = [r for r in scans if r.presupposed] if question else scans
        if not tried and not tried_scans:
            per_clause.extend([] for _ in sentence.clauses)
            continue
        hypothetical = False
        said: Subject | None = None
        for clause in sentence.clauses:
            hypothetical = hypothetical or _hypothetical(clause)
            found: list[Statement] = []
            if hypothetical:
                per_clause.append(found)
                continue
            start = _skip_lead(clause)
            inherited = said
            said = _named_subject(clause, start, said)
            if start < len(clause):
                after = _words(clause[start:])
                for r in tried:
                    if not _meets(r, after):
                        continue
                    m = _slow_match(r.pattern, clause, start)
                    if m is None:
                        continue
                    made = _statement(r, m, clause, at, turn_id, inherited)
                    if r.needs is not None:
                        pending.append((found, r, made))
                    else:
                        found.extend(made)
            for i in range(start, len(clause)):
                for r in tried_scans:
                    if not _meets(r, sentence.words):
                        continue
                    m = _slow_match(r.pattern, clause, i)
                    if m is None:
                        continue
                    made = _statement(r, m, clause, at, turn_id)
                    if r.needs is not None:
                        pending.append((found, r, made))
                    else:
                        found.extend(made)
            per_clause.append(_prune(found) if len(found) > 1 else found)
        _pet_deaths(sentence, per_clause)
        _name_used(per_clause)
    if pending:
        set_attributes = {
            s.attribute for _, per in parsed for found in per for s in found if s.operation != END
        }
        said_words = frozenset().union(*(sentence.words for sentence, _ in parsed))
        clauses = [clause for sentence, _ in parsed for clause in sentence.clauses]
        for found, r, made in pending:
            needs = r.needs or ""
            phrase = r.needs_phrase
            if (
                needs in set_attributes
                or (needs.startswith("@") and not said_words.isdisjoint(CLASSES[needs[1:]]))
                or (
                    phrase is not None
                    and any(
                        _slow_match(phrase, clause, i) is not None
                        for clause in clauses
                        for i in range(len(clause))
                    )
                )
            ):
                found.extend(s for s in made if s not in found)
    return parsed
