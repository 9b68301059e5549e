"""The grammar engine: tables of token patterns applied to a message, with the guards.

For each sentence that is not a question, for each clause: leading discourse words ("so",
"lol", "btw", "update:") and a leading time phrase are skipped; the rules whose pattern can
start with the clause's first token are tried there (a first-token index), and the ``scan``
rules at every token. A match becomes a :class:`Statement` unless a guard drops it:

- **subject** — "my friend moved to Berlin" (someone unnamed, "she", "you") is dropped; "Ana
  moved to Berlin" is a fact about Ana (subject "Ana"), never about the user; a clause
  without a subject of its own is about whoever the sentence named last ("my sister moved to
  Leeds and started at Asda" says nothing of the user);
- **question** — a sentence that ends with "?" or starts like one ("should I quit");
- **hypothetical** — a plan, wish or condition before the value in the sentence ("if",
  "would", "I'd", "maybe", "thinking of", "planning" …);
- **negation** — "not", "n't", "never", "no longer" before the value drops the match, or, for
  a row whose ``negated`` is ``"end"``, ends the fact when the clause says it stopped ("no
  longer", "not … anymore/any more/any longer");
- **value** — only the words said; a slot reader that finds no value means no fact.

A row with ``needs`` counts only when the same message sets that attribute too ("left Costa,
starting at Greggs"), or, for ``needs="@class"``, says a word of that class ("left the bank,
now freelancing"). Then :mod:`.corrections` turns misstatements put right into CORRECT
statements (built by :mod:`.statement`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from remem.extraction.grammar.guards import hypothetical as _hypothetical
from remem.extraction.grammar.guards import is_question as _is_question
from remem.extraction.grammar.guards import maybe_hypothetical as _maybe_hypothetical
from remem.extraction.grammar.guards import skip_lead as _skip_lead
from remem.extraction.grammar.lexicon import CLASSES
from remem.extraction.grammar.pattern import ANY, CAP
from remem.extraction.grammar.rule import END, Rule
from remem.extraction.grammar.slots import ANIMAL_FIRST_WORDS, READERS
from remem.extraction.grammar.statement import USER, Statement
from remem.extraction.grammar.statement import build as _statement
from remem.extraction.grammar.subject import Subject
from remem.extraction.grammar.subject import read_who as _read_who
from remem.extraction.grammar.tables import TABLES
from remem.extraction.grammar.tokens import KIND_WORD as _KIND_WORD
from remem.extraction.grammar.tokens import Sentence, Token, sentences

__all__ = ["Grammar", "Statement"]


_SLOT_WORDS = {
    READERS["diet"]: CLASSES["diet"] | frozenset({"plant", "gluten", "dairy", "low", "whole"}),
    READERS["kin"]: CLASSES["kin"],
    READERS["kins"]: frozenset(w + "s" for w in CLASSES["kin"]),
    READERS["nationality"]: CLASSES["nationality"],
    READERS["pronouns"]: CLASSES["pronoun"],
    READERS["job"]: CLASSES["job_head"] | frozenset({"head"}),
    READERS["num"]: frozenset({"\x00num"}),
    READERS["email"]: frozenset({"\x00email"}),
    READERS["phone"]: frozenset({"\x00phone"}),
    READERS["animal"]: CLASSES["animal"]
    | frozenset(w + "s" for w in CLASSES["animal"])
    | frozenset({"puppies", "kitties", "bunnies", "ponies"})
    | ANIMAL_FIRST_WORDS,
}
"""Slots with a closed vocabulary: a clause without one of their words cannot match."""
_COMMON = frozenset(
    [
        "to",
        "in",
        "a",
        "an",
        "the",
        "my",
        "our",
        "is",
        "'s",
        "at",
        "for",
        "on",
        "of",
        "i",
        "we",
        "and",
        "with",
        "'m",
        "am",
        "are",
        "'ve",
        "have",
        "up",
        "it",
    ]
)
"""Words too frequent to index a rule by (a rule is indexed by its rarest required word)."""


class Grammar:
    """Every table's rules, indexed by the words a match can start with.

    Example::

        grammar = Grammar()
        [s] = grammar.statements("so I've switched to pescatarian", at)
        assert (s.attribute, s.value, s.operation) == ("diet", "pescatarian", "set")
    """

    def __init__(self, tables: dict[str, tuple[Rule, ...]] | None = None) -> None:
        chosen = dict(TABLES) if tables is None else tables
        self.rules: tuple[Rule, ...] = tuple(r for rules in chosen.values() for r in rules)
        self._by_word: dict[str, list[int]] = {}
        self._cap: list[int] = []
        self._any: list[int] = []
        self._scan_by_word: dict[str, list[Rule]] = {}
        self._scan_cap: list[Rule] = []
        self._scan_words: frozenset[str] = frozenset()
        for r in self.rules:
            if r.scan:
                for w in r.pattern.first_words():
                    if w == CAP:
                        self._scan_cap.append(r)
                    else:
                        self._scan_by_word.setdefault(w, []).append(r)
        self._scan_words = frozenset(self._scan_by_word)
        for n, r in enumerate(self.rules):
            if r.scan:
                continue
            for w in r.pattern.first_words():
                if w == ANY:
                    self._any.append(n)
                elif w == CAP:
                    self._cap.append(n)
                else:
                    self._by_word.setdefault(w, []).append(n)
        # Second filter: every required word element of a pattern must meet the clause, so
        # each rule is indexed under the words of its smallest required element.
        self._required: list[tuple[frozenset[str], ...]] = []
        self._required_of: dict[int, tuple[frozenset[str], ...]] = {}
        self._by_key: dict[str, set[int]] = {}
        self._keyless: set[int] = set()
        for n, r in enumerate(self.rules):
            required = tuple(_required_words(r))
            self._required.append(required)
            self._required_of[id(r)] = required
            if r.scan:
                continue
            if required:
                for w in min(required, key=lambda ws: (len(ws & _COMMON), len(ws))):
                    self._by_key.setdefault(w, set()).add(n)
            else:
                self._keyless.add(n)
        self._key_words = frozenset(self._by_key)
        trigger = set(self._key_words)
        for r in self.rules:
            required = self._required_of[id(r)]
            if r.scan and required:
                trigger |= min(required, key=len)
        # A sentence with none of these words can match no rule (every rule requires one).
        self._trigger: frozenset[str] | None = (
            None
            if self._keyless or any(r.scan and not self._required_of[id(r)] for r in self.rules)
            else frozenset(trigger)
        )
        self._cache: dict[tuple[str, bool], frozenset[int]] = {}
        self._required_words: frozenset[str] = frozenset(
            w for required in self._required for ws in required for w in ws
        )
        self._candidate_cache: dict[tuple[str, bool, frozenset[str]], tuple[Rule, ...]] = {}

    def _possible(self, r: Rule, words: frozenset[str]) -> bool:
        """Every required word element of ``r`` has a word in ``words``."""
        return all(not words.isdisjoint(req) for req in self._required_of[id(r)])

    def _first(self, t: Token) -> frozenset[int]:
        key = (t.low, t.cap)
        found = self._cache.get(key)
        if found is None:
            ids = set(self._by_word.get(t.low, ())) | set(self._any)
            if t.cap:
                ids |= set(self._cap)
            found = frozenset(ids)
            self._cache[key] = found
        return found

    def _candidates(self, clause: Sequence[Token], start: int) -> list[Rule]:
        """The rules that can match ``clause`` at ``start``: the right first word, and every
        required word present in the clause."""
        words = self._required_words.intersection(
            t.low if t.kind == "word" else _KIND_WORD.get(t.kind, t.low) for t in clause[start:]
        )
        first = clause[start]
        # Only the clause's required words decide the candidates, and chat repeats few of
        # them, so the answer is cached by (first word, those words).
        key = (first.low, first.cap, words)
        found = self._candidate_cache.get(key)
        if found is None:
            keyed = set(self._keyless)
            for w in self._key_words.intersection(words):
                keyed |= self._by_key[w]
            chosen: list[Rule] = []
            for n in sorted(keyed & self._first(first)):
                for req in self._required[n]:
                    if words.isdisjoint(req):
                        break
                else:
                    chosen.append(self.rules[n])
            found = tuple(chosen)
            if len(self._candidate_cache) >= _CACHE_SIZE:
                self._candidate_cache.clear()
            self._candidate_cache[key] = found
        return list(found)

    def statements(self, message: str, at: datetime, turn_id: str = "") -> list[Statement]:
        """Every fact of ``message`` (said at ``at``), in the order said, before corrections."""
        out: list[Statement] = []
        for _, per_clause in self.parse(message, at, turn_id):
            for found in per_clause:
                out.extend(s for s in found if s not in out)
        return out

    def parse(
        self, message: str, at: datetime, turn_id: str = ""
    ) -> list[tuple[Sentence, list[list[Statement]]]]:
        """Each sentence of ``message`` with the statements of each of its clauses (a
        question's clauses have none)."""
        parsed: list[tuple[Sentence, list[list[Statement]]]] = []
        pending: list[tuple[list[Statement], str, list[Statement]]] = []
        for sentence in sentences(message):
            per_clause: list[list[Statement]] = []
            parsed.append((sentence, per_clause))
            if (
                self._trigger is not None and sentence.words.isdisjoint(self._trigger)
            ) or _is_question(sentence):
                per_clause.extend([] for _ in sentence.clauses)
                continue
            # a plan or condition anywhere in the clause ("moving to Leeds would be a dream")
            # or before it in the sentence ("if I get the job, I'm moving to Berlin")
            hypothetical = False
            maybe_hypothetical = _maybe_hypothetical(sentence)
            scan_words = not sentence.words.isdisjoint(self._scan_words)
            said: Subject | None = None  # the last subject named in this sentence
            for clause in sentence.clauses:
                hypothetical = hypothetical or (maybe_hypothetical and _hypothetical(clause))
                found: list[Statement] = []
                if hypothetical:
                    per_clause.append(found)
                    continue
                start = _skip_lead(clause)
                inherited = said
                said = _named_subject(clause, start, said)
                if start < len(clause):
                    for r in self._candidates(clause, start):
                        m = r.pattern.match(clause, start)
                        if m is None:
                            continue
                        made = _statement(r, m, clause, at, turn_id, inherited)
                        if r.needs is not None:
                            pending.append((found, r.needs, made))
                        else:
                            found.extend(made)
                if scan_words or any(t.cap for t in clause):
                    present = sentence.words
                    for i in range(start, len(clause)):
                        t = clause[i]
                        scans = self._scan_by_word.get(t.low)
                        if t.cap:
                            scans = [*(scans or ()), *self._scan_cap]
                        for r in scans or ():
                            if not self._possible(r, present):
                                continue
                            m = r.pattern.match(clause, i)
                            if m is not None:
                                found.extend(_statement(r, m, clause, at, turn_id))
                per_clause.append(_prune(found) if len(found) > 1 else found)
            _pet_deaths(sentence, per_clause)
            _name_used(per_clause)
        if pending:
            set_attributes = {
                s.attribute
                for _, per in parsed
                for found in per
                for s in found
                if s.operation != END
            }
            said_words = frozenset().union(*(sentence.words for sentence, _ in parsed))
            for found, needs, made in pending:
                if needs in set_attributes or (
                    needs.startswith("@") and not said_words.isdisjoint(CLASSES[needs[1:]])
                ):
                    found.extend(s for s in made if s not in found)
        return parsed


_CACHE_SIZE = 65536
"""Entries of the candidate cache before it is emptied (bounded memory over a long chat)."""

_DEATH = frozenset({"died", "passed", "rip", "buried", "put"})


def _pet_deaths(sentence: Sentence, per_clause: list[list[Statement]]) -> None:
    """ "RIP my hamster Nibbles, he died": a pet named in passing in a sentence that says it
    died is an ending (only when exactly one pet is named, so the death is not misplaced)."""
    if not any(per_clause):
        return
    pets = [
        (c, n)
        for c, found in enumerate(per_clause)
        for n, s in enumerate(found)
        if s.attribute == "pet"
    ]
    if len(pets) != 1 or not any(t.low in _DEATH for t in sentence.tokens):
        return
    c, n = pets[0]
    s = per_clause[c][n]
    if s.operation != END:
        per_clause[c][n] = replace(s, operation=END, text=f"{s.text[:-1]} — it died.")


def _name_used(per_clause: list[list[Statement]]) -> None:
    """ "my name is Oluwaseun but everyone calls me Seun": of two names the user gives
    themselves in one sentence, the later one is the name they go by."""
    names = [
        (c, n)
        for c, found in enumerate(per_clause)
        for n, s in enumerate(found)
        if s.attribute == "name" and s.subject == USER and s.operation != END
    ]
    if len(names) < 2 or len({per_clause[c][n].value for c, n in names}) < 2:
        return
    for c, n in reversed(names[:-1]):
        del per_clause[c][n]


def _named_subject(clause: Sequence[Token], start: int, said: Subject | None) -> Subject | None:
    """The subject this clause names at its start, else the one named before it: "my sister
    moved to Leeds and started at Asda" — the second clause is still about the sister."""
    if start >= len(clause):
        return said
    got = _read_who(clause, start)
    if got is None:
        return said
    end, subject = got
    return subject if end > start and isinstance(subject, Subject) else said


def _required_words(r: Rule) -> list[frozenset[str]]:
    """The word sets a clause must meet for ``r`` to match (required words and closed slots)."""
    out: list[frozenset[str]] = []
    for e in r.pattern.elements:
        if e.optional or e.repeat:
            continue
        if e.words is not None:
            out.append(e.words)
        elif e.reader is not None and e.reader in _SLOT_WORDS:
            out.append(_SLOT_WORDS[e.reader])
    return out


def _prune(found: list[Statement]) -> list[Statement]:
    """Within one clause: an ending nobody named ("none") gives way to a named one of the same
    attribute, a name in passing gives way to the same name's ending ("our dog Rex died"), and
    a place read as both a school and an employer is the school ("I quit Sussex in my final
    year": the school row needed the words of study, the job row did not)."""
    named_ends = {
        (s.subject, s.attribute) for s in found if s.operation == END and s.value != "none"
    }
    ended = {(s.subject, s.attribute, s.value) for s in found if s.operation == END}
    schools = {(s.subject, s.value) for s in found if s.attribute == "school"}
    return [
        s
        for s in found
        if not (s.value == "none" and (s.subject, s.attribute) in named_ends)
        and not (s.operation != END and (s.subject, s.attribute, s.value) in ended)
        and not (s.attribute == "employer" and (s.subject, s.value) in schools)
    ]
