"""Columnar ranking of a recall batch: linear fusion and the priors for every query at once.

:meth:`remem.controller.recall.RecallPipeline._rank` ranks one query at a time with a ``Fused``
object, a feature dict and a factor dict per candidate (~50 a query), and builds the
explanation of each. Here the batch's ranked lists are flattened into one row ("slot") per
(query, fusion key) and one entry per (retriever, query, distinct key); the fusion features,
the fused score, the prior factors and the final score are numpy columns over all slots, the
order within each query is one ``lexsort`` (score descending, then key), and the ``Fused`` and
factor dicts behind a :class:`ScoredMemory` are built only for each query's returned ``k``.

The result is bit-identical to ``_rank`` (tested against it:
``tests/controller/test_columnar_rank.py``): every column is computed with the same IEEE
operations in the same order as the per-query code —

* ``scaled = (raw - lo) / span`` (1 when ``span`` is 0), ``rr = 1 / rank``, ``vector_cos =
  min(raw, 1)``; a feature the per-query row leaves out (``scaled == 0``, ``raw ≤ 0``) is a
  0 column here, whose ``w × 0 = +0.0`` leaves every sum unchanged (weights are ≥ 0);
* ``fused = Σ w_f · x_f`` accumulated in the features' name order, from ``+0.0``;
* ``final = fused × recency × usage × speaker × dates × time_expressions × answer_type``, left
  to right, then the conflicts' factor. The cue priors come from :func:`cue_factors` (what
  :func:`prior_factors` itself reads) for a query with any cue (a speaker, a date window, a
  time question, a category asked for); without cues those factors are 1 and only the
  memoised age priors are read.

Covered: ``linear`` fusion with no extra features, the ``sessions``, ``rerank`` and
``diversity`` stages off (the defaults); :func:`supports` says when, and recall falls back to
the per-query path otherwise.

Example::

    if supports(fusion, stages):
        results = rank_columnar(queries, gathered, fusion, stages, inclusion, memo, now, k)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from remem.controller.candidates import Candidate
from remem.controller.config import FusionConfig
from remem.controller.explanation import scored_memory
from remem.controller.fusion import Fused, RankedList
from remem.controller.stages import CandidateView, Keyed, query_cues
from remem.controller.stages.config import RecallStagesConfig
from remem.controller.stages.conflicts import resolve_conflicts
from remem.controller.stages.priors import cue_factors
from remem.lifecycle import InclusionScorerConfig
from remem.models import ScoredMemory

__all__ = ["Gathered", "PriorRow", "RecordMemo", "rank_columnar", "supports"]

RETRIEVERS = ("vector", "fulltext", "graph")
"""The ranked lists of :func:`remem.controller.candidates.gather`, in its order."""

Gathered = tuple[dict[str, Candidate], list[RankedList], dict[str, float]]
"""One query's :func:`remem.controller.candidates.gather` result."""


PriorRow = tuple[CandidateView, float, float, bool]
"""What the ranking reads of one candidate: its view, recency, usage, and whether it states a
keyed fact (only those can conflict)."""


class RecordMemo(Protocol):
    """What the batch memoises per stored memory (``remem.controller.recall._RecordMemo``)."""

    def row(self, c: Candidate) -> PriorRow: ...


def supports(fusion: FusionConfig, stages: RecallStagesConfig) -> bool:
    """Whether :func:`rank_columnar` covers this configuration (see the module docstring)."""
    return (
        fusion.method == "linear"
        and fusion.features is not None
        and not stages.sessions.enabled
        and not stages.rerank.enabled
        and not stages.diversity.enabled
    )


@dataclass(slots=True)
class _Entries:
    """One retriever's entries over the batch: the slot each names, its raw score, and the
    number of entries per query (distinct keys, best first)."""

    slots: list[int]
    raws: list[float]
    counts: list[int]


@dataclass(slots=True)
class _Columns:
    """A retriever's per-slot columns: rank (0 = not listed), raw score, features."""

    rank: NDArray[np.int64]
    raw: NDArray[np.float64]
    scaled: NDArray[np.float64]
    rr: NDArray[np.float64]


def _flatten(gathered: Sequence[Gathered]) -> tuple[list[str], list[int], list[_Entries]]:
    """Slot keys (per query, in the order fusion first meets them), slot counts per query, and
    each retriever's entries (a key listed twice by one retriever counts at its first place)."""
    keys: list[str] = []
    counts: list[int] = []
    entries = [_Entries([], [], []) for _ in RETRIEVERS]
    for _, lists, _ in gathered:
        base = len(keys)
        index: dict[str, int] = {}
        for ranked, out in zip(lists, entries, strict=True):
            items = ranked.items
            first = dict(items)
            if len(first) != len(items):
                first = {}
                for key, raw in items:
                    if key not in first:
                        first[key] = raw
            slots = out.slots
            for key in first:
                s = index.get(key)
                if s is None:
                    s = index[key] = base + len(index)
                    keys.append(key)
                slots.append(s)
            out.raws.extend(first.values())
            out.counts.append(len(first))
        counts.append(len(index))
    return keys, counts, entries


