"""Independent pure-Python tiktoken: pre-tokenizer ports and the lowest-rank-merge BPE loop.

Used only by :func:`remem.reference.tokens.count_tokens` to cross-check the native counts. The
pre-tokenizers are hand-written ports of tiktoken's regexes over :mod:`unicodedata` categories
(``\\s`` is Unicode White_Space); the vocabularies are the ``.tiktoken.gz`` files shipped in the
``bpe-openai`` crate, read from ``$REMEM_TIKTOKEN_DIR`` or the local Cargo registry.
"""

from __future__ import annotations

import base64
import functools
import glob
import gzip
import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

from remem.errors import UnknownEncodingError

_WHITE_SPACE = frozenset(
    [*map(chr, range(0x09, 0x0E)), " ", "\x85", "\xa0", "\u1680", "\u2028", "\u2029"]
    + [chr(c) for c in range(0x2000, 0x200B)]
    + ["\u202f", "\u205f", "\u3000"]
)
_NEWLINES = frozenset("\r\n")


@functools.lru_cache(maxsize=4096)
def _cat(ch: str) -> str:
    return unicodedata.category(ch)


def _is_l(ch: str) -> bool:
    return _cat(ch)[0] == "L"


def _is_n(ch: str) -> bool:
    return _cat(ch)[0] == "N"


def _is_upperish(ch: str) -> bool:  # [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
    c = _cat(ch)
    return c in ("Lu", "Lt", "Lm", "Lo") or c[0] == "M"


def _is_lowerish(ch: str) -> bool:  # [\p{Ll}\p{Lm}\p{Lo}\p{M}]
    c = _cat(ch)
    return c in ("Ll", "Lm", "Lo") or c[0] == "M"


def _is_prefix(ch: str) -> bool:  # [^\r\n\p{L}\p{N}]
    return ch not in _NEWLINES and not _is_l(ch) and not _is_n(ch)


def _is_punct(ch: str) -> bool:  # [^\s\p{L}\p{N}]
    return ch not in _WHITE_SPACE and not _is_l(ch) and not _is_n(ch)


def _contraction(text: str, k: int) -> int:
    """Length of ``(?i:'s|'t|'re|'ve|'m|'ll|'d)`` at ``k``, or 0."""
    if text[k : k + 1] != "'":
        return 0
    one = text[k + 1 : k + 2]
    if one and (one.lower() in "stmd" or one == "\u017f"):  # U+017F folds to 's'
        return 2
    two = text[k + 1 : k + 3].lower()
    return 3 if two in ("re", "ve", "ll") else 0


def _run(text: str, i: int, pred: Callable[[str], bool]) -> int:
    n = len(text)
    while i < n and pred(text[i]):
        i += 1
    return i


def _whitespace(text: str, i: int) -> int:
    """The three whitespace alternatives shared by both encodings (``text[i]`` is whitespace)."""
    n = len(text)
    w = _run(text, i, lambda c: c in _WHITE_SPACE)
    last_nl = max((p for p in range(i, w) if text[p] in _NEWLINES), default=-1)
    if last_nl >= 0:  # \s*[\r\n]+
        return last_nl + 1
    if w == n or w - i == 1:  # \s+(?!\S) at the end, or \s+ of one char
        return w
    return w - 1  # \s+(?!\S) leaves the last space to the next piece


def _upper_lower(text: str, s: int, n: int) -> int | None:
    """``[U]*[W]+`` at ``s`` (U upper-ish, W lower-ish), with the regex's backtracking."""
    j = _run(text, s, _is_upperish)
    if j < n and _is_lowerish(text[j]):
        return _run(text, j, _is_lowerish)
    # U*W+ backtracks to the last char of the U run that is also lower-ish (Lm, Lo or a mark).
    return next((u + 1 for u in range(j - 1, s - 1, -1) if _is_lowerish(text[u])), None)


def _upper_then_lower(text: str, s: int, n: int) -> int | None:
    """``[U]+[W]*`` at ``s``."""
    if s >= n or not _is_upperish(text[s]):
        return None
    return _run(text, _run(text, s, _is_upperish), _is_lowerish)


