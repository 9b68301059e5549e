"""Sentence pieces of a long text, each to be embedded as an extra vector keyed back to it.

Issue #14's first lever for semantic candidates: a long turn's one vector averages its
sentences, so a question about one of them may not reach it. :func:`split_pieces` cuts a text
longer than ``min_words`` words into its sentences (a sentence shorter than ``min_sentence``
words is joined to the next), each prefixed with the text's ``prefix`` (a LoCoMo turn's
``"Speaker:"``) so the piece keeps who said it. A caller stores each piece as an extra
vector whose metadata names its turn; ranking by the turn's first (best) hit is the max over
its pieces and its whole.

Used by ``benches/locomo_stages.py --pieces N`` only, not by the controller's turn path:
measured on the LoCoMo dev split (README, the semantic-candidates table) no threshold gained
1 R@10 without costing multi-hop, so it is not wired into ``ControllerConfig``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from remem.errors import ConfigError

__all__ = ["PiecesConfig", "split_pieces"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_PREFIX = re.compile(r"^([^\s:]{1,40}):\s+")


@dataclass(frozen=True, slots=True)
class PiecesConfig:
    """Which texts get pieces: longer than ``min_words`` words; pieces of ≥ ``min_sentence``."""

    enabled: bool = False
    min_words: int = 20
    min_sentence: int = 4

    def __post_init__(self) -> None:
        for name in ("min_words", "min_sentence"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"PiecesConfig.{name} must be a positive integer, got {value!r}: "
                    "pass a word count such as 20"
                )


def split_pieces(text: str, config: PiecesConfig) -> list[str]:
    """The sentence pieces of ``text`` (none if it is short or has one sentence)."""
    if not isinstance(text, str):
        raise ConfigError(f"split_pieces needs a str, got {type(text).__name__}: pass the text")
    if len(text.split()) <= config.min_words:
        return []
    match = _PREFIX.match(text)
    prefix, body = (match.group(0), text[match.end() :]) if match else ("", text)
    pieces: list[str] = []
    pending = ""
    for sentence in _SENTENCE_END.split(body.strip()):
        pending = f"{pending} {sentence}".strip()
        if len(pending.split()) >= config.min_sentence:
            pieces.append(pending)
            pending = ""
    if pending:
        if pieces:
            pieces[-1] = f"{pieces[-1]} {pending}"
        else:
            pieces.append(pending)
    if len(pieces) < 2:
        return []  # one sentence: the whole text's vector already is its piece
    return [prefix + piece for piece in pieces]
