"""The clause tokeniser: a message becomes sentences, each a list of clauses of tokens.

A token keeps the words as typed (``text``), a case-folded form to match on (``low``) and
whether it starts with a capital letter in any script (``cap``: "Óscar", "Zoë", "Ørjan" and
"Łukasz" are capitalised; the pronoun "I" is not a name and has ``cap`` False). Contractions
are split the way the patterns are written: "I'm" → ``i 'm``, "don't" → ``do n't``, "Sam's"
→ ``sam 's`` — so a possessive never stays on a name — while a name with an apostrophe or a
hyphen ("O'Brien", "Jean-Luc") is one token. Apostrophe-less chat spellings ("im", "ive",
"dont", "cant") are split the same way. E-mail addresses and phone numbers are single tokens
of their own kind.

Sentences end at ``.``, ``!``, ``?``, an ellipsis or a line break; a sentence remembers
whether it was a question (it ended with ``?``). Clauses are cut at ``;``, ``:``, dashes,
brackets and at a comma or a conjunction ("and", "but", "so", "then") that is followed by a
word that starts a new clause ("I", "we", "my", "not", "sorry" …), so "allergic to peanuts,
shellfish and cats" stays one clause while "I moved to Leeds, and my sister lives in York"
is two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import NamedTuple, cast

from remem.extraction.grammar.casing import likely_name

__all__ = ["KIND_WORD", "Sentence", "Token", "restore_names", "sentences", "tokenise"]


class Token(NamedTuple):
    """One word, number, symbol, e-mail address or phone number (a named tuple: the
    tokeniser makes many, and a tuple is the cheapest immutable record)."""

    text: str
    low: str
    cap: bool
    kind: str
    """``word``, ``num``, ``email``, ``phone`` or ``punct``."""


@dataclass(frozen=True, slots=True)
class Sentence:
    """The clauses of one sentence, and whether it was asked as a question."""

    clauses: tuple[tuple[Token, ...], ...]
    question: bool
    tokens: tuple[Token, ...]
    words: frozenset[str] = frozenset()
    """The case-folded words of the sentence (for quick "does it say X at all" checks); a
    number, e-mail or phone token is the pseudo-word ``"\x00num"``, ``"\x00email"`` or
    ``"\x00phone"``."""


_QUOTES = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u02bc": "'", "`": "'"}
)
_EMAIL = r"(?P<email>[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+)|"
_PHONE = r"(?P<phone>\+?\(?\d{2,5}\)?(?:[ .\-]?\d{2,6}){2,5})|"
_REST = (
    r"(?P<word>[^\W\d_]+(?:['\-][^\W\d_]+)*'?)"
    r"|(?P<num>\d+(?:[.,:]\d+)*(?:st|nd|rd|th|am|pm|s)?)"
    r"|(?P<punct>\.\.\.|[^\w\s])"
)
# The e-mail and phone alternatives are costly at every word; most messages have neither.
_TOKEN = {
    (email, phone): re.compile((_EMAIL if email else "") + (_PHONE if phone else "") + _REST)
    for email in (False, True)
    for phone in (False, True)
}
_DIGIT = re.compile(r"\d")
_FIND = {key: re.compile(re.sub(r"\(\?P<\w+>", "(?:", p.pattern)) for key, p in _TOKEN.items()}
"""The same patterns without groups, for ``findall`` (a piece's kind is found afterwards)."""
_PHONE_FULL = re.compile(_PHONE[:-1])
_PIECES: dict[str, tuple[Token, ...]] = {}
"""Pieces of text seen before → their (immutable) tokens; bounded by :data:`_CACHE_SIZE`."""
_CACHE_SIZE = 50_000
_SENTENCE_BREAK = re.compile(r"\n+")
_CONTRACTIONS = {"m": "'m", "ve": "'ve", "ll": "'ll", "re": "'re", "d": "'d", "s": "'s"}
_APOSTROPHE_LESS: dict[str, tuple[str, ...]] = {
    "im": ("i", "'m"),
    "ive": ("i", "'ve"),
    "dont": ("do", "n't"),
    "doesnt": ("does", "n't"),
    "didnt": ("did", "n't"),
    "isnt": ("is", "n't"),
    "arent": ("are", "n't"),
    "wasnt": ("was", "n't"),
    "werent": ("were", "n't"),
    "havent": ("have", "n't"),
    "hasnt": ("has", "n't"),
    "cant": ("can", "n't"),
    "wont": ("will", "n't"),
    "wouldnt": ("would", "n't"),
    "shouldnt": ("should", "n't"),
    "couldnt": ("could", "n't"),
    "youre": ("you", "'re"),
    "theyre": ("they", "'re"),
    "thats": ("that", "'s"),
    "whats": ("what", "'s"),
    "itll": ("it", "'ll"),
}
_NT_BASES = {"ca": "can", "wo": "will", "sha": "shall", "ai": "am"}
_SENTENCE_END = frozenset({".", "!", "?", "...", "…"})
_HARD_BREAK = frozenset({";", "—", "–", "-", "(", ")", "[", "]", '"', "~", "|", "•"})
_SOFT_BREAK = frozenset({",", ":", "and", "but", "so", "then", "plus", "also", "&", "because"})
_CLAUSE_STARTERS = frozenset(
    {
        "i",
        "we",
        "my",
        "our",
        "me",
        "not",
        "sorry",
        "actually",
        "he",
        "she",
        "they",
        "it",
        "it's",
        "that",
        "lol",
        "btw",
        "anyway",
        "oh",
        "also",
        "now",
        "just",
        "gave",
        "starting",
        "started",
        "moved",
        "moving",
        "got",
        "and",
        "but",
        "so",
        "then",
        "which",
        "who",
        "since",
        "though",
        "because",
        "cause",
        "cos",
        "bc",
        "if",
        "when",
        "while",
        "ok",
        "okay",
        "well",
        "wait",
        "no",
        "oops",
        "haha",
        "lmao",
        "tbh",
        "broke",
        "split",
        "quit",
        "left",
        "joined",
        "adopted",
        "switched",
        "handed",
        "went",
        "lost",
        "bought",
        "finally",
        "relocated",
        "single",
        "working",
        "living",
        "studying",
        "everyone",
        "everybody",
        "people",
    }
)


def _word(text: str, kind: str, out: list[Token]) -> None:
    low = text.casefold()
    if kind == "word":
        if "'" not in low and low not in _APOSTROPHE_LESS:
            out.append(Token(text, low, text[:1].isupper() and low != "i", "word"))
            return
        split = _APOSTROPHE_LESS.get(low)
        if split is not None and (low != "im" or text in ("im", "Im")):
            cap = text[:1].isupper()
            for i, part in enumerate(split):
                shown = part.capitalize() if i == 0 and cap else part
                out.append(Token(shown, part, False, "word"))
            return
        if "'" in low:
            head, _, tail = low.rpartition("'")
            if tail == "t" and head.endswith("n"):
                base = head[:-1]
                base = _NT_BASES.get(base, base)
                out.append(Token(text[: len(head) - 1], base, False, "word"))
                out.append(Token("n't", "n't", False, "word"))
                return
            if tail in _CONTRACTIONS and head:
                _word(text[: len(head)], "word", out)
                out.append(Token("'" + text[len(head) + 1 :], _CONTRACTIONS[tail], False, "word"))
                return
            if not tail:  # "James'" — a possessive on a name ending in s
                _word(text[:-1], "word", out)
                out.append(Token("'", "'s", False, "word"))
                return
        cap = text[:1].isupper() and low != "i"
        out.append(Token(text, low, cap, "word"))
        return
    if kind == "phone":
        digits = sum(ch.isdigit() for ch in text)
        if digits < 7:  # "2019 2020" or "3 4" are numbers, not a phone number
            for part in re.findall(r"\d+", text):
                out.append(Token(part, part, False, "num"))
            return
    out.append(Token(text, low, False, kind))


def _kind(piece: str) -> str:
    if "@" in piece:
        return "email"
    first = piece[0]
    if first.isdigit() or first in "+(":
        return "phone" if _PHONE_FULL.fullmatch(piece) else "num"
    if first.isalpha():
        return "word"
    return "punct"


def _tokens_of(piece: str) -> tuple[Token, ...]:
    """The token(s) one matched piece of text becomes (remembered: pieces repeat a lot)."""
    found = _PIECES.get(piece)
    if found is None:
        out: list[Token] = []
        _word(piece, _kind(piece), out)
        found = tuple(out)
        if len(_PIECES) < _CACHE_SIZE:
            _PIECES[piece] = found
    return found


def restore_names(tokens: list[Token]) -> list[Token]:
    """``tokens`` of a message typed without capitals, each likely name marked ``cap`` again
    (its text stays as typed: a reader that takes a name shows it title-cased, "callum" →
    "Callum", while a dish stays "jollof rice"; see :mod:`.casing`)."""
    out = tokens[:]
    for k, t in enumerate(tokens):
        # not after "I'm": "im knackered" describes, it does not introduce ("im dev" is lost)
        if t.kind == "word" and likely_name(t.low) and not (k and tokens[k - 1].low in _AM):
            out[k] = Token(t.text, t.low, True, "word")
    return out


_AM = frozenset({"am", "'m", "m"})


def tokenise(text: str) -> list[Token]:
    """Every token of ``text`` in order (quotes normalised, contractions split; in a message
    without capitals, likely names capitalised: :func:`restore_names`)."""
    out: list[Token] = []
    extend = out.extend
    text = text.translate(_QUOTES)
    pattern = _FIND[("@" in text, _DIGIT.search(text) is not None)]
    pieces = _PIECES
    for piece in pattern.findall(text):
        found = pieces.get(piece)
        extend(found if found is not None else _tokens_of(piece))
    return restore_names(out) if text.islower() else out


_BREAKS = _HARD_BREAK | _SOFT_BREAK
KIND_WORD = {"num": "\x00num", "email": "\x00email", "phone": "\x00phone"}
"""A number, e-mail or phone token stands in a sentence's words as this pseudo-word."""


def _joint_subject(before: list[Token]) -> bool:
    """True when ``before`` is the first half of a subject like "my wife and I"."""
    return 0 < len(before) <= 3 and not any(t.low in ("i", "we", "'m", "is") for t in before)


def _clauses(tokens: list[Token]) -> tuple[tuple[Token, ...], ...]:
    clauses: list[tuple[Token, ...]] = []
    start = 0
    n = len(tokens)
    for i, t in enumerate(tokens):
        cut_here = False
        if t.low in _HARD_BREAK:
            cut_here = True
        elif t.low in _SOFT_BREAK and i + 1 < n:
            nxt = tokens[i + 1].low
            cut_here = nxt in _CLAUSE_STARTERS or (t.low == "," and tokens[i + 1].kind == "punct")
            if (
                cut_here
                and t.low == "and"
                and nxt in ("i", "me")
                and _joint_subject(tokens[start:i])
            ):
                cut_here = False  # "Sam and I split up", "my wife and I moved"
            if cut_here and t.low == "and" and [x.low for x in tokens[start:i]] == ["me"]:
                cut_here = False  # "me and my girlfriend broke up"
            if cut_here and t.low == "," and i - start == 1 and tokens[start].cap:
                cut_here = False  # an appositive: "Bella, our lab, passed away"
        if cut_here:
            if i > start:
                clauses.append(tuple(tokens[start:i]))
            start = i + 1
    if start < n:
        clauses.append(tuple(tokens[start:]))
    return tuple(c for c in clauses if c)


def sentences(text: str) -> list[Sentence]:
    """The sentences of a message, each split into clauses (see the module docstring)."""
    out: list[Sentence] = []
    pieces = _PIECES
    uncased = text.islower()  # no capital anywhere: names are restored (restore_names)
    for line in _SENTENCE_BREAK.split(text.translate(_QUOTES)):
        email, digit = "@" in line, _DIGIT.search(line) is not None
        # only "@", a digit, "+" or "(" start a token that is not a word or a symbol (_kind)
        plain = not (email or digit or "+" in line or "(" in line)
        found = _FIND[(email, digit)]
        split = found.findall(line)
        looked = list(map(pieces.get, split))
        got = (
            [g if g is not None else _tokens_of(p) for g, p in zip(looked, split, strict=True)]
            if None in looked  # pieces not seen before
            else cast("list[tuple[Token, ...]]", looked)
        )
        # A sentence ends at a piece that is a sentence end (its one token is one).
        ends = [k for k, piece in enumerate(split) if piece in _SENTENCE_END]
        ends.append(len(split))
        begin = 0
        for end in ends:
            if end > begin:
                tokens = list(chain.from_iterable(got[begin:end]))
                if uncased:
                    tokens = restore_names(tokens)
                out.append(_sentence(tokens, end < len(split) and split[end] == "?", plain))
            elif end < len(split) and split[end] == "?" and out and not out[-1].question:
                last = out[-1]
                out[-1] = Sentence(last.clauses, True, last.tokens, last.words)
            begin = end + 1
    return out


_LOW = itemgetter(1)


def _sentence(tokens: list[Token], question: bool, plain: bool = False) -> Sentence:
    """One sentence of ``tokens``; ``plain``: the text had no digit and no "@", so every token
    is a word or a symbol (its own form is its word)."""
    words = (
        frozenset(map(_LOW, tokens))
        if plain
        else frozenset(
            [t.low if t.kind == "word" else KIND_WORD.get(t.kind, t.low) for t in tokens]
        )
    )
    whole = tuple(tokens)
    if words.isdisjoint(_BREAKS):  # one clause: nothing to cut at
        return Sentence((whole,), question, whole, words)
    return Sentence(_clauses(tokens), question, whole, words)
