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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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


Slots = dict[str, tuple[int, int, object]]
Step = Callable[[Sequence[Token], int, Slots], "int | None"]
"""The compiled rest of a pattern: where a match from token ``i`` ends (slots filled), or None."""


@dataclass(frozen=True, slots=True)
class Pattern:
    """A compiled pattern: ``elements`` as written (merged skips), ``run`` the same elements
    compiled to one function per element (see :func:`_compile`)."""

    source: str
    elements: tuple[Element, ...]
    run: Step = field(compare=False, repr=False)

    def match(self, tokens: Sequence[Token], i: int) -> Match | None:
        """The first match of this pattern starting at token ``i`` (None if none)."""
        slots: Slots = {}
        end = self.run(tokens, i, slots)
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


def _done(tokens: Sequence[Token], i: int, slots: Slots) -> int | None:
    return i


def _end_step() -> Step:
    """``$``: the clause ends here (only trailing words follow); what comes after is ignored."""

    def step(tokens: Sequence[Token], i: int, slots: Slots) -> int | None:
        for t in tokens[i:]:
            if t.low not in _TRAILERS and t.kind != "punct":
                return None
        return i

    return step


def _reader_step(reader: Reader, slot: str, optional: bool, then: Step) -> Step:
    """A slot: the reader's tokens (greedy, never given back); an optional slot the reader
    finds nothing for is skipped."""

    def step(tokens: Sequence[Token], i: int, slots: Slots) -> int | None:
        got = reader(tokens, i)
        if got is None:
            return then(tokens, i, slots) if optional else None
        j, value = got
        slots[slot] = (i, j, value)
        end = then(tokens, j, slots)
        if end is None:
            del slots[slot]
        return end

    return step


def _repeat_step(words: frozenset[str], possessive: bool, then: Step) -> Step:
    """Zero or more of ``words``: the longest run first, then tokens given back one by one
    (a possessive run gives none back)."""

    def step(tokens: Sequence[Token], i: int, slots: Slots) -> int | None:
        j, n = i, len(tokens)
        while j < n and tokens[j].low in words:
            j += 1
        if possessive:
            return then(tokens, j, slots)
        while j >= i:
            end = then(tokens, j, slots)
            if end is not None:
                return end
            j -= 1
        return None

    return step


def _word_step(words: frozenset[str], optional: bool, then: Step) -> Step:
    """One of ``words``; an optional word is tried present, then absent."""
    if not optional:

        def required(tokens: Sequence[Token], i: int, slots: Slots) -> int | None:
            if i < len(tokens) and tokens[i].low in words:
                return then(tokens, i + 1, slots)
            return None

        return required

    def step(tokens: Sequence[Token], i: int, slots: Slots) -> int | None:
        if i < len(tokens) and tokens[i].low in words:
            end = then(tokens, i + 1, slots)
            if end is not None:
                return end
        return then(tokens, i, slots)

    return step


def _compile(elements: tuple[Element, ...]) -> Step:
    """The elements as a chain of functions, last first: each element's function calls the
    next one's, so a match walks the pattern without interpreting it (same backtracking as
    the notation says: over optional and repeated words only)."""
    run: Step = _done
    for e in reversed(elements):
        if e.slot == "$":
            run = _end_step()
        elif e.reader is not None:
            assert e.slot is not None
            run = _reader_step(e.reader, e.slot, e.optional, run)
        elif e.repeat:
            assert e.words is not None
            run = _repeat_step(e.words, e.possessive, run)
        else:
            assert e.words is not None
            run = _word_step(e.words, e.optional, run)
    return run


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
    merged = _merge_skips(elements)
    return Pattern(source, merged, _compile(merged))


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
