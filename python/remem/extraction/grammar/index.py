"""RuleIndex: which rows of the tables can match a sentence, a clause and a clause's start.

A row can match only where every word it requires is said: the words of each required (neither
optional nor repeated) word element of its pattern, and the closed vocabulary of a slot such as
``{v:diet}`` (:data:`SLOT_WORDS`). The index answers, without trying a pattern:

- :meth:`RuleIndex.plan` — for a sentence, the plain rows whose required words it says (found
  through each row's rarest required element) and the ``scan`` rows it may hold; ``None`` when
  it holds neither, so the sentence is skipped before any guard runs;
- :meth:`RuleIndex.has_work` — whether a clause of that sentence says the words of any of them;
- :meth:`RuleIndex.candidates` — the plain rows that can match a clause at its start: the
  right first word (a first-word index) and every required word in the rest of the clause,
  in table order.

These are filters, never decisions: a row they keep is matched as before, a row they drop could
not have matched (``tests/extraction/test_fast_paths.py`` runs the unindexed grammar beside it).

    index = RuleIndex(rules)
    plan = index.plan(sentence)
    if plan is not None and index.has_work(plan, clause):
        for rule in index.candidates(clause, start): ...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from remem.extraction.grammar.lexicon import CLASSES
from remem.extraction.grammar.pattern import ANY, CAP
from remem.extraction.grammar.rule import Rule
from remem.extraction.grammar.slots import ANIMAL_FIRST_WORDS, READERS
from remem.extraction.grammar.tokens import KIND_WORD, Sentence, Token

__all__ = ["SLOT_WORDS", "RuleIndex", "SentencePlan", "required_words"]

SLOT_WORDS = {
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
    {"to", "in", "a", "an", "the", "my", "our", "is", "'s", "at", "for", "on", "of", "i", "we"}
    | {"and", "with", "'m", "am", "are", "'ve", "have", "up", "it"}
)
"""Words too frequent to index a rule by (a rule is indexed by its rarest required word)."""
_CACHE_SIZE = 65536
"""Entries of the candidate cache before it is emptied (bounded memory over a long chat)."""


def required_words(r: Rule) -> list[frozenset[str]]:
    """The word sets a clause must meet for ``r`` to match (required words and closed slots)."""
    out: list[frozenset[str]] = []
    for e in r.pattern.elements:
        if e.optional or e.repeat:
            continue
        if e.words is not None:
            out.append(e.words)
        elif e.reader is not None and e.reader in SLOT_WORDS:
            out.append(SLOT_WORDS[e.reader])
    return out


_PSEUDO = frozenset(KIND_WORD.values())


def _words(relevant: frozenset[str], tokens: Sequence[Token]) -> frozenset[str]:
    """The words of ``relevant`` that ``tokens`` say (a number, e-mail or phone token says
    its pseudo-word, see :data:`~.tokens.KIND_WORD`)."""
    if relevant.isdisjoint(_PSEUDO):
        # a number, e-mail or phone token's own form is never a word of a sentence
        return relevant.intersection([t.low for t in tokens])
    return relevant.intersection(
        [t.low if t.kind == "word" else KIND_WORD.get(t.kind, t.low) for t in tokens]
    )


@dataclass(frozen=True, slots=True)
class SentencePlan:
    """What one sentence can hold: ``plain`` (a bit per plain row whose required words it
    says), ``relevant`` (the required words it says), and the ``scan`` rows it may hold, by
    first word and for a capitalised token."""

    plain: int
    relevant: frozenset[str]
    scan_by_word: dict[str, tuple[Rule, ...]]
    scan_cap: tuple[Rule, ...]


class RuleIndex:
    """The rows of the tables, indexed by the words a match needs (see the module docstring).

    Required word sets are numbered; a set of words *meets* the sets holding one of its words
    (a bit mask), and a row can match where the words meet all of its sets."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self._required: list[tuple[frozenset[str], ...]] = [
            tuple(required_words(r)) for r in self.rules
        ]
        self._required_words: frozenset[str] = frozenset(
            w for required in self._required for ws in required for w in ws
        )
        sets: dict[frozenset[str], int] = {}
        for required in self._required:
            for ws in required:
                sets.setdefault(ws, len(sets))
        self._meets_of: dict[str, int] = {}
        for ws, bit in sets.items():
            for w in ws:
                self._meets_of[w] = self._meets_of.get(w, 0) | 1 << bit
        self._needs: list[int] = [sum({1 << sets[ws] for ws in req}) for req in self._required]
        self._by_word: dict[str, set[int]] = {}
        any_first: set[int] = set()
        cap_first: set[int] = set()
        self._scans: list[tuple[Rule, int]] = []
        self._scan_by_word: dict[str, list[Rule]] = {}
        self._scan_cap: list[Rule] = []
        self._by_key: dict[str, list[int]] = {}
        self._keyless: list[int] = []
        for n, r in enumerate(self.rules):
            required = self._required[n]
            if r.scan:
                self._scans.append((r, self._needs[n]))
                for w in r.pattern.first_words():
                    if w == CAP:
                        self._scan_cap.append(r)
                    else:
                        self._scan_by_word.setdefault(w, []).append(r)
                continue
            for w in r.pattern.first_words():
                if w == ANY:
                    any_first.add(n)
                elif w == CAP:
                    cap_first.add(n)
                else:
                    self._by_word.setdefault(w, set()).add(n)
            if required:
                for w in min(required, key=lambda ws: (len(ws & _COMMON), len(ws))):
                    self._by_key.setdefault(w, []).append(n)
            else:
                self._keyless.append(n)
        self._any_first = frozenset(any_first)
        self._cap_first = frozenset(cap_first)
        self._key_words = frozenset(self._by_key)
        self._first_cache: dict[tuple[str, bool], frozenset[int]] = {}
        self._plan_cache: dict[frozenset[str], SentencePlan | None] = {}
        self._candidate_cache: dict[tuple[str, bool, frozenset[str]], tuple[Rule, ...]] = {}

    def _met(self, words: frozenset[str]) -> int:
        met = 0
        meets_of = self._meets_of
        for w in words:
            met |= meets_of[w]
        return met

    def _possible(self, words: frozenset[str], met: int) -> int:
        """A bit for each plain row that ``words`` can key and whose every required set
        ``met`` holds."""
        needs = self._needs
        out = 0
        for n in self._keyless:
            if needs[n] & ~met == 0:
                out |= 1 << n
        by_key = self._by_key
        for w in self._key_words.intersection(words):
            for n in by_key[w]:
                if needs[n] & ~met == 0:
                    out |= 1 << n
        return out

    def _within(self, rows: int, met: int) -> bool:
        """Whether a row of ``rows`` has every required set in ``met``."""
        needs = self._needs
        while rows:
            low = rows & -rows
            if needs[low.bit_length() - 1] & ~met == 0:
                return True
            rows ^= low
        return False

    def plan(self, sentence: Sentence) -> SentencePlan | None:
        """What ``sentence`` can hold, or None when no row can match anywhere in it."""
        relevant = self._required_words.intersection(sentence.words)
        # The plan depends only on the required words said, and chat repeats few of them.
        cache = self._plan_cache
        if relevant in cache:
            return cache[relevant]
        found = self._plan(relevant)
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cache[relevant] = found
        return found

    def _plan(self, relevant: frozenset[str]) -> SentencePlan | None:
        met = self._met(relevant)
        plain = self._possible(relevant, met)
        scans = tuple(n for n, (_, need) in enumerate(self._scans) if need & ~met == 0)
        if not scans:
            return None if not plain else SentencePlan(plain, relevant, {}, ())
        kept = {id(self._scans[n][0]) for n in scans}
        by_word = {
            w: chosen
            for w, rs in self._scan_by_word.items()
            if (chosen := tuple(r for r in rs if id(r) in kept))
        }
        cap = tuple(r for r in self._scan_cap if id(r) in kept)
        return SentencePlan(plain, relevant, by_word, cap)

    def has_work(self, plan: SentencePlan, clause: Sequence[Token], whole: bool) -> bool:
        """Whether ``clause`` of the planned sentence can hold a statement: it says the required
        words of a plain row, or the sentence may hold a scan row. ``whole``: the clause is the
        whole sentence (its words are the sentence's)."""
        if plan.scan_by_word or plan.scan_cap:
            return True
        if not plan.plain:
            return False
        if whole:
            return True
        return self._within(plan.plain, self._met(_words(plan.relevant, clause)))

    def _first(self, t: Token) -> frozenset[int]:
        key = (t.low, t.cap)
        found = self._first_cache.get(key)
        if found is None:
            ids = set(self._by_word.get(t.low, ())) | self._any_first
            if t.cap:
                ids |= self._cap_first
            found = frozenset(ids)
            self._first_cache[key] = found
        return found

    def candidates(
        self, plan: SentencePlan, clause: Sequence[Token], start: int, whole: bool
    ) -> tuple[Rule, ...]:
        """The plain rows that can match ``clause`` at ``start``: the right first word, and
        every required word present in the clause from there (table order). ``whole``: the
        clause is the whole sentence."""
        if not plan.plain:
            return ()
        words = (
            plan.relevant
            if whole and start == 0
            else _words(plan.relevant, clause[start:] if start else clause)
        )
        first = clause[start]
        # Only the clause's required words decide the candidates, and chat repeats few of
        # them, so the answer is cached by (first word, those words).
        key = (first.low, first.cap, words)
        found = self._candidate_cache.get(key)
        if found is None:
            possible = self._possible(words, self._met(words))
            rules = self.rules
            found = tuple(rules[n] for n in sorted(self._first(first)) if possible >> n & 1)
            if len(self._candidate_cache) >= _CACHE_SIZE:
                self._candidate_cache.clear()
            self._candidate_cache[key] = found
        return found
