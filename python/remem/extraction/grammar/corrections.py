"""Corrections: a misstatement put right becomes a CORRECT statement that replaces it.

Two shapes, both needing a marker ("sorry", "actually", "I meant", "I misspoke", "typo",
"oops", "wait", "correction", "scratch that") or a contrast ("X, not Y" / "not Y, X"):

1. the sentence states a fact itself ("actually I live in Porto, not Lisbon"): that fact's
   operation becomes ``correct`` and ``previous`` is the value contrasted with it, or the
   earlier value of the same key said in this batch;
2. the sentence only gives the new value ("sorry, Thursday, not Wednesday — I misread the
   invite", "I meant Porto"): the most recent earlier fact (this message or the earlier turns
   the extractor was given) whose value holds the contrasted word — or, without one, whose value
   has the same shape (a day for a day, a name for a name) — is restated with the new word in
   place of the old, as ``correct``.

A correction that points at nothing known is dropped: a value is never invented.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from remem.extraction.grammar.engine import Statement
from remem.extraction.grammar.lexicon import CLASSES
from remem.extraction.grammar.names import shown
from remem.extraction.grammar.tokens import Sentence, Token

__all__ = ["apply_corrections"]

_MIX_UPS = frozenset({"mix", "mixing", "mixed", "muddle", "muddled", "confuse", "confusing"})
"""Owning up to a mix-up marks a contrast as a correction: "I live in Derby, not Leicester, I
always mix them up"."""
_MARKERS = (
    (CLASSES["correction"] - {"mean", "wrong", "mistake"})
    | frozenset({"actually", "wait"})
    | _MIX_UPS
)
_DAY = CLASSES["weekday"] | CLASSES["month"]
_LOWER_VALUES = CLASSES["diet"]
_NOT_VALUE = CLASSES["correction"] | CLASSES["discourse"] | frozenset({"not", "actually"})


_QUICK = _MARKERS | frozenset({"not", "mean", "meant"})


def _is_marker(tokens: Sequence[Token], k: int) -> bool:
    low = tokens[k].low
    if low == "mean" or low == "meant":
        return k > 0 and tokens[k - 1].low == "i"  # "I mean", "I meant" — not "mean people"
    return low in _MARKERS


def _value_like(t: Token) -> bool:
    return (
        (t.cap and t.low not in _NOT_VALUE)
        or t.low in _DAY
        or t.low in _LOWER_VALUES
        or t.kind in ("num", "email", "phone")
    )


def _runs(tokens: Sequence[Token], start: int = 0) -> list[tuple[int, int]]:
    """Spans of value-like tokens (capitalised words, days, diets, numbers …) from ``start``."""
    runs: list[tuple[int, int]] = []
    i, n = start, len(tokens)
    while i < n:
        if _value_like(tokens[i]):
            j = i + 1
            while j < n and j - i < 3 and (tokens[j].cap or tokens[j].kind == "num"):
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    return runs


def _shape(text: str) -> str:
    words = text.casefold().split()
    if any(w in _DAY for w in words):
        return "day"
    if any(w in _LOWER_VALUES for w in words):
        return "diet"
    if "@" in text:
        return "email"
    if any(ch.isdigit() for ch in text):
        return "number"
    return "name" if text[:1].isupper() else "word"


def _same_key(a: Statement, b: Statement) -> bool:
    return (a.subject.casefold(), a.attribute) == (b.subject.casefold(), b.attribute)


