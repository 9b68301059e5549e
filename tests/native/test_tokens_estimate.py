"""Accuracy of ``estimate_tokens`` against exact ``o200k_base`` counts, and its calibration.

MAE (the brief's "mean absolute error"): the mean over texts of
``|estimate - exact| / max(exact, 1)`` where ``exact`` is ``count_tokens(text, "o200k_base")``,
over texts whose exact count is in [20, 2000]. The cost tables are calibrated on seed 0 of
:mod:`remem._corpus` (all kinds pooled); these tests measure on seeds 1 and 2, which the
calibration never saw.

Regenerate the tables (Rust and Python) after changing the estimator's rules::

    python tests/native/test_tokens_estimate.py --calibrate
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from remem import _corpus
from remem.kernels.tokens import count_tokens, estimate_tokens
from remem.reference import tokens as ref

TEST_SEEDS = (1, 2)
TEXTS_PER_SEED = 250
# Measured MAE on seeds 1-2 (see the reference docstring) plus a margin for corpus drift; the
# five Latin kinds are held to the brief's 5% target.
LATIN_BOUND = 0.05
BOUNDS = dict.fromkeys(_corpus.LATIN_KINDS, LATIN_BOUND) | {
    "cjk": 0.10, "cyrillic": 0.08, "arabic": 0.08, "devanagari": 0.08, "emoji": 0.08,
}  # fmt: skip


def mae(kind: str, seeds: tuple[int, ...] = TEST_SEEDS, n: int = TEXTS_PER_SEED) -> float:
    texts = [t for s in seeds for t in _corpus.generate(kind, n, s)]
    exact = count_tokens(texts)
    keep = (exact >= 20) & (exact <= 2000)
    est = estimate_tokens(texts)[keep]
    exact = exact[keep]
    return float(np.mean(np.abs(est - exact) / np.maximum(exact, 1)))


def ref_mae(kind: str, seeds: tuple[int, ...] = TEST_SEEDS, n: int = TEXTS_PER_SEED) -> float:
    """:func:`mae` of the calibrated tables through :func:`features` (no extension rebuild)."""
    from remem.reference._tokens_tables import COST

    costs = np.array(COST, dtype=np.int64)
    texts = [t for s in seeds for t in _corpus.generate(kind, n, s)]
    exact = count_tokens(texts)
    keep = (exact >= 20) & (exact <= 2000)
    milli = np.array([int(features(t) @ costs) for t in texts], dtype=np.int64)
    est = np.maximum(1, (milli + 500) // 1000)[keep]
    return float(np.mean(np.abs(est - exact[keep]) / np.maximum(exact[keep], 1)))


@pytest.mark.parametrize("kind", _corpus.KINDS)
def test_mae_per_kind(kind: str) -> None:
    assert mae(kind) <= BOUNDS[kind]


def test_no_systematic_bias_on_chat() -> None:
    texts = _corpus.generate("chat", 200, 3)
    ratio = estimate_tokens(texts).sum() / count_tokens(texts).sum()
    assert 0.97 <= ratio <= 1.03


# --- calibration (not a test) -------------------------------------------------------------------
NC = ref.N_CLASSES
N_PAIRS, N_TRIGRAMS = NC * NC, NC * NC * NC
_CLASS = np.frombuffer(ref._CLASS, dtype=np.uint8).astype(np.int64)


def features(text: str) -> np.ndarray:
    """How often each trigram cost of the reference model is charged for ``text``: a vector whose
    dot product with ``COST`` is the reference's ``sum_milli``."""
    c = _CLASS[np.frombuffer(text.encode("utf-8"), dtype=np.uint8)]
    c1 = np.concatenate(([ref.NL], c[:-1]))
    c2 = np.concatenate(([ref.NL, ref.NL], c))[: len(c)]
    return np.bincount((c2 * NC + c1) * NC + c, minlength=N_TRIGRAMS).astype(float)


def _nonneg_ridge(a: np.ndarray, b: np.ndarray, lam: float, prior: np.ndarray) -> np.ndarray:
    """argmin ||a w - b||^2 + lam ||w - prior||^2 subject to w >= 0 (active set: coefficients
    that fit negative are pinned at 0 and the rest refit)."""
    gram, rhs = a.T @ a, a.T @ b
    free = np.ones(a.shape[1], dtype=bool)
    for _ in range(300):
        fi = np.flatnonzero(free)
        w = np.zeros(a.shape[1])
        lhs = gram[np.ix_(fi, fi)] + lam * np.eye(len(fi))
        w[fi] = np.linalg.solve(lhs, rhs[fi] + lam * prior[fi])
        if not (w < 0).any():
            return w
        free &= w >= 0
    return np.maximum(w, 0)


def calibrate(seed: int = 0, n: int = 400) -> list[int]:
    """Fit the costs to seed ``seed``: least squares of the *relative* error over texts of
    20-2000 tokens (the five Latin kinds weighted 3x, the brief's target). First a pair model
    (cost by the classes of a byte and the one before it), then the trigram costs pulled towards
    it by a ridge penalty, so that trigrams the corpus barely shows keep their pair's cost."""
    rows, ys, weights = [], [], []
    for kind in _corpus.KINDS:
        texts = _corpus.generate(kind, n, seed)
        for text, y in zip(texts, count_tokens(texts).tolist(), strict=True):
            if 20 <= y <= 2000:
                rows.append(features(text))
                ys.append(float(y))
                weights.append((3.0 if kind in _corpus.LATIN_KINDS else 1.0) / y)
    w = np.asarray(weights)
    tri = np.vstack(rows) * w[:, None]
    b = np.asarray(ys) * w
    pairs = tri.reshape(len(tri), NC, N_PAIRS).sum(axis=1)  # drop the oldest class
    pair_cost = _nonneg_ridge(pairs, b, 1e-2, np.full(N_PAIRS, 0.4))
    cost = _nonneg_ridge(tri, b, 3e-2, np.tile(pair_cost, NC))
    return [int(x) for x in np.round(cost * 1000)]


def write_tables(cost: list[int]) -> None:
    root = Path(__file__).resolve().parents[2]
    head = "Calibrated trigram costs (milli-tokens) of the token estimator, fitted on seed 0 of\n"
    head += "remem._corpus. Generated by `python tests/native/test_tokens_estimate.py --calibrate`."
    rows = [cost[i : i + NC] for i in range(0, N_TRIGRAMS, NC)]
    rs = [*(f"//! {line}" for line in head.splitlines()), "",
          f"pub(super) const N_CLASSES: usize = {NC};", "#[rustfmt::skip]",
          "pub(super) static COST: [u16; N_CLASSES * N_CLASSES * N_CLASSES] = ["]  # fmt: skip
    rs += [f"    {', '.join(map(str, row))}," for row in rows]
    rs.append("];")
    py = [f'"""{head}"""', "", "# fmt: off", "COST = ["]
    py += [f"    {', '.join(map(str, row))}," for row in rows]
    py += ["]", "# fmt: on"]
    (root / "rust/src/tokens/tables.rs").write_text("\n".join(rs) + "\n")
    (root / "python/remem/reference/_tokens_tables.py").write_text("\n".join(py) + "\n")


if __name__ == "__main__":
    if "--calibrate" in sys.argv:
        write_tables(calibrate())
        print("tables written; rebuild the extension, then run this script without --calibrate")
    else:
        for kind in _corpus.KINDS:
            print(f"{kind:<11} MAE {mae(kind):.4f}  reference-model {ref_mae(kind):.4f}")
