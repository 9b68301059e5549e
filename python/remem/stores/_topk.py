"""Adapter to the native ``remem.kernels.top_k`` kernel.

The stores call :func:`top_k` from here. While the kernel lives on another branch, a small numpy
implementation with identical semantics stands in.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

try:  # pragma: no cover - depends on which branch is merged
    from remem.kernels import top_k  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # pragma: no cover
    # ---- TEMPORARY FALLBACK: delete once remem.kernels.top_k is merged ---------------------
    def top_k(  # type: ignore[misc,no-redef,unused-ignore]
        queries: NDArray[np.float32],
        matrix: NDArray[np.float32],
        k: int,
        *,
        metric: Literal["cosine", "dot"] = "cosine",
        mask: NDArray[np.bool_] | None = None,
    ) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        """Top ``k`` rows of ``matrix`` per query by score desc, ties to the lower row index.

        Returns ``min(k, eligible rows)`` columns; a 1-d query gives 1-d results.
        """
        q = np.asarray(queries, dtype=np.float32)
        single = q.ndim == 1
        q2 = q[None, :] if single else q
        m = np.asarray(matrix, dtype=np.float32)
        scores = q2 @ m.T
        if metric == "cosine":
            with np.errstate(divide="ignore", invalid="ignore"):
                norms = np.linalg.norm(q2, axis=1)[:, None] * np.linalg.norm(m, axis=1)[None, :]
                scores = np.where(norms > 0, scores / norms, 0.0).astype(np.float32)
        eligible = np.arange(m.shape[0]) if mask is None else np.flatnonzero(mask)
        take = min(k, eligible.size)
        sub = scores[:, eligible]
        # lexsort: last key is primary → score desc, then index asc.
        order = (
            np.stack([np.lexsort((eligible, -row))[:take] for row in sub])
            if len(sub)
            else (np.zeros((0, take), dtype=np.int64))
        )
        idx = eligible[order].astype(np.int64)
        top = np.take_along_axis(scores, idx, axis=1).astype(np.float32)
        return (idx[0], top[0]) if single else (idx, top)

    # ---- END TEMPORARY FALLBACK ------------------------------------------------------------

__all__ = ["top_k"]
