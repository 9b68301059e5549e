"""Segment: an immutable CSR postings list over a contiguous run of documents."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, eq=False)
class Segment:
    """Postings of ``n_docs`` documents (numbered from 0 within the segment) over ``n_terms``
    terms: term ``t`` is in ``docs[offsets[t]:offsets[t+1]]`` (ascending) with ``tfs``; the
    arrays have exactly the dtypes :func:`remem.kernels.bm25.bm25_top_k` takes, so a search
    converts nothing.
    """

    offsets: NDArray[np.int64]
    docs: NDArray[np.int32]
    tfs: NDArray[np.uint32]
    doc_lengths: NDArray[np.uint32]
    n_tokens: int

    @property
    def n_docs(self) -> int:
        return len(self.doc_lengths)

    @property
    def n_terms(self) -> int:
        return len(self.offsets) - 1

    def df(self, term: int) -> int:
        """Documents of this segment holding ``term`` (0 for a term newer than the segment)."""
        if term >= self.n_terms:
            return 0
        return int(self.offsets[term + 1] - self.offsets[term])

    @classmethod
    def empty(cls) -> Segment:
        return cls(
            offsets=np.zeros(1, dtype=np.int64),
            docs=np.zeros(0, dtype=np.int32),
            tfs=np.zeros(0, dtype=np.uint32),
            doc_lengths=np.zeros(0, dtype=np.uint32),
            n_tokens=0,
        )

    @classmethod
    def build(cls, ids: NDArray[np.int64], lengths: NDArray[np.int64], n_terms: int) -> Segment:
        """The segment of documents whose token ids, concatenated, are ``ids`` (document ``i``
        has ``lengths[i]`` of them); every id must be below ``n_terms``."""
        n = len(lengths)
        offsets = np.zeros(n_terms + 1, dtype=np.int64)
        if ids.size == 0:
            docs = np.zeros(0, dtype=np.int32)
            tfs = np.zeros(0, dtype=np.uint32)
        else:
            # One sort of (term, doc) keys gives the postings in CSR order and, by counting
            # repeats, each term frequency. (By hand: np.unique's extra copies made it ~3x
            # slower, measured at 4M tokens.)
            keys = ids * n + np.repeat(np.arange(n, dtype=np.int64), lengths)
            keys.sort()
            first = np.empty(len(keys), dtype=bool)
            first[0] = True
            np.not_equal(keys[1:], keys[:-1], out=first[1:])
            starts = np.flatnonzero(first)
            counts = np.diff(starts, append=len(keys))
            keys = keys[starts]
            terms = keys // n
            docs = (keys - terms * n).astype(np.int32)
            tfs = counts.astype(np.uint32)
            np.cumsum(np.bincount(terms, minlength=n_terms), out=offsets[1:])
        return cls(
            offsets=offsets,
            docs=docs,
            tfs=tfs,
            doc_lengths=lengths.astype(np.uint32),
            n_tokens=int(ids.size),
        )

    def concat(self, other: Segment) -> Segment:
        """This segment's documents followed by ``other``'s (renumbered after them), in O(postings
        + terms): each term's postings are this segment's, then ``other``'s."""
        if other.n_docs == 0:
            return self
        if self.n_docs == 0:
            return other
        n_terms = max(self.n_terms, other.n_terms)
        mine = _padded_counts(self, n_terms)
        theirs = _padded_counts(other, n_terms)
        offsets = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(mine + theirs, out=offsets[1:])
        size = len(self.docs) + len(other.docs)
        docs = np.empty(size, dtype=np.int32)
        tfs = np.empty(size, dtype=np.uint32)
        # Posting j of term t moves by (new start of t − old start of t), plus, for the second
        # segment, the first segment's postings of t that now precede it.
        here = _destinations(self, offsets[: self.n_terms])
        there = _destinations(other, offsets[: other.n_terms] + mine[: other.n_terms])
        docs[here] = self.docs
        tfs[here] = self.tfs
        docs[there] = other.docs + np.int32(self.n_docs)
        tfs[there] = other.tfs
        return Segment(
            offsets=offsets,
            docs=docs,
            tfs=tfs,
            doc_lengths=np.concatenate([self.doc_lengths, other.doc_lengths]),
            n_tokens=self.n_tokens + other.n_tokens,
        )


def _padded_counts(segment: Segment, n_terms: int) -> NDArray[np.int64]:
    counts = np.zeros(n_terms, dtype=np.int64)
    counts[: segment.n_terms] = np.diff(segment.offsets)
    return counts


def _destinations(segment: Segment, starts: NDArray[np.int64]) -> NDArray[np.int64]:
    shift = np.repeat(starts - segment.offsets[:-1], np.diff(segment.offsets))
    return np.arange(len(segment.docs), dtype=np.int64) + shift
