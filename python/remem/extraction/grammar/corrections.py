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
from remem.extraction.grammar.tokens import Token, sentences

__all__ = ["apply_corrections"]

_MARKERS = CLASSES["correction"] | frozenset({"actually", "wait", "no"})
_DAY = CLASSES["weekday"] | CLASSES["month"]
_NOT_VALUE = CLASSES["correction"] | CLASSES["discourse"] | frozenset({"i", "not", "actually"})


def _value_runs(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """Spans of value-like tokens (capitalised words, days, numbers, e-mails, phones)."""
    runs: list[tuple[int, int]] = []
    i, n = 0, len(tokens)
    while i < n:
        t = tokens[i]
        ok = (t.cap and t.low not in _NOT_VALUE) or t.low in _DAY or t.kind in ("num", "email", "phone")
        if ok:
            j = i + 1
            while j < n and (tokens[j].cap or tokens[j].kind == "num") and j - i < 3:
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
    if "@" in text:
        return "email"
    if any(ch.isdigit() for ch in text):
        return "number"
    return "name" if text[:1].isupper() else "word"


def apply_corrections(
    message: str, found: list[Statement], history: Sequence[Statement]
) -> list[Statement]:
    """``found`` (the statements of ``message``, in order) with corrections applied; ``history``
    holds the statements said before this message (oldest first)."""
    by_text: dict[str, list[int]] = {}
    for n, s in enumerate(found):
        by_text.setdefault(s.text, []).append(n)
    out = list(found)
    for sentence in sentences(message):
        tokens = sentence.tokens
        lows = [t.low for t in tokens]
        marker = any(low in _MARKERS for low in lows) or "misspoke" in lows
        contrast_old: str | None = None
        new_span: tuple[int, int] | None = None
        for k, low in enumerate(lows):
            if low == "not" and k + 1 < len(tokens):
                runs = [r for r in _value_runs(tokens[k + 1 :]) if r[0] == 0]
                if runs:
                    a, b = runs[0]
                    contrast_old = " ".join(t.text for t in tokens[k + 1 + a : k + 1 + b])
                    others = [
                        r for r in _value_runs(tokens) if not (k + 1 <= r[0] < k + 1 + b)
                    ]
                    if others:
                        new_span = others[0]
                break
        if not marker and contrast_old is None:
            continue
        span_text = " ".join(t.text for t in tokens)
        mine = [
            n
            for n, s in enumerate(out)
            if s.value in span_text or s.value.casefold() in span_text.casefold()
        ]
        earlier = [*history, *out]
        if mine:
            for n in mine:
                s = out[n]
                prior = next(
                    (
                        p
                        for p in reversed(earlier)
                        if p is not s
                        and (p.subject, p.attribute) == (s.subject, s.attribute)
                        and p.value != s.value
                    ),
                    None,
                )
                previous = contrast_old or (prior.value if prior is not None else None)
                if previous is not None and (marker or prior is not None):
                    if previous.casefold() != s.value.casefold():
                        out[n] = replace(s, operation="correct", previous=previous)
            continue
        if new_span is None:
            runs = _value_runs(tokens)
            if not runs or contrast_old is None and not marker:
                continue
            new_span = runs[0]
        new_value = " ".join(t.text for t in tokens[new_span[0] : new_span[1]])
        target = _target(earlier, contrast_old, new_value)
        if target is None:
            continue
        old_word = contrast_old or _same_shape_word(target.value, new_value)
        if old_word is None:
            continue
        value = _swap(target.value, old_word, new_value)
        if value.casefold() == target.value.casefold():
            continue
        text = target.text.replace(target.value, value)
        out.append(replace(target, value=value, text=text, operation="correct", previous=target.value))
    return out


def _target(earlier: Sequence[Statement], old: str | None, new: str) -> Statement | None:
    for p in reversed(earlier):
        if old is not None:
            if old.casefold() in p.value.casefold().split() or old.casefold() == p.value.casefold():
                return p
        elif _shape(p.value) == _shape(new) and _same_shape_word(p.value, new) is not None:
            return p
    return None


def _same_shape_word(value: str, new: str) -> str | None:
    if _shape(new) == "day":
        return next((w for w in value.split() if w.casefold() in _DAY), None)
    if _shape(new) == _shape(value):
        return value
    return None


def _swap(value: str, old: str, new: str) -> str:
    if old.casefold() == value.casefold():
        return new
    return " ".join(new if w.casefold() == old.casefold() else w for w in value.split())
