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
from collections import defaultdict
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


@pytest.mark.parametrize("kind", _corpus.KINDS)
def test_mae_per_kind(kind: str) -> None:
    assert mae(kind) <= BOUNDS[kind]


def test_no_systematic_bias_on_chat() -> None:
    texts = _corpus.generate("chat", 200, 3)
    ratio = estimate_tokens(texts).sum() / count_tokens(texts).sum()
    assert 0.97 <= ratio <= 1.03


# --- calibration (not a test) -------------------------------------------------------------------
LMAX, N_KINDS, MIN_N = 24, ref.N_KINDS, 25


def calibrate(seed: int = 0, n: int = 400) -> tuple[list[list[list[int]]], list[int], int]:
    sums: dict[tuple[int, int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    suffix_pieces: list[tuple[int, int, int, str]] = []
    for kind in _corpus.KINDS:
        texts = _corpus.generate(kind, n, seed)
        keys, strs = [], []
        for text in texts:
            start = 0
            for k, p, length, suf, end in ref._pieces(text):
                if suf:
                    suffix_pieces.append((k, p, length, text[start:end]))
                else:
                    keys.append((k, p, length))
                    strs.append(text[start:end])
                start = end
        for key, c in zip(keys, count_tokens(strs).tolist(), strict=True):
            sums[key][0] += c
            sums[key][1] += 1
    per_len: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    per_kind: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for (k, _, length), (tok, cnt) in sums.items():
        per_len[k, length][0] += tok
        per_len[k, length][1] += cnt
        per_kind[k][0] += tok
        per_kind[k][1] += cnt * length
    default_rate = {k: 1.0 if k in (ref.CJK - 4, ref.K_ASTRAL) else 0.3 for k in range(N_KINDS)}
    slope = [
        round(1000 * (per_kind[k][0] / per_kind[k][1] if per_kind[k][1] else default_rate[k]))
        for k in range(N_KINDS)
    ]
    cost = []
    for k in range(N_KINDS):
        rows = []
        for p in range(3):
            known: dict[int, float] = {}
            for length in range(LMAX + 1):
                tok, cnt = sums.get((k, p, length), (0.0, 0.0))
                if cnt < MIN_N:
                    tok, cnt = per_len.get((k, length), (0.0, 0.0))
                if cnt >= 5:
                    known[length] = tok / cnt
            rows.append(
                [round(1000 * _fill(known, length, slope[k])) for length in range(LMAX + 1)]
            )
        cost.append(rows)
    extra = count_tokens([s for *_, s in suffix_pieces]).tolist()
    base = [
        cost[k][p][min(length, LMAX)] + max(0, length - LMAX) * slope[k]
        for k, p, length, _ in suffix_pieces
    ]
    suffix = round(sum(1000 * e - b for e, b in zip(extra, base, strict=True)) / len(extra))
    return cost, slope, suffix


def _fill(known: dict[int, float], length: int, slope_milli: int) -> float:
    """Known mean, else linear interpolation between the nearest known lengths, else extrapolated
    with the kind's tokens-per-char rate."""
    if length in known:
        return known[length]
    below = [x for x in known if x < length]
    above = [x for x in known if x > length]
    if below and above:
        lo, hi = max(below), min(above)
        return known[lo] + (known[hi] - known[lo]) * (length - lo) / (hi - lo)
    if below:
        lo = max(below)
        return known[lo] + (length - lo) * slope_milli / 1000
    if above:
        return known[min(above)]
    return max(1.0, length * slope_milli / 1000)


def write_tables(cost: list[list[list[int]]], slope: list[int], suffix: int) -> None:
    root = Path(__file__).resolve().parents[2]
    head = "Calibrated piece costs (milli-tokens) of the token estimator, fitted on seed 0 of\n"
    head += "remem._corpus. Generated by `python tests/native/test_tokens_estimate.py --calibrate`."
    rs = [*(f"//! {line}" for line in head.splitlines()), "",
          f"pub(super) const LMAX: usize = {LMAX};",
          f"pub(super) const SUFFIX: u32 = {suffix};", "#[rustfmt::skip]",
          f"pub(super) static SLOPE: [u32; {N_KINDS}] = {slope};", "#[rustfmt::skip]",
          f"pub(super) static COST: [[[u32; LMAX + 1]; 3]; {N_KINDS}] = ["]  # fmt: skip
    py = ["# ruff: noqa: E501  (generated data)", f'"""{head}"""', "", f"LMAX = {LMAX}",
          f"SUFFIX = {suffix}", f"SLOPE = {slope}",
          "# fmt: off", "COST = ["]  # fmt: skip
    for rows in cost:
        rs.append("    [")
        py.append("    [")
        for row in rows:
            rs.append(f"        {row},")
            py.append(f"        {row},")
        rs.append("    ],")
        py.append("    ],")
    rs.append("];")
    py += ["]", "# fmt: on"]
    (root / "rust/src/tokens/tables.rs").write_text("\n".join(rs) + "\n")
    (root / "python/remem/reference/_tokens_tables.py").write_text("\n".join(py) + "\n")


if __name__ == "__main__":
    if "--calibrate" in sys.argv:
        write_tables(*calibrate())
        print("tables written; rebuild the extension, then run this script without --calibrate")
    else:
        for kind in _corpus.KINDS:
            print(f"{kind:<11} MAE {mae(kind):.4f}")
