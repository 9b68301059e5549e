"""Candidate screening: decayed, superseded, below-threshold and near-duplicate items go first.

Order: decayed, then superseded, then the relevance threshold (``score < threshold`` or a packing
value ≤ 0), then near-duplicates among what is left. Core-memory items are never screened out:
they are always kept when present.

Near-duplicates (documented threshold): two items are duplicates when their *normalised* texts
(case-folded, punctuation dropped, whitespace collapsed) are equal — checked for every candidate
in O(n) by hashing — or, among the ``fuzzy_window`` highest-valued candidates, when
``rapidfuzz.fuzz.ratio`` of the normalised texts is ≥ ``duplicate_threshold`` (default 92). The
fuzzy pass is windowed because all-pairs similarity is quadratic; the items beyond the window
are the least likely to be kept anyway. The copy with the higher value is kept (core first; on
ties the earlier candidate), and the other is reported as ``duplicate of <id>``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import fuzz, process

from remem.context.assembled import DropReason
from remem.context.candidates import ContextCandidate
from remem.context.config import AssemblerConfig
from remem.context.sections import Section

__all__ = ["normalise", "screen"]

_NON_WORD = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Case-folded words separated by single spaces: the duplicate key."""
    return _NON_WORD.sub(" ", text.casefold()).strip()


def screen(
    candidates: Sequence[ContextCandidate], values: NDArray[np.float64], config: AssemblerConfig
) -> dict[int, tuple[DropReason, str]]:
    """Indices of the candidates to drop before packing, each with its reason and detail."""
    drops: dict[int, tuple[DropReason, str]] = {}
    live: list[int] = []
    for i, c in enumerate(candidates):
        if c.section is Section.CORE_MEMORY:
            live.append(i)
        elif c.decayed:
            drops[i] = (DropReason.DECAYED, "")
        elif c.superseded:
            drops[i] = (DropReason.SUPERSEDED, "")
        elif c.score < config.threshold(c.section) or values[i] <= 0:
            drops[i] = (DropReason.BELOW_THRESHOLD, f"< {config.threshold(c.section):g}")
        else:
            live.append(i)
    if len(live) < 2:
        return drops
    # Core first, then value descending, then input order: the first copy seen is kept.
    live.sort(key=lambda i: (candidates[i].section is not Section.CORE_MEMORY, -values[i], i))
    keys = [normalise(candidates[i].text) for i in live]
    seen: dict[str, int] = {}
    survivors: list[int] = []
    survivor_keys: list[str] = []
    for i, key in zip(live, keys, strict=True):
        first = seen.get(key)
        if first is not None and candidates[i].section is not Section.CORE_MEMORY:
            drops[i] = (DropReason.DUPLICATE, f"duplicate of {candidates[first].id}")
            continue
        seen.setdefault(key, i)
        survivors.append(i)
        survivor_keys.append(key)
    window = min(config.fuzzy_window, len(survivors))
    if window < 2 or config.duplicate_threshold >= 100.0:
        return drops
    top = survivor_keys[:window]
    sims = process.cdist(
        top, top, scorer=fuzz.ratio, score_cutoff=config.duplicate_threshold, dtype=np.uint8
    )
    lower = np.tril(sims, -1) > 0
    kept_mask = np.ones(window, dtype=np.bool_)
    for a in np.flatnonzero(lower.any(axis=1)).tolist():
        i = survivors[a]
        hits = np.flatnonzero(lower[a, :a] & kept_mask[:a])
        if hits.size and candidates[i].section is not Section.CORE_MEMORY:
            twin = candidates[survivors[int(hits[0])]].id
            drops[i] = (DropReason.DUPLICATE, f"near-duplicate of {twin}")
            kept_mask[a] = False
    return drops
