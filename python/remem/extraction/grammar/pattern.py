"""Token patterns with named slots: compiled once, matched at a token position.

The notation, elements separated by spaces::

    {who} @adv* moved|relocated back? to {v:place}

- ``word`` or ``a|b|c`` — one token whose case-folded form is one of the words;
- ``@name`` — one token from the word class ``name`` of :mod:`.lexicon` (``@live|based``
  mixes a class and words);
- a trailing ``?`` makes an element optional, ``*`` lets it repeat (zero or more);
- ``{slot:type}`` — a slot read by the reader of that type (:mod:`.slots`); ``{who}`` is
  ``{who:who}``, the clause's subject;
- ``$`` — the end of the clause (only trailing words such as "now", "lol", "btw" may follow).

Matching is anchored at the given position and backtracks over optional and repeated
elements only (slots are greedy). :func:`first_words` gives the words a pattern can start
with, so a table can index its patterns by first token and try only the plausible ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from remem.errors import InvalidArgumentError
from remem.extraction.grammar.lexicon import CLASSES
from remem.extraction.grammar.slots import READERS, Reader
from remem.extraction.grammar.tokens import Token

__all__ = ["ANY", "CAP", "Element", "Match", "Pattern", "compile_pattern"]

ANY = "\x00any"
"""First-word key of a pattern that may start with any token."""
CAP = "\x00cap"
"""First-word key of a pattern that may start with any capitalised token (a name)."""


@dataclass(frozen=True, slots=True)
class Element:
    words: frozenset[str] | None
    slot: str | None
    reader: Reader | None
    optional: bool
    repeat: bool
    possessive: bool = False
    """A repeat whose next element cannot start with its words: never give tokens back."""


@dataclass(frozen=True, slots=True)
class Match:
    """Where a pattern matched: token span and each slot's (start, end, value)."""

    start: int
    end: int
    slots: dict[str, tuple[int, int, object]]


@dataclass(frozen=True, slots=True)
class Pattern:
    source: str
    elements: tuple[Element, ...]

    def match(self, tokens: Sequence[Token], i: int) -> Match | None:
        """The first match of this pattern starting at token ``i`` (None if none)."""
        slots: dict[str, tuple[int, int, object]] = {}
        end = _match(self.elements, 0, tokens, i, slots)
        if end is None:
            return None
        return Match(i, end, slots)

    def first_words(self) -> frozenset[str]:
        """The case-folded words a match can start with, plus :data:`ANY` / :data:`CAP`."""
        out: set[str] = set()
        for e in self.elements:
            if e.words is not None:
                out |= e.words
            elif e.slot == "$":
                return frozenset(out | {ANY})
            elif e.slot is not None:
                if e.slot == "who" or e.reader in _CAP_READERS:
                    out.add(CAP)
                if e.slot == "who":
                    out |= {"i", "we", "my", "our", "me", CAP}
                    continue  # an elided subject: the next element may start the clause
                if e.reader not in _CAP_READERS:
                    out.add(ANY)
            if not (e.optional or e.repeat):
                return frozenset(out)
        return frozenset(out | {ANY})


_CAP_READERS = (READERS["name"], READERS["names"])


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
        while j >= i:  # longest first, then give tokens back
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


_TRAILERS = frozenset(
    [
        "now",
        "lol",
        "haha",
        "btw",
        "today",
        "already",
        "again",
        "too",
        "though",
        "tho",
        "x",
        "xx",
        "lmao",
        "omg",
        "anyway",
        "yet",
        "fyi",
        "jsyk",
        "ftr",
    ]
)
_END = Element(None, "$", None, False, False)


def _element(part: str, source: str) -> Element:
    if part == "$":
        return _END
    optional = part.endswith("?")
    repeat = part.endswith("*")
    if optional or repeat:
        part = part[:-1]
    if part.startswith("{") and part.endswith("}"):
        name, _, kind = part[1:-1].partition(":")
        kind = kind or name
        reader = READERS.get(kind)
        if reader is None:
            raise InvalidArgumentError(
                f"pattern {source!r}: unknown slot type {kind!r}; use one of {sorted(READERS)}"
            )
        return Element(None, name, reader, optional, repeat)
    words: set[str] = set()
    for alt in part.split("|"):
        if alt.startswith("@"):
            found = CLASSES.get(alt[1:])
            if found is None:
                raise InvalidArgumentError(
                    f"pattern {source!r}: unknown word class {alt!r}; add it to lexicon.CLASSES"
                )
            words |= found
        else:
            words.add(alt)
    return Element(frozenset(words), None, None, optional, repeat)


def compile_pattern(source: str) -> Pattern:
    """Compile the notation of the module docstring; an unknown class or slot type raises
    :class:`~remem.errors.InvalidArgumentError` naming it."""
    elements = [_element(p, source) for p in source.split()]
    if not elements:
        raise InvalidArgumentError("a pattern needs at least one element, got an empty string")
    return Pattern(source, _merge_skips(elements))


def _merge_skips(elements: list[Element]) -> tuple[Element, ...]:
    """Adjacent optional or repeated word elements become one repeat of their union ("@adv*
    @have? @adv* @be? @adv*" skips any of those words in any order): the same matches in
    practice, without backtracking through every split of the skipped words."""
    merged: list[Element] = []
    for e in elements:
        skip = e.words is not None and (e.optional or e.repeat)
        prev = merged[-1] if merged else None
        if skip and prev is not None and prev.words is not None and prev.repeat:
            assert e.words is not None
            merged[-1] = Element(prev.words | e.words, None, None, False, True)
        elif skip and len(e.words or ()) > 1 and e.repeat:
            merged.append(e)
        elif (
            skip
            and prev is not None
            and prev.words is not None
            and prev.optional
            and not prev.repeat
            and e.repeat
        ):
            assert e.words is not None
            merged[-1] = Element(prev.words | e.words, None, None, False, True)
        else:
            merged.append(e)
    out: list[Element] = []
    for n, e in enumerate(merged):
        nxt = merged[n + 1] if n + 1 < len(merged) else None
        if (
            e.repeat
            and e.words is not None
            and nxt is not None
            and nxt.words is not None
            and not (nxt.optional or nxt.repeat)
            and e.words.isdisjoint(nxt.words)
        ):
            e = Element(e.words, None, None, False, True, possessive=True)
        out.append(e)
    return tuple(out)