def _columns(e: _Entries, n: int, vector: bool) -> tuple[_Columns, NDArray[np.float64] | None]:
    """A retriever's columns over ``n`` slots (and ``vector_cos`` for the vector retriever)."""
    rank = np.zeros(n, dtype=np.int64)
    raw_col, scaled_col, rr_col = np.zeros(n), np.zeros(n), np.zeros(n)
    cos_col = np.zeros(n) if vector else None
    if e.slots:
        slots = np.asarray(e.slots, dtype=np.int64)
        raw = np.asarray(e.raws, dtype=np.float64)
        counts = np.asarray(e.counts, dtype=np.int64)
        present = counts > 0
        starts = np.cumsum(counts) - counts
        lo = np.repeat(np.minimum.reduceat(raw, starts[present]), counts[present])
        hi = np.repeat(np.maximum.reduceat(raw, starts[present]), counts[present])
        span = hi - lo
        wide = span > 0
        scaled = np.ones(len(raw))
        scaled[wide] = (raw[wide] - lo[wide]) / span[wide]
        ranks = np.arange(1, len(raw) + 1) - np.repeat(starts, counts)
        rank[slots] = ranks
        raw_col[slots] = raw
        scaled_col[slots] = np.where(scaled > 0.0, scaled, 0.0)
        rr_col[slots] = 1.0 / ranks
        if cos_col is not None:
            cos_col[slots] = np.where(raw > 0.0, np.minimum(raw, 1.0), 0.0)
    return _Columns(rank, raw_col, scaled_col, rr_col), cos_col


def rank_columnar(
    queries: Sequence[str],
    gathered: Sequence[Gathered],
    fusion: FusionConfig,
    stages: RecallStagesConfig,
    inclusion: InclusionScorerConfig,
    memo: RecordMemo,
    now: datetime,
    k: int,
) -> list[list[ScoredMemory]]:
    """Every query's top ``k`` (see the module docstring); ``gathered[i]`` is query i's."""
    weights = fusion.features
    assert weights is not None
    keys, counts, entries = _flatten(gathered)
    cols, named, fused = _fusion(entries, len(keys), weights)
    p = _priors(queries, gathered, keys, counts, stages, inclusion, memo, now)
    final = fused * p.recency * p.usage * p.speaker * p.dates * p.timed * p.typed
    conflict = _conflicts(keys, counts, p, final, stages)
    query_of = np.repeat(np.arange(len(counts)), counts)
    _, key_order = np.unique(np.asarray(keys, dtype=object), return_inverse=True)
    order = np.lexsort((key_order, -final, query_of))
    contributions = {name: _contribution(name, named, weights) for name in RETRIEVERS}
    typed = stages.answer_type.enabled  # its factor is listed only when the stage is on
    out: list[list[ScoredMemory]] = []
    s = 0
    for (_, _, shares), count in zip(gathered, counts, strict=True):
        hits = []
        for i in order[s : s + min(k, count)].tolist():
            f = _fused(keys[i], i, float(fused[i]), cols, named, contributions)
            factors = {
                "recency": float(p.recency[i]),
                "usage": float(p.usage[i]),
                "speaker": float(p.speaker[i]),
                "dates": float(p.dates[i]),
                "time_expressions": float(p.timed[i]),
            }
            if typed:
                factors["answer_type"] = float(p.typed[i])
            factors["sessions"] = 1.0  # the stage is off: every factor 1 (``session_factors``)
            if i in conflict:
                factors["conflict"] = conflict[i]
            share = shares.get(keys[i], 0.0)
            hits.append(
                scored_memory(p.candidates[i], float(final[i]), f, factors, share, now, fusion)
            )
        out.append(hits)
        s += count
    return out


def _fusion(
    entries: Sequence[_Entries], n: int, weights: Mapping[str, float]
) -> tuple[dict[str, _Columns], dict[str, NDArray[np.float64]], NDArray[np.float64]]:
    """Each retriever's columns, every named feature column, and the fused score per slot:
    ``Σ w_f · x_f`` in the features' name order, from ``+0.0``."""
    cols: dict[str, _Columns] = {}
    named: dict[str, NDArray[np.float64]] = {}
    for name, e in zip(RETRIEVERS, entries, strict=True):
        c, cos = _columns(e, n, name == "vector")
        cols[name] = c
        named[name], named[f"{name}_rr"] = c.scaled, c.rr
        if cos is not None:
            named["vector_cos"] = cos
    fused = np.zeros(n)
    for name in sorted(weights):
        x = named.get(name)
        if x is not None:
            fused = fused + weights[name] * x
    return cols, named, fused


