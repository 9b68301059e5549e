"""Candidate screening: decayed, superseded, below-threshold and near-duplicate items go first.

Order: decayed, then superseded, then the relevance threshold (``score < threshold`` or a packing
value ≤ 0), then near-duplicates among what is left. Core-memory items are never screened out:
they are always kept when present.

Near-duplicates (documented threshold): two items are duplicates when their *normalised* texts
(case-folded, ASCII and common typographic punctuation dropped, whitespace
collapsed) are equal — checked for every candidate
in O(n) by hashing — or, among the ``fuzzy_window`` highest-valued candidates, when
``rapidfuzz.fuzz.ratio`` of the normalised texts is ≥ ``duplicate_threshold`` (default 92). The
fuzzy pass is windowed because all-pairs similarity is quadratic; the items beyond the window
are the least likely to be kept anyway. The copy with the higher value is kept (core first; on
ties the earlier candidate), and the other is reported as ``duplicate of <id>``.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import fuzz, process

from remem.context.assembled import DropReason
from remem.context.candidates import ContextCandidate
from remem.context.config import AssemblerConfig

__all__ = ["LIVE", "REASONS", "normalise", "screen"]

_PUNCTUATION = str.maketrans(
    dict.fromkeys(
        string.punctuation + "\u2018\u2019\u201c\u201d\u00ab\u00bb\u2013\u2014\u2026\u00b7\u2022",
        " ",
    )
)


def normalise(text: str) -> str:
    """Case-folded words separated by single spaces, punctuation dropped: the duplicate key."""
    return " ".join(text.casefold().translate(_PUNCTUATION).split())


REASONS: tuple[DropReason, ...] = (
    DropReason.DECAYED,
    DropReason.SUPERSEDED,
    DropReason.BELOW_THRESHOLD,
    DropReason.DUPLICATE,
)
"""Reason codes returned by :func:`screen` (its ``reasons`` array indexes this tuple)."""

LIVE = -1


def _similar_pairs(keys: list[str], cutoff: float) -> NDArray[np.bool_]:
    """``lower[a, b]`` (b < a): ``fuzz.ratio(keys[a], keys[b]) ≥ cutoff``.

    ``fuzz.ratio`` is ``100 x (1 - indel / (la + lb))`` and the indel distance is at least
    ``|la - lb|``, so a pair can only reach the cutoff when ``200 x min(la, lb) ≥ cutoff x
    (la + lb)``. Only those pairs (a few percent of the window on typical lengths) are scored,
    each exactly as ``process.cdist`` would. Cutoffs below 1 keep the full ``cdist`` (its
    integer scores would round small similarities to 0).
    """
    m = len(keys)
    if cutoff < 1.0:
        sims = process.cdist(keys, keys, scorer=fuzz.ratio, score_cutoff=cutoff, dtype=np.uint8)
        return np.tril(sims, -1) > 0
    lengths = np.fromiter(map(len, keys), np.int64, m)
    reach = 200.0 * np.minimum.outer(lengths, lengths) >= (cutoff - 1e-6) * np.add.outer(
        lengths, lengths
    )
    lower = np.zeros((m, m), dtype=np.bool_)
    for a, b in np.argwhere(np.tril(reach, -1)).tolist():
        lower[a, b] = fuzz.ratio(keys[a], keys[b], score_cutoff=cutoff) >= cutoff
    return lower


def screen(
    candidates: Sequence[ContextCandidate],
    *,
    is_core: NDArray[np.bool_],
    decayed: NDArray[np.bool_],
    superseded: NDArray[np.bool_],
    scores: NDArray[np.float64],
    values: NDArray[np.float64],
    thresholds: NDArray[np.float64],
    key_ids: NDArray[np.int64],
    key_text: Sequence[str],
    config: AssemblerConfig,
) -> tuple[NDArray[np.int8], dict[int, str]]:
    """Screen candidates given their columns.

    ``thresholds`` is each candidate's relevance threshold (:meth:`AssemblerConfig.threshold`);
    ``key_ids`` numbers the :func:`normalise`-d texts (equal keys, equal ids) and
    ``key_text[key_ids[i]]`` is candidate ``i``'s key. Returns per candidate a reason code (an
    index into :data:`REASONS`) or :data:`LIVE`, and details by index (``"duplicate of <id>"``,
    the threshold that was missed).
    """
    n = len(candidates)
    reasons = np.full(n, LIVE, dtype=np.int8)
    details: dict[int, str] = {}
    if n == 0:
        return reasons, details
    decayed = decayed & ~is_core
    superseded = superseded & ~is_core & ~decayed
    low = ((scores < thresholds) | (values <= 0)) & ~is_core & ~decayed & ~superseded
    reasons[decayed] = 0
    reasons[superseded] = 1
    reasons[low] = 2
    for i in np.flatnonzero(low).tolist():
        details[i] = f"< {thresholds[i]:g}" if scores[i] < thresholds[i] else "value 0"
    live = np.flatnonzero(reasons == LIVE)
    if live.size < 2:
        return reasons, details
    # Core first, then value descending, then input order: the first copy seen is kept.
    order = live[np.lexsort((live, -values[live], ~is_core[live]))]
    ids = key_ids[order]
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    if first.size < ids.size:  # exact duplicates: each points at its key's first copy
        twins = order[first[inverse]]
        duplicate = (twins != order) & ~is_core[order]
        for i, twin in zip(order[duplicate].tolist(), twins[duplicate].tolist(), strict=True):
            reasons[i] = 3
            details[i] = f"duplicate of {candidates[twin].id}"
        survivors_arr = order[~duplicate]
    else:
        survivors_arr = order
    window = min(config.fuzzy_window, survivors_arr.size)
    if window < 2 or config.duplicate_threshold >= 100.0:
        return reasons, details
    survivors = survivors_arr[:window].tolist()
    top = [key_text[k] for k in key_ids[survivors].tolist()]
    lower = _similar_pairs(top, config.duplicate_threshold)
    kept_mask = np.ones(window, dtype=np.bool_)
    for a in np.flatnonzero(lower.any(axis=1)).tolist():
        i = survivors[a]
        hits = np.flatnonzero(lower[a, :a] & kept_mask[:a])
        if hits.size and not is_core[i]:
            reasons[i] = 3
            details[i] = f"near-duplicate of {candidates[survivors[int(hits[0])]].id}"
            kept_mask[a] = False
    return reasons, details
