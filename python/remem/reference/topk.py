"""Pure-Python specification of vector top-k (the twin of :mod:`remem.kernels.topk`).

Scores (float64 here; the native kernels use float32, see tolerances below):

- ``dot``: ``Σ_j q[j]·r[j]``.
- ``cosine``: ``dot / (|q|·|r|)`` with ``|v| = sqrt(Σ v[j]²)``; **0 when either norm is 0**.

Ranking: score descending; equal scores go to the **lower row index**; a row whose score is NaN (a
NaN or infinity in the matrix — stores validate vectors on insert, so this is defence, not a
promise) ranks **below every other score**, NaN rows among themselves by lower index. ``-0.0`` and
``0.0`` tie.

Each query gets ``k' = min(k, eligible rows)`` hits, where the eligible rows are those with
``mask[i]`` True (all rows without a mask). ``k = 0`` gives empty results; negative ``k`` raises
InvalidArgumentError. A 1-d query gives flat lists, a batch (list of queries) gives one list per
query.

Errors: unknown metric or negative k → InvalidArgumentError; a query of another length than the
matrix's rows, or a mask of length ≠ n → ShapeError; a NaN or infinity in a query →
NonFiniteError.

Tolerance of the native float32 kernels against this float64 twin: dots accumulate in eight
float32 lanes, so ``|native - reference| ≤ 1e-6·√d·|q|·|r| + 1e-7·|q|·|r|`` in practice (tests
allow ``2e-5·(1 + |q|·|r|)`` for ``d ≤ 64``; for cosine, ``2e-5``).

int8 quantization (:func:`quantize`): per row ``s = max_j |x[j]| / 127`` and
``code[j] = round_half_away(x[j] / s)`` (all zeros when ``s = 0``); the matrix must be finite.
:func:`top_k_quantized` ranks rows by the approximate score computed from the codes, keeps
the best ``candidates`` (default ``max(10·k, 100)``, must be ≥ k) and returns exactly
:func:`top_k` restricted to that pool. (The native scan also quantizes the query to int16;
this twin does not, so pools may differ at the margin — only the exact-rescoring contract is
compared.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from remem.errors import InvalidArgumentError, NonFiniteError, ShapeError

__all__ = ["default_candidates", "quantize", "top_k", "top_k_quantized"]

Vector = Sequence[float]
Hits = tuple[list[int], list[float]] | tuple[list[list[int]], list[list[float]]]


def default_candidates(k: int) -> int:
    """``max(10·k, 100)``."""
    return max(10 * k, 100)


def _norm(v: Vector) -> float:
    return math.sqrt(sum(x * x for x in v))


def _score(q: Vector, r: Vector, metric: str) -> float:
    dot = sum(a * b for a, b in zip(q, r, strict=True))
    if metric == "dot":
        return dot
    qn, rn = _norm(q), _norm(r)
    if qn == 0.0 or rn == 0.0:
        return 0.0
    return dot / (qn * rn)


def _rank_key(hit: tuple[float, int]) -> tuple[int, float, int]:
    score, row = hit
    if math.isnan(score):
        return (1, 0.0, row)
    return (0, -score, row)


def _check(
    queries: Sequence[Vector], matrix: Sequence[Vector], k: int, metric: str, mask: Vector | None
) -> None:
    if metric not in ("cosine", "dot"):
        raise InvalidArgumentError(f'unknown metric {metric!r}; use "cosine" or "dot"')
    if k < 0:
        raise InvalidArgumentError(f"k is out of range: {k} is negative; pass k >= 0")
    d = len(matrix[0]) if matrix else None
    for q in queries:
        if d is not None and len(q) != d:
            raise ShapeError(f"queries has dimension {len(q)} but {d} was expected")
        for j, x in enumerate(q):
            if not math.isfinite(x):
                raise NonFiniteError(f"queries[{j}] is {x}, but only finite values are allowed")
    if mask is not None and len(mask) != len(matrix):
        raise ShapeError(f"mask has length {len(mask)} but {len(matrix)} was expected")


def _is_batch(queries: Sequence[float] | Sequence[Vector]) -> bool:
    return len(queries) > 0 and isinstance(queries[0], Sequence)


def _select(
    q: Vector, matrix: Sequence[Vector], rows: Sequence[int], k: int, metric: str
) -> tuple[list[int], list[float]]:
    hits = sorted(((_score(q, matrix[i], metric), i) for i in rows), key=_rank_key)[:k]
    return [i for _, i in hits], [s for s, _ in hits]


def top_k(
    queries: Sequence[float] | Sequence[Vector],
    matrix: Sequence[Vector],
    k: int,
    *,
    metric: str = "cosine",
    mask: Sequence[bool] | None = None,
) -> Hits:
    """The ``k`` best rows of ``matrix`` for one query or a batch (see the module docstring).

    >>> top_k([1.0, 0.0], [[0.0, 1.0], [2.0, 0.0], [1.0, 0.0]], 2)
    ([1, 2], [1.0, 1.0])
    """
    batch = _is_batch(queries)
    qs = cast(list[Vector], list(queries)) if batch else [cast(Vector, queries)]
    _check(qs, matrix, k, metric, mask)
    rows = [i for i in range(len(matrix)) if mask is None or mask[i]]
    results = [_select(q, matrix, rows, k, metric) for q in qs]
    if batch:
        return [r[0] for r in results], [r[1] for r in results]
    return results[0]


def _round_half_away(x: float) -> int:
    return math.floor(abs(x) + 0.5) * (1 if x >= 0 else -1)


def quantize(matrix: Sequence[Vector]) -> tuple[list[list[int]], list[float]]:
    """int8 codes and per-row scales: ``s = max|x|/127``, ``code = round_half_away(x/s)``."""
    codes: list[list[int]] = []
    scales: list[float] = []
    for i, row in enumerate(matrix):
        for j, x in enumerate(row):
            if not math.isfinite(x):
                raise NonFiniteError(f"matrix[{i}, {j}] is {x}; quantize needs finite values")
        s = max((abs(x) for x in row), default=0.0) / 127.0
        scales.append(s)
        codes.append([max(-127, min(127, _round_half_away(x / s))) if s > 0 else 0 for x in row])
    return codes, scales


def top_k_quantized(
    queries: Sequence[float] | Sequence[Vector],
    matrix: Sequence[Vector],
    k: int,
    *,
    metric: str = "cosine",
    mask: Sequence[bool] | None = None,
    candidates: int | None = None,
) -> Hits:
    """:func:`top_k` restricted to the ``candidates`` best rows by the int8 approximate score."""
    batch = _is_batch(queries)
    qs = cast(list[Vector], list(queries)) if batch else [cast(Vector, queries)]
    _check(qs, matrix, k, metric, mask)
    pool = default_candidates(k) if candidates is None else candidates
    if pool < k:
        raise InvalidArgumentError(f"candidates is out of range: {pool} is smaller than k = {k}")
    codes, scales = quantize(matrix)
    approx = [[c * s for c in row] for row, s in zip(codes, scales, strict=True)]
    rows = [i for i in range(len(matrix)) if mask is None or mask[i]]
    results = []
    for q in qs:
        norms = [_norm(r) for r in matrix]
        qn = _norm(q)
        scored = []
        for i in rows:
            dot = sum(a * b for a, b in zip(q, approx[i], strict=True))
            if metric == "cosine":
                dot = 0.0 if qn == 0.0 or norms[i] == 0.0 else dot / (qn * norms[i])
            scored.append((dot, i))
        chosen = [i for _, i in sorted(scored, key=_rank_key)[:pool]]
        results.append(_select(q, matrix, sorted(chosen), k, metric))
    if batch:
        return [r[0] for r in results], [r[1] for r in results]
    return results[0]