def apply_corrections(
    parsed: Sequence[tuple[Sentence, Sequence[Sequence[Statement]]]],
    history: Sequence[Statement],
) -> list[Statement]:
    """The statements of one parsed message (see :meth:`Grammar.parse`) with corrections
    applied; ``history`` holds the statements said before the message (oldest first). A
    misstatement corrected within the message is replaced by its correction."""
    out: list[Statement] = []
    for sentence, per_clause in parsed:
        if sentence.words.isdisjoint(_QUICK):
            for found in per_clause:
                out.extend(s for s in found if s not in out)
            continue
        offsets, pos = [], 0
        for clause in sentence.clauses:
            offsets.append(pos)
            pos += len(clause) + 1
        flat = [t for clause in sentence.clauses for t in clause]
        marker_at = next((k for k in range(len(flat)) if _is_marker(flat, k)), None)
        old: str | None = None
        old_span = (0, 0)
        for k, t in enumerate(flat):
            if t.low == "not" and k + 1 < len(flat) and _value_like(flat[k + 1]):
                a, b = _runs(flat, k + 1)[0]
                # a contrast needs the other value: "Globex not Acme", not "not vegan anymore"
                if any(r[0] < k or r[0] >= b for r in _runs(flat)):
                    old, old_span = " ".join(map(shown, flat[a:b])), (k, b)
                break
        cut = (
            min(x for x in (marker_at, old_span[0] if old else None) if x is not None)
            if (marker_at is not None or old)
            else None
        )
        if cut is None:
            for found in per_clause:
                out.extend(s for s in found if s not in out)
            continue
        # which clause holds the cut: statements before it are what may be corrected
        cut_clause = 0
        running = 0
        for c, clause in enumerate(sentence.clauses):
            if running <= cut < running + len(clause):
                cut_clause = c
                break
            running += len(clause)
        before = [s for found in per_clause[:cut_clause] for s in found]
        after = [s for found in per_clause[cut_clause:] for s in found]
        out.extend(s for s in before if s not in out)
        earlier = [*history, *out]
        if after:
            for s in after:
                if old is not None and s.value.casefold() == old.casefold():
                    continue
                prior = next(
                    (p for p in reversed(earlier) if _same_key(p, s) and p.value != s.value), None
                )
                previous = old or (prior.value if prior is not None else None)
                if previous is not None and (marker_at is not None or prior is not None):
                    out[:] = [p for p in out if not (_same_key(p, s) and p.value == previous)]
                    s = replace(s, operation="correct", previous=previous)
                out.append(s)
            continue
        if old is not None and marker_at is None:
            prior_old = any(p.value.casefold() == old.casefold() for p in history)
            if not prior_old:
                continue  # "I'm from Porto, not Lisbon": a contrast, not a correction
        new_run = next(
            (r for r in _runs(flat, cut) if not (old and old_span[0] <= r[0] < old_span[1])),
            None,
        )
        if new_run is None:
            if before and old is not None:  # "I live in Porto, not Lisbon, sorry"
                s = before[-1]
                out[out.index(s)] = replace(s, operation="correct", previous=old)
            continue
        new = " ".join(map(shown, flat[new_run[0] : new_run[1]]))
        target = _target([*history, *out], old, new)
        if target is None:
            continue
        word = old if old is not None else _same_shape_word(target.value, new)
        if word is None:
            continue
        value = _swap(target.value, word, new)
        if value.casefold() == target.value.casefold():
            continue
        fixed = replace(
            target,
            value=value,
            text=target.text.replace(target.value, value),
            operation="correct",
            previous=target.value,
        )
        if target in out:
            out.remove(target)
        out.append(fixed)
    return out


def _target(earlier: Sequence[Statement], old: str | None, new: str) -> Statement | None:
    for p in reversed(earlier):
        if old is not None:
            words = p.value.casefold().split()
            if old.casefold() in words or old.casefold() == p.value.casefold():
                return p
        elif _same_shape_word(p.value, new) is not None:
            return p
    return None


def _same_shape_word(value: str, new: str) -> str | None:
    shape = _shape(new)
    if shape == "day":
        return next((w for w in value.split() if w.casefold() in _DAY), None)
    if shape == _shape(value):
        return value
    return None


def _swap(value: str, old: str, new: str) -> str:
    if old.casefold() == value.casefold():
        return new
    return " ".join(new if w.casefold() == old.casefold() else w for w in value.split())
