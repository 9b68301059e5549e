"""The exact-scan tier of HnswVectorStore: a collection's vectors held in memory, int8 + float32.

:class:`ScanCache` keeps one collection's (metric-prepared) vectors as a float32 matrix plus
their int8 codes, one row per stored item in ascending label order. Queries scan the codes
natively (a quarter of the bytes), then rescore a candidate pool exactly in float32
(:func:`remem.kernels.top_k_quantized`, a pool of :data:`POOL_FACTOR` × the rows fetched); tiny
sets use the exact float32 kernel directly. The returned scores are exact either way; only
membership can differ from brute force, and measured recall@10 is >= 0.99 (1.0 on 100k x 384
random vectors, where hnswlib reaches 0.15 at ef 128).

Built once from DuckDB (one columnar read) and kept current by the store: ``append`` quantizes
only the new rows (codes are per row, so old rows never change), ``remove`` sets a tombstone,
and the matrix is compacted once tombstones pass a quarter of the rows. Memory: ``5·d + 17``
bytes per row (float32 row, int8 codes, scale, norm, label, alive flag) plus up to 50% spare
capacity for appends — about 1.9 kB per 384-d item.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from remem.kernels import QuantizedMatrix, quantize, top_k, top_k_quantized

Picked = tuple[list[list[int]], list[NDArray[np.float32]]]

POOL_FACTOR = 4
"""The int8 scan rescores ``max(POOL_FACTOR · fetch, POOL_MIN)`` candidates per query: the
kernel's default (``max(10·k, 100)``) for ``k`` up to 25, fewer for recall's deeper fetch. At
the controller's depth (31 rows), 10k × 384 MiniLM vectors of the bench_controller prose corpus
and 500 of its queries: recall@30 against the exact float32 top-k 1.0000 at pools of 310, 160,
124, 100 and 62 alike (also 1.0000 on Gaussian and clustered data), while one batch took 44.9
/ 31.2 / 29.9 / 27.6 / 23.7 ms — the pool's heap, its rescoring and its sort were half of the
kernel's time at 310 (``py-spy --native``). In ``benches/bench_recall_many.py`` (two runs of
each side, alternated) the vectors stage went 0.265 / 0.290 → 0.181 / 0.224 s a 1,000-query
batch at 10k and 0.49 / 0.46 → 0.42 / 0.42 s at 100k; throughput moved within noise (10k 928 /
891 → 944 / 901 q/s, 100k 354 / 459 → 425 / 400): the vector search runs beside the full-text
search, which is the longer of the two."""
POOL_MIN = 100


class ScanCache:
    """One collection's rows for exact search; labels must arrive in ascending order."""

    def __init__(self, vectors: NDArray[np.float32], labels: NDArray[np.int64]) -> None:
        """Hold ``vectors``; a writable C-contiguous float32 array is adopted, not copied."""
        n, dim = int(vectors.shape[0]), int(vectors.shape[1])
        q = quantize(vectors)
        self._allocate(0, dim)
        adopt = vectors.flags.writeable and vectors.flags.c_contiguous
        self._matrix = vectors if adopt else np.array(vectors, dtype=np.float32)
        self._codes, self._scales, self._norms = q.codes, q.scales, q.norms
        self._labels = np.array(labels, dtype=np.int64)
        self._alive = np.ones(n, dtype=np.bool_)
        self._n, self._dead = n, 0

    @classmethod
    def restore(
        cls,
        matrix: NDArray[Any],
        labels: NDArray[Any],
        codes: NDArray[Any],
        scales: NDArray[Any],
        norms: NDArray[Any],
        *,
        dimension: int,
    ) -> ScanCache:
        """A cache holding arrays saved from :meth:`live_arrays` (no quantization: the codes
        are the saved ones); ValueError when they do not fit together. The arrays may be
        read-only memory maps: they are used in place, and copied before the cache's first
        in-place write (an append grows first; a compaction copies, :meth:`_compact`)."""
        n = len(labels)
        if not (
            matrix.dtype == np.float32
            and matrix.shape == (n, dimension)
            and codes.dtype == np.int8
            and codes.shape == (n, dimension)
            and labels.dtype == np.int64
            and scales.dtype == norms.dtype == np.float32
            and scales.shape == norms.shape == (n,)
            and bool(np.all(labels[1:] > labels[:-1]))
        ):
            raise ValueError("the saved scan arrays do not fit together")
        cache = cls.__new__(cls)
        cache._matrix, cache._codes = np.ascontiguousarray(matrix), np.ascontiguousarray(codes)
        cache._scales, cache._norms, cache._labels = scales, norms, labels
        cache._alive = np.ones(n, dtype=np.bool_)
        cache._n, cache._dead = n, 0
        return cache

    def live_arrays(self) -> tuple[NDArray[Any], ...]:
        """(matrix, labels, codes, scales, norms) of the live rows, in label order."""
        n = self._n
        arrays = (self._matrix, self._labels, self._codes, self._scales, self._norms)
        if not self._dead:
            return tuple(a[:n] for a in arrays)
        keep = np.flatnonzero(self._alive[:n])
        return tuple(a[keep] for a in arrays)

    def _allocate(self, capacity: int, dim: int) -> None:
        self._matrix = np.empty((capacity, dim), dtype=np.float32)
        self._codes = np.empty((capacity, dim), dtype=np.int8)
        self._scales = np.empty(capacity, dtype=np.float32)
        self._norms = np.empty(capacity, dtype=np.float32)
        self._labels = np.empty(capacity, dtype=np.int64)
        self._alive = np.empty(capacity, dtype=np.bool_)

    def __len__(self) -> int:
        """Live rows (tombstones excluded)."""
        return self._n - self._dead

    @property
    def nbytes(self) -> int:
        """Bytes held, spare capacity included."""
        return sum(int(a.nbytes) for a in self._arrays())

    # -- maintenance -----------------------------------------------------------------------

    def append(self, vectors: NDArray[np.float32], labels: NDArray[np.int64]) -> None:
        """Add rows whose labels are all larger than every label already held."""
        m = len(labels)
        if m == 0:
            return
        q = quantize(vectors)  # before any mutation: a failure leaves the cache as it was
        end = self._n + m
        if end > len(self._labels):
            self._grow(max(end, len(self._labels) * 3 // 2, 1024))
        rows = slice(self._n, end)
        self._matrix[rows] = vectors
        self._codes[rows] = q.codes
        self._scales[rows] = q.scales
        self._norms[rows] = q.norms
        self._labels[rows] = labels
        self._alive[rows] = True
        self._n = end

    def remove(self, labels: NDArray[np.int64]) -> None:
        """Tombstone the rows of ``labels`` (labels not held are ignored)."""
        rows = self._rows_of(labels)
        rows = rows[self._alive[rows]]
        self._alive[rows] = False
        self._dead += len(rows)
        if self._dead > 64 and self._dead * 4 > self._n:
            self._compact()

    def _grow(self, capacity: int) -> None:
        old = self._arrays()
        self._allocate(capacity, self._matrix.shape[1])
        new = self._arrays()
        for dst, src in zip(new, old, strict=True):
            dst[: self._n] = src[: self._n]

    def _arrays(self) -> tuple[NDArray[Any], ...]:
        return (self._matrix, self._codes, self._scales, self._norms, self._labels, self._alive)

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive[: self._n])
        if not self._matrix.flags.writeable:  # restored from a read-only memory map
            self._grow(len(self._labels))
        for a in self._arrays()[:-1]:
            a[: len(keep)] = a[keep]
        self._alive[: len(keep)] = True
        self._n, self._dead = len(keep), 0

    def _rows_of(self, labels: NDArray[np.int64]) -> NDArray[np.int64]:
        """Rows holding ``labels`` (tombstoned ones included), skipping labels not held."""
        held = self._labels[: self._n]
        rows: NDArray[np.int64] = np.searchsorted(held, labels).astype(np.int64)
        inside = rows < self._n
        rows, labels = rows[inside], labels[inside]
        found: NDArray[np.int64] = rows[held[rows] == labels]
        return found

    # -- search ----------------------------------------------------------------------------

    def search(
        self,
        queries: NDArray[np.float32],
        k: int,
        eligible: NDArray[np.int64] | None,
        exact_below: int,
    ) -> Picked:
        """Labels and exact dot scores of at least the top ``min(k, eligible)`` rows per query.

        Ties with the k-th score are all returned (the caller orders by score, then id, and cuts
        to ``k``): the kernels break ties by row, i.e. by label, not by id.
        """
        n = self._n
        if eligible is None:
            rows = None
            mask = self._alive[:n] if self._dead else None
            size = len(self)
        else:
            rows = np.sort(self._rows_of(eligible))
            mask = None
            size = len(rows)
        if size == 0 or k == 0:
            return [[] for _ in queries], [np.zeros(0, np.float32) for _ in queries]
        if rows is not None and size <= exact_below:
            matrix: NDArray[np.float32] = self._matrix[rows]  # small gather beats a masked scan
            row_labels = self._labels[rows]
            quantized = None
        else:
            matrix, row_labels = self._matrix[:n], self._labels[:n]
            quantized = None if size <= exact_below else self._quantized()
            if rows is not None:
                mask = np.zeros(n, dtype=np.bool_)
                mask[rows] = True
        fetch = min(k + 1, size)
        labels: list[list[int]] = [[] for _ in queries]
        picked: list[NDArray[np.float32]] = [np.zeros(0, np.float32) for _ in queries]
        pending = np.arange(len(queries))
        while True:
            batch = queries if len(pending) == len(queries) else queries[pending]
            if quantized is None:
                idx, scores = top_k(batch, matrix, fetch, metric="dot", mask=mask)
            else:
                pool = min(max(POOL_FACTOR * fetch, POOL_MIN), size)
                idx, scores = top_k_quantized(
                    batch, quantized, matrix, fetch, metric="dot", mask=mask, candidates=pool
                )
            # A tie across the k-th place may hide a lower id: widen until it is resolved —
            # only for the queries that have one, so each query of a batch gets what it would
            # alone (the int8 pool grows with ``fetch``), and a batch where a few queries tie
            # does not scan again for all of them.
            if fetch >= size or fetch <= k:
                tied = np.zeros(len(pending), dtype=np.bool_)
            else:
                tied = scores[:, -1] == scores[:, k - 1]
            for j in np.flatnonzero(~tied).tolist():
                q = int(pending[j])
                labels[q] = row_labels[idx[j]].tolist()
                picked[q] = scores[j]
            if not tied.any():
                return labels, picked
            pending = pending[tied]
            fetch = min(fetch * 2, size)

    def _quantized(self) -> QuantizedMatrix:
        n = self._n
        return QuantizedMatrix(
            codes=self._codes[:n], scales=self._scales[:n], norms=self._norms[:n]
        )
