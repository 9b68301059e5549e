"""The grammar engine: tables of token patterns applied to a message, with the guards.

For each sentence that is not a question, for each clause: leading discourse words ("so",
"lol", "btw", "update:") and a leading time phrase are skipped; the rules whose pattern can
start with the clause's first token are tried there (a first-token index), and the ``scan``
rules at every token. :mod:`.index` passes over a sentence, or a clause, whose words fit no
row's required words — no guard runs on it — and keeps, per clause, only the rows whose
required words it says (filters only: ``tests/extraction/test_fast_paths.py`` checks them
against the unindexed grammar). A match becomes a :class:`Statement` unless a guard drops it:

- **subject** — "my friend moved to Berlin" (someone unnamed, "she", "you") is dropped; "Ana
  moved to Berlin" is a fact about Ana (subject "Ana"), never about the user; a clause
  without a subject of its own is about whoever the sentence named last ("my sister moved to
  Leeds and started at Asda" says nothing of the user);
- **question** — a sentence that ends with "?" or starts like one ("should I quit"), except
  for the rows marked ``presupposed``, the only ones tried on a question ("any tips for a
  vegetarian like me?" takes the diet as given);
- **hypothetical** — a plan, wish or condition before the value in the sentence ("if",
  "would", "I'd", "maybe", "thinking of", "planning" …);
- **negation** — "not", "n't", "never", "no longer" before the value drops the match, or, for
  a row whose ``negated`` is ``"end"``, ends the fact when the clause says it stopped ("no
  longer", "not … anymore/any more/any longer");
- **value** — only the words said; a slot reader that finds no value means no fact.

A row with ``needs`` counts only when the same message sets that attribute too ("left Costa,
starting at Greggs"), or, for ``needs="@class"``, says a word of that class ("left the bank,
now freelancing"), or, for ``needs="~pattern"``, says that phrase in any clause ("Met Elena at
a gig, we're an item!"). A word or phrase also counts in ``before``, the message the user sent
just before this one, when the caller passes it (people split a thought over two messages: "My
parrot is being a menace today." / "Pip chewed the remote"). Then :mod:`.corrections` turns
misstatements put right into CORRECT statements (built by :mod:`.statement`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from remem.extraction.grammar.guards import hypothetical as _hypothetical
from remem.extraction.grammar.guards import is_question as _is_question
from remem.extraction.grammar.guards import maybe_hypothetical as _maybe_hypothetical
from remem.extraction.grammar.guards import skip_lead as _skip_lead
from remem.extraction.grammar.index import RuleIndex, SentencePlan
from remem.extraction.grammar.lexicon import CLASSES
from remem.extraction.grammar.rule import END, Rule
from remem.extraction.grammar.statement import USER, Statement
from remem.extraction.grammar.statement import build as _statement
from remem.extraction.grammar.subject import Subject
from remem.extraction.grammar.subject import read_who as _read_who
from remem.extraction.grammar.tables import TABLES
from remem.extraction.grammar.tokens import Sentence, Token, sentences

__all__ = ["Grammar", "Statement"]


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
        self._index = RuleIndex(self.rules)
        # A question is tried against its own index of the presupposed rows only, so a question
        # without their words is passed over as fast as before.
        self._asked = RuleIndex(tuple(r for r in self.rules if r.presupposed))

    def statements(
        self, message: str, at: datetime, turn_id: str = "", before: str = ""
    ) -> list[Statement]:
        """Every fact of ``message`` (said at ``at``; ``before``: the user's message just
        before it, see the module docstring), in the order said, before corrections."""
        out: list[Statement] = []
        for _, per_clause in self.parse(message, at, turn_id, before):
            for found in per_clause:
                out.extend(s for s in found if s not in out)
        return out

    def parse(
        self,
        message: str,
        at: datetime,
        turn_id: str = "",
        before: str = "",
        said: Sequence[Sentence] | None = None,
    ) -> list[tuple[Sentence, list[list[Statement]]]]:
        """Each sentence of ``message`` with the statements of each of its clauses (a
        question's clauses have none); ``before`` only answers the rows' ``needs``; ``said``:
        ``sentences(message)`` when the caller has it already."""
        parsed: list[tuple[Sentence, list[list[Statement]]]] = []
        pending: list[tuple[list[Statement], Rule, list[Statement]]] = []
        index = self._index
        for sentence in sentences(message) if said is None else said:
            per_clause: list[list[Statement]] = []
            parsed.append((sentence, per_clause))
            tried = self._asked if _is_question(sentence) else index
            plan = tried.plan(sentence)
            if plan is None:
                per_clause.extend([] for _ in sentence.clauses)
                continue
            self._clauses(sentence, plan, at, turn_id, per_clause, pending, tried)
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
            said = [sentence for sentence, _ in parsed]
            if before:
                said.extend(sentences(before))
            said_words = frozenset().union(*(sentence.words for sentence in said))
            for found, r, made in pending:
                if _needs_met(r, set_attributes, said_words, said):
                    found.extend(s for s in made if s not in found)
        return parsed

    def _clauses(
        self,
        sentence: Sentence,
        plan: SentencePlan,
        at: datetime,
        turn_id: str,
        per_clause: list[list[Statement]],
        pending: list[tuple[list[Statement], Rule, list[Statement]]],
        index: RuleIndex,
    ) -> None:
        """The statements of each clause of a sentence that can hold some, by the rules of
        ``index`` (of a question: only the ``presupposed`` rows').

        A clause that can hold none is passed over, but what it says still counts for the
        clauses after it (a plan or condition, the subject it names): those are worked out
        in order, only when a later clause needs them."""
        clauses = sentence.clauses
        whole = len(clauses) == 1
        maybe_hypothetical = _maybe_hypothetical(sentence)
        hypothetical = False  # a plan or condition so far in the sentence
        said: Subject | None = None  # the last subject named so far in this sentence
        settled = 0  # clauses[:settled] are folded into ``hypothetical`` and ``said``
        start = 0
        inherited: Subject | None = None
        for k, clause in enumerate(clauses):
            found: list[Statement] = []
            if not index.has_work(plan, clause, whole):
                per_clause.append(found)
                continue
            # a plan or condition anywhere in the clause ("moving to Leeds would be a dream")
            # or before it in the sentence ("if I get the job, I'm moving to Berlin")
            while settled <= k and not hypothetical:
                before = clauses[settled]
                hypothetical = maybe_hypothetical and _hypothetical(before)
                if hypothetical:
                    break
                start = _skip_lead(before)
                inherited = said
                said = _named_subject(before, start, said)
                settled += 1
            if hypothetical:
                per_clause.append(found)
                per_clause.extend([] for _ in clauses[k + 1 :])
                return
            if start < len(clause):
                for r in index.candidates(plan, clause, start, whole):
                    m = r.pattern.match(clause, start)
                    if m is None:
                        continue
                    made = _statement(r, m, clause, at, turn_id, inherited)
                    if r.needs is not None:
                        pending.append((found, r, made))
                    else:
                        found.extend(made)
            by_word, cap = plan.scan_by_word, plan.scan_cap
            if by_word or cap:
                for i in range(start, len(clause)):
                    t = clause[i]
                    scans = by_word.get(t.low, ())
                    if t.cap and cap:
                        scans = (*scans, *cap)
                    for r in scans:
                        m = r.pattern.match(clause, i)
                        if m is None:
                            continue
                        made = _statement(r, m, clause, at, turn_id)
                        if r.needs is not None:
                            pending.append((found, r, made))
                        else:
                            found.extend(made)
            per_clause.append(_prune(found) if len(found) > 1 else found)


def _needs_met(
    r: Rule,
    set_attributes: set[str],
    said_words: frozenset[str],
    said: list[Sentence],
) -> bool:
    """Whether the message (with ``said``, its sentences and those of the message before it,
    and their words) says what row ``r`` needs (see :attr:`Rule.needs`)."""
    needs = r.needs
    if needs is None or needs in set_attributes:
        return needs is not None
    if needs.startswith("@"):
        return not said_words.isdisjoint(CLASSES[needs[1:]])
    phrase = r.needs_phrase
    if phrase is None:
        return False
    return any(
        phrase.match(clause, i) is not None
        for sentence in said
        for clause in sentence.clauses
        for i in range(len(clause))
    )


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
