"""TermIndex: an append-only in-memory bm25 index, searched from many threads while it grows."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from remem.errors import InvalidArgumentError
from remem.kernels.bm25 import Hits
from remem.stores.term_index.segment import Segment
from remem.stores.term_index.snapshot import IndexSnapshot
from remem.stores.term_index.vocabulary import Vocabulary

DEFAULT_MERGE_FRACTION = 0.125
"""The tail merges into the main segment once it holds more than this fraction of it."""
DEFAULT_MIN_TAIL_DOCS = 2_048
"""… and more than this many documents (a small main segment absorbs nothing one by one)."""
MAX_DOCS = 2**31 - 1
"""Document numbers are int32 in the postings."""
_CHUNK_DOCS = 4_096


class TermIndex:
    """Documents (lists of tokens) numbered 0, 1, 2 … in append order, ranked by bm25 exactly as
    SQLite FTS5 ranks them (:class:`~remem.stores.term_index.snapshot.IndexSnapshot`).

    Layout: a large **main** segment and a small **tail**. :meth:`append` builds a segment of the
    new documents and concatenates it to the tail — cost O(tail + new), not O(index) — and once
    the tail outgrows ``merge_fraction`` of the main segment (and ``min_tail_docs``), merges it
    into the main one: O(index), amortised O(1/merge_fraction) per document. Appends serialise on
    a lock; searches take the latest published :meth:`snapshot` and never wait.

    Example::

        >>> index = TermIndex()
        >>> _ = index.append([["spare", "key"], ["blue", "key", "key"], ["garden"]])
        >>> docs, scores = index.search(["key"], k=1)
        >>> docs.tolist()
        [1]
    """

    def __init__(
        self,
        *,
        merge_fraction: float = DEFAULT_MERGE_FRACTION,
        min_tail_docs: int = DEFAULT_MIN_TAIL_DOCS,
    ) -> None:
        if not 0 < merge_fraction <= 1:
            raise InvalidArgumentError(
                f"merge_fraction is {merge_fraction}; pass a fraction in (0, 1]"
            )
        self._merge_fraction = merge_fraction
        self._min_tail_docs = min_tail_docs
        self._lock = threading.Lock()
        self._vocabulary = Vocabulary()
        self._main = Segment.empty()
        self._tail = Segment.empty()
        self._snapshot = IndexSnapshot((), self._vocabulary, 0, 0)

    def __len__(self) -> int:
        return self._snapshot.n_docs

    def parts(self) -> tuple[list[str], Segment, Segment]:
        """(the vocabulary's terms in id order, the main segment, the tail), consistent with
        :meth:`snapshot` — what :meth:`restore` takes back (:mod:`.arrays` saves them)."""
        with self._lock:
            return self._vocabulary.terms(), self._main, self._tail

    @classmethod
    def restore(
        cls,
        terms: Sequence[str],
        main: Segment,
        tail: Segment,
        *,
        merge_fraction: float = DEFAULT_MERGE_FRACTION,
        min_tail_docs: int = DEFAULT_MIN_TAIL_DOCS,
    ) -> TermIndex:
        """The index :meth:`parts` described (segments over ids below ``len(terms)``; checked
        by :func:`.arrays.segment_from_arrays`, not here)."""
        index = cls(merge_fraction=merge_fraction, min_tail_docs=min_tail_docs)
        index._vocabulary = Vocabulary(terms)
        if main.n_docs == 0 and tail.n_docs:
            main, tail = tail, Segment.empty()
        index._main, index._tail = main, tail
        segments = tuple(s for s in (main, tail) if s.n_docs)
        index._snapshot = IndexSnapshot(
            segments, index._vocabulary, main.n_docs + tail.n_docs, main.n_tokens + tail.n_tokens
        )
        return index

    def snapshot(self) -> IndexSnapshot:
        """The documents appended so far, frozen (a new object after each append)."""
        return self._snapshot

    def append(self, docs: Iterable[Sequence[str]]) -> IndexSnapshot:
        """Add documents (each a list of tokens; an empty one counts in N) and publish the
        snapshot holding them, which this returns. ``docs`` may be a generator: it is consumed
        in chunks, so token lists need not all be alive at once."""
        with self._lock:
            id_parts: list[NDArray[np.int64]] = []
            length_parts: list[NDArray[np.int64]] = []
            docs_iter = iter(docs)
            while chunk := list(itertools.islice(docs_iter, _CHUNK_DOCS)):
                lengths = np.fromiter(map(len, chunk), np.int64, len(chunk))
                count = int(lengths.sum())
                id_parts.append(self._vocabulary.ids(itertools.chain.from_iterable(chunk), count))
                length_parts.append(lengths)
            n_new = sum(len(p) for p in length_parts)
            n = self._snapshot.n_docs
            if n + n_new > MAX_DOCS:
                raise InvalidArgumentError(
                    f"a TermIndex holds at most {MAX_DOCS} documents; split the collection"
                )
            if not n_new:
                return self._snapshot
            ids = np.concatenate(id_parts)
            fresh = Segment.build(ids, np.concatenate(length_parts), len(self._vocabulary))
            if self._main.n_docs == 0:
                self._main = fresh
            else:
                self._tail = self._tail.concat(fresh)
                limit = max(self._min_tail_docs, self._merge_fraction * self._main.n_docs)
                if self._tail.n_docs > limit:
                    self._main, self._tail = self._main.concat(self._tail), Segment.empty()
            segments = tuple(s for s in (self._main, self._tail) if s.n_docs)
            self._snapshot = IndexSnapshot(
                segments, self._vocabulary, n + n_new, self._snapshot.n_tokens + int(ids.size)
            )
            return self._snapshot

    def search(
        self, tokens: Sequence[str], k: int, *, mask: NDArray[np.bool_] | None = None
    ) -> Hits:
        """:meth:`IndexSnapshot.search` on the latest snapshot."""
        return self._snapshot.search(tokens, k, mask=mask)

    def search_many(
        self, queries: Sequence[Sequence[str]], k: int, *, mask: NDArray[np.bool_] | None = None
    ) -> list[Hits]:
        """:meth:`IndexSnapshot.search_many` on the latest snapshot."""
        return self._snapshot.search_many(queries, k, mask=mask)
