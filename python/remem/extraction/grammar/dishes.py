"""Slot reader ``dish``: what someone eats, said without an article.

A dish is a phrase (:func:`~remem.extraction.grammar.phrases.read_phrase`) said bare, as food
is ("ramen", "jollof rice", "tacos"): a phrase that starts with an article or a determiner
("a taxi", "the bus", "my lunch break") is no dish, so "ordered a taxi again" names no food.

    read_dish(tokenize("pho again"), 0)      # (1, "pho")
    read_dish(tokenize("a taxi again"), 0)   # None
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.extraction.grammar.lexicon import words
from remem.extraction.grammar.phrases import read_phrase
from remem.extraction.grammar.tokens import Token

__all__ = ["read_dish"]

_NOT_DISH_START = words(
    "a an the my our your his her their this that these those some any it them lunch dinner "
    "breakfast brunch meeting words"
)


def read_dish(tokens: Sequence[Token], i: int) -> tuple[int, object] | None:
    """A bare phrase at ``i`` (module docstring); None after an article or a determiner."""
    if i >= len(tokens) or tokens[i].low in _NOT_DISH_START:
        return None
    return read_phrase(tokens, i)
