"""The two searches over a collection's hnswlib index (the scan tier lives in ``scan.py``):
``exact`` — brute force over the index's stored vectors with the native top-k — and
``approximate`` — hnswlib's graph search, over-fetched and rescored exactly so its scores and
ties match the exact path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from remem.kernels import top_k
from remem.stores.hnsw.loaded import Loaded

R = TypeVar("R")
Finish = Callable[[Loaded, list[list[int]], Any, int], list[list[R]]]
"""Turns picked labels and their scores into results (see :mod:`remem.stores.hnsw.results`)."""


def exact(
    state: Loaded,
    queries: NDArray[np.float32],
    k: int,
    eligible: NDArray[np.int64] | None,
    finish: Finish[R],
) -> list[list[R]]:
    # Rows sorted by id, so the kernel's "ties to the lower index" is "ties by id".
    if eligible is None:
        if state.sorted_ids is None:
            state.sorted_ids = sorted(state.label_of)
        ids = state.sorted_ids
        labels = [state.label_of[i] for i in ids]
        matrix = np.asarray(state.index.get_items(labels, return_type="numpy"), dtype=np.float32)
    elif state.exact_rows is not None and state.exact_rows[0] is eligible:
        # The same (cached) eligible labels as the last search, e.g. a scoped recall again.
        _, labels, matrix = state.exact_rows
    else:
        ids = sorted(state.id_of[int(label)] for label in eligible)
        labels = [state.label_of[i] for i in ids]
        matrix = np.asarray(state.index.get_items(labels, return_type="numpy"), dtype=np.float32)
        state.exact_rows = (eligible, labels, matrix)
    idx, scores = top_k(queries, matrix, k, metric="dot")
    picked = [[labels[int(i)] for i in row] for row in np.atleast_2d(idx)]
    return finish(state, picked, np.atleast_2d(scores), k)


def approximate(
    state: Loaded,
    queries: NDArray[np.float32],
    k: int,
    eligible: NDArray[np.int64] | None,
    finish: Finish[R],
    *,
    overfetch: int,
    ef_search: int,
) -> list[list[R]]:
    index = state.index
    size = len(state.label_of) if eligible is None else len(eligible)
    fetch = min(size, k * overfetch)
    index.set_ef(max(ef_search, fetch))
    allowed = None if eligible is None else set(eligible.tolist())
    picked: list[list[int]] = []
    for q in queries:
        try:
            if allowed is None:
                found, _ = index.knn_query(q, k=fetch, num_threads=1)
            else:
                found, _ = index.knn_query(q, k=fetch, num_threads=1, filter=allowed.__contains__)
        except RuntimeError:  # hnswlib found fewer than `fetch`: let the caller go exact
            picked.append([])
            continue
        picked.append([int(v) for v in found[0]])
    # Rescore the candidates exactly so scores (and ties) match the exact path.
    scores = []
    for q, labels in zip(queries, picked, strict=True):
        if labels:
            vecs = np.asarray(index.get_items(labels, return_type="numpy"), dtype=np.float32)
            scores.append(vecs @ q)
        else:
            scores.append(np.zeros(0, dtype=np.float32))
    return finish(state, picked, scores, k)