def _o200k_word(text: str, i: int, n: int) -> int | None:
    """The two word alternatives in the regex's order: each tries its optional prefix first.

    The order matters only when ``text[i]`` is a combining mark (a prefix char that is also U
    and W): ``"\u0301AB"`` splits as ``["\u0301", "AB"]``.
    """
    pre = _is_prefix(text[i])
    for alt in (_upper_lower, _upper_then_lower):
        if pre:
            end = alt(text, i + 1, n)
            if end is not None:
                return end
        end = alt(text, i, n)
        if end is not None:
            return end
    return None


def split_o200k(text: str) -> list[str]:
    """Pieces of o200k_base's pre-tokenizer."""
    n, i, out = len(text), 0, []
    while i < n:
        end = _o200k_word(text, i, n)
        if end is not None:
            end += _contraction(text, end)
        elif _is_n(text[i]):
            end = _run(text, i, _is_n)
            end = min(end, i + 3)
        else:
            j = i + 1 if text[i] == " " and i + 1 < n and _is_punct(text[i + 1]) else i
            if _is_punct(text[j]):
                end = _run(text, _run(text, j, _is_punct), lambda c: c in "\r\n/")
            else:
                end = _whitespace(text, i)
        out.append(text[i:end])
        i = end
    return out


def split_cl100k(text: str) -> list[str]:
    """Pieces of cl100k_base's pre-tokenizer."""
    n, i, out = len(text), 0, []
    while i < n:
        end = i + _contraction(text, i)
        if end > i:
            pass
        elif _is_prefix(text[i]) and i + 1 < n and _is_l(text[i + 1]):
            end = _run(text, i + 1, _is_l)
        elif _is_l(text[i]):
            end = _run(text, i, _is_l)
        elif _is_n(text[i]):
            end = min(_run(text, i, _is_n), i + 3)
        else:
            j = i + 1 if text[i] == " " and i + 1 < n and _is_punct(text[i + 1]) else i
            if _is_punct(text[j]):
                end = _run(text, _run(text, j, _is_punct), lambda c: c in _NEWLINES)
            else:
                end = _whitespace(text, i)
        out.append(text[i:end])
        i = end
    return out


def _bpe_count(piece: bytes, ranks: dict[bytes, int]) -> int:
    """tiktoken's merge loop: repeatedly merge the adjacent pair of lowest rank."""
    if piece in ranks:
        return 1
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best_rank, best_i = -1, -1
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and (best_rank < 0 or r < best_rank):
                best_rank, best_i = r, i
        if best_i < 0:
            break
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return len(parts)


class Encoding:
    """A loaded vocabulary with its pre-tokenizer."""

    def __init__(self, ranks: dict[bytes, int], split: Callable[[str], list[str]]) -> None:
        self.ranks = ranks
        self.split = split

    def count(self, text: str) -> int:
        return sum(_bpe_count(p.encode("utf-8"), self.ranks) for p in self.split(text))


def _vocab_file(name: str) -> Path:
    dirs = [os.environ.get("REMEM_TIKTOKEN_DIR", "")]
    cargo_home = os.environ.get("CARGO_HOME", str(Path.home() / ".cargo"))
    dirs += sorted(glob.glob(f"{cargo_home}/registry/src/*/bpe-openai-*/data"), reverse=True)
    for d in dirs:
        path = Path(d) / f"{name}.tiktoken.gz"
        if d and path.is_file():
            return path
    raise FileNotFoundError(
        f"{name}.tiktoken.gz not found; set REMEM_TIKTOKEN_DIR to the bpe-openai crate's data dir"
    )


@functools.lru_cache(maxsize=2)
def load_encoding(name: str) -> Encoding:
    """The vocabulary ``name`` ("o200k_base" or "cl100k_base"), read once."""
    splits = {"o200k_base": split_o200k, "cl100k_base": split_cl100k}
    if name not in splits:
        raise UnknownEncodingError(
            f"unknown encoding {name!r}; use one of 'o200k_base', 'cl100k_base', "
            "or estimate_tokens for an unknown model"
        )
    ranks: dict[bytes, int] = {}
    with gzip.open(_vocab_file(name), "rt", encoding="ascii") as fh:
        for line in fh:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return Encoding(ranks, splits[name])