@dataclass(slots=True)
class _Priors:
    """Per slot: its candidate, whether it states a keyed fact, and each prior's factor
    (``prior_factors``' names)."""

    candidates: list[Candidate]
    keyed: list[bool]
    recency: NDArray[np.float64]
    usage: NDArray[np.float64]
    speaker: NDArray[np.float64]
    dates: NDArray[np.float64]
    timed: NDArray[np.float64]
    typed: NDArray[np.float64]


def _priors(
    queries: Sequence[str],
    gathered: Sequence[Gathered],
    keys: Sequence[str],
    counts: Sequence[int],
    stages: RecallStagesConfig,
    inclusion: InclusionScorerConfig,
    memo: RecordMemo,
    now: datetime,
) -> _Priors:
    """The prior factors of every slot: the memoised age priors, and :func:`cue_factors`'
    speaker, dates, time and answer-type factors for the slots of a query with any cue
    (else 1)."""
    n = len(keys)
    speaker, dates, timed, typed = np.ones(n), np.ones(n), np.ones(n), np.ones(n)
    cands: list[Candidate] = []
    rows: list[PriorRow] = []
    s = 0
    for query, (candidates, _, _), count in zip(queries, gathered, counts, strict=True):
        for key in keys[s : s + count]:
            c = candidates[key]
            cands.append(c)
            rows.append(memo.row(c))
        views = [r[0] for r in rows[s:]]
        cues = query_cues(query, now, {v.speaker for v in views if v.speaker}, stages)
        if cues.speakers or cues.windows or cues.asks_time or cues.categories:
            for i, v in enumerate(views, start=s):
                speaker[i], dates[i], timed[i], typed[i] = cue_factors(
                    v.created_at, v.text, v.speaker, cues, stages
                )
        s += count
    return _Priors(
        cands,
        [r[3] for r in rows],
        np.fromiter((r[1] for r in rows), dtype=np.float64, count=n),
        np.fromiter((r[2] for r in rows), dtype=np.float64, count=n),
        speaker,
        dates,
        timed,
        typed,
    )


def _conflicts(
    keys: Sequence[str],
    counts: Sequence[int],
    p: _Priors,
    final: NDArray[np.float64],
    stages: RecallStagesConfig,
) -> dict[int, float]:
    """Apply the conflicts stage to ``final`` in place, per query; the factor of each slot it
    changed. Only keyed facts can be grouped, so only they are handed to the stage."""
    conflict: dict[int, float] = {}
    if not stages.conflicts.enabled:
        return conflict
    s = 0
    for count in counts:
        keyed = []
        slot_of: dict[str, int] = {}
        for i in range(s, s + count):
            if not p.keyed[i]:
                continue
            c = p.candidates[i]
            rec = c.record
            assert rec is not None  # only a memory states a keyed fact
            keyed.append(
                Keyed(keys[i], float(final[i]), c.created_at, rec.metadata, rec.valid_from)
            )
            slot_of[keys[i]] = i
        if len(keyed) > 1:
            for key, factor in resolve_conflicts(keyed, stages.conflicts).items():
                i = slot_of[key]
                conflict[i] = factor
                final[i] *= factor
        s += count
    return conflict


def _contribution(
    retriever: str, named: Mapping[str, NDArray[np.float64]], weights: Mapping[str, float]
) -> NDArray[np.float64]:
    """Per slot, the retriever's part of the fused score: its features' weighted values summed
    in name order (``linear_fusion``'s ``acc``; an unweighted feature adds ``0 × x``)."""
    acc = np.zeros(len(named[retriever]))
    for name in sorted(named):
        if name == retriever or name.startswith(f"{retriever}_"):
            acc = acc + weights.get(name, 0.0) * named[name]
    return acc


def _fused(
    key: str,
    i: int,
    score: float,
    cols: Mapping[str, _Columns],
    named: Mapping[str, NDArray[np.float64]],
    contributions: Mapping[str, NDArray[np.float64]],
) -> Fused:
    """The ``Fused`` of slot ``i`` as ``linear_fusion`` builds it (parts and features in the
    lists' order)."""
    f = Fused(key, score)
    for name, c in cols.items():
        rank = int(c.rank[i])
        if not rank:
            continue
        f.parts[name] = (rank, float(c.raw[i]), float(contributions[name][i]))
        scaled = float(c.scaled[i])
        if scaled != 0.0:
            f.features[name] = scaled
        f.features[f"{name}_rr"] = float(c.rr[i])
        if name == "vector":
            cos = float(named["vector_cos"][i])
            if cos != 0.0:
                f.features["vector_cos"] = cos
    return f
