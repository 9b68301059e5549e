"""IndexSnapshot: a consistent, immutable view of a TermIndex that searches rank by bm25."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from remem.errors import ShapeError
from remem.kernels.bm25 import FTS5_B, FTS5_K1, Hits, bm25_top_k_many, fts5_idf
from remem.stores.term_index.segment import Segment
from remem.stores.term_index.vocabulary import Vocabulary

_NO_HITS: Hits = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
_Weighted = tuple[list[int], list[float]]  # term ids and their idf, in query order


@dataclass(frozen=True, eq=False)
class IndexSnapshot:
    """The documents ``0 .. n_docs`` of a :class:`~remem.stores.term_index.TermIndex` at one
    moment, in ``segments`` (consecutive runs of documents). Safe to search from any thread while
    the index grows: nothing here changes, and terms added later are invisible.

    Ranking is SQLite FTS5's ``bm25()`` exactly (see :mod:`remem.reference.bm25`): ``N`` and
    ``avgdl`` count every document and idf uses each term's document frequency over all of them;
    a ``mask`` only restricts which documents may be returned.
    """

    segments: tuple[Segment, ...]
    vocabulary: Vocabulary
    n_docs: int
    n_tokens: int

    def _weights(self, tokens: Sequence[str]) -> _Weighted:
        ids: list[int] = []
        idf: list[float] = []
        for token in tokens:
            term = self.vocabulary.get(token)
            if term is None:
                continue
            df = sum(segment.df(term) for segment in self.segments)
            if df:  # 0 for a term added after this snapshot, or only in empty documents
                ids.append(term)
                idf.append(fts5_idf(self.n_docs, df))
        return ids, idf

    def search(
        self,
        tokens: Sequence[str],
        k: int,
        *,
        mask: NDArray[np.bool_] | None = None,
        k1: float = FTS5_K1,
        b: float = FTS5_B,
    ) -> Hits:
        """The best ``k`` documents for the query ``tokens`` (a token repeated counts twice),
        plus every document tied with the k-th score: ``(doc indices, scores)``, best first,
        ties to the lower document. ``mask`` (one bool per document) restricts the candidates.
        ``k1`` and ``b`` default to FTS5's (the only values at which the ranking is FTS5's)."""
        return self.search_many([tokens], k, mask=mask, k1=k1, b=b)[0]

    def search_many(
        self,
        queries: Sequence[Sequence[str]],
        k: int,
        *,
        mask: NDArray[np.bool_] | None = None,
        k1: float = FTS5_K1,
        b: float = FTS5_B,
    ) -> list[Hits]:
        """:meth:`search` for each query, with one native call per segment for the whole batch."""
        if mask is not None and len(mask) != self.n_docs:
            raise ShapeError(
                f"mask has length {len(mask)} but the index holds {self.n_docs} documents; "
                "build the mask from the same snapshot"
            )
        if self.n_tokens == 0 or k <= 0:
            return [_NO_HITS for _ in queries]
        weighted = [self._weights(q) for q in queries]
        avgdl = self.n_tokens / self.n_docs
        parts: list[list[Hits]] = [[] for _ in queries]
        base = 0
        for segment in self.segments:
            n = segment.n_docs
            if segment.docs.size:
                sub = [_within(w, segment.n_terms) for w in weighted]
                found = bm25_top_k_many(
                    segment.offsets,
                    segment.docs,
                    segment.tfs,
                    segment.doc_lengths,
                    sub,
                    avgdl=avgdl,
                    k=k,
                    k1=k1,
                    b=b,
                    mask=None if mask is None else mask[base : base + n],
                )
                for part, (docs, scores) in zip(parts, found, strict=True):
                    if docs.size:
                        part.append((docs + base, scores))
            base += n
        return [_merge(p, k) for p in parts]


def _within(weighted: _Weighted, n_terms: int) -> _Weighted:
    """The query's terms the segment knows (a term newer than it has no postings there)."""
    ids, idf = weighted
    if all(t < n_terms for t in ids):
        return weighted
    keep = [i for i, t in enumerate(ids) if t < n_terms]
    return [ids[i] for i in keep], [idf[i] for i in keep]


def _merge(parts: list[Hits], k: int) -> Hits:
    """Each segment's best k plus ties → the best k plus ties overall (every document scoring at
    least the overall k-th score is among its own segment's best k plus ties)."""
    if not parts:
        return _NO_HITS
    if len(parts) == 1:
        return parts[0]
    docs = np.concatenate([d for d, _ in parts])
    scores = np.concatenate([s for _, s in parts])
    order = np.lexsort((docs, -scores))
    docs, scores = docs[order], scores[order]
    if len(docs) > k:
        keep = k + int(np.count_nonzero(scores[k:] == scores[k - 1]))
        docs, scores = docs[:keep], scores[:keep]
    return docs, scores
