"""Vocabulary: an append-only mapping from terms to dense integer ids."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray


class Vocabulary:
    """Terms numbered 0, 1, 2 … in order of first sight; ids never change.

    Writers (:meth:`ids`) must be serialised by the caller; readers (:meth:`get`) may run at
    any time, from any thread: a term added concurrently is either absent or carries an id at
    least the reader's snapshot size, which readers treat as absent.
    """

    def __init__(self, terms: Sequence[str] = ()) -> None:
        """Start from ``terms`` (distinct; term ``i`` gets id ``i``), e.g. a saved :meth:`terms`."""
        # A defaultdict whose factory numbers new keys: the C-level __getitem__ maps a whole
        # token stream to ids without a Python call per token.
        self._ids: defaultdict[str, int] = defaultdict(itertools.count(len(terms)).__next__)
        self._ids.update(zip(terms, range(len(terms)), strict=True))
        if len(self._ids) != len(terms):
            raise ValueError("the saved vocabulary repeats a term")

    def __len__(self) -> int:
        return len(self._ids)

    def terms(self) -> list[str]:
        """Every term, in id order (callers serialise with writers)."""
        return list(self._ids)

    def get(self, term: str) -> int | None:
        """The id of ``term``, or None if it was never added."""
        return self._ids.get(term)

    def ids(self, tokens: Iterable[str], count: int) -> NDArray[np.int64]:
        """The id of each of the ``count`` tokens, adding unseen terms (callers serialise)."""
        return np.fromiter(map(self._ids.__getitem__, tokens), dtype=np.int64, count=count)
