"""The recall pipeline: retrieve, filter, fuse, apply inclusion factors, explain.

For a batch of queries sharing the same options (``recall`` is a batch of one, so ``recall`` and
``recall_many`` give identical results):

1. **vector** — ONE ``CollectionManager.query_scores`` with the (q, d) batch over the requested
   staged collections (each stage's similarity floor applied; the vector store runs the native
   batched top-k and returns ids and scores only — no document/metadata read), ``where`` = the
   caller's ``filters``;
2. **fulltext** — per query, the episodic store's BM25 (SQLite FTS5) or ts_rank (PostgreSQL)
   in ONE ``search_many`` batch (SQLite runs it on parallel read-only connections, PostgreSQL
   on its pool) over turns and memory notes (``remember`` writes a note with the memory's id,
   so full text finds memories too and a memory found by both retrievers is fused under one key);
3. **graph** — per query, entities named in the query (:class:`QueryEntityMatcher`) and the
   paths from them (:class:`GraphScorer`).

The three run concurrently, and the query batch may still be encoding when ``run`` starts (it
takes the encode as an awaitable): full text, the graph, the neighbour expansion and the
prior-aware cut go on meanwhile; only the vector search waits for it.

Eligibility is decided by the record store, the source of truth, *before* fusion (so ranks count
eligible items only): a memory is recalled only if it exists, is not superseded, its stage is
requested (default short_term + long_term; ``include_decayed`` adds decayed; deleted never) and
``filters`` match :func:`remem.staging.record_metadata` of the record (kind, namespace, stage,
session_id) — the same metadata the vector store filters on, so every retriever obeys one rule.

Two kinds of results are synthetic (``record.metadata["source"]`` and ``sources`` tell context
assembly which is which):

* **turn** — an episodic turn hit (only when ``episodic`` is among the stages): a record with
  the turn's id, stage ``episodic``, kind ``note``, text ``"user: …\\nassistant: …"``, its
  session_id and the turn's created_at; metadata ``{"source": "turn", "turn_number": n}``.
  With ``session_id`` given, turns come from that session only (memories are never
  session-scoped by it: use ``filters={"session_id": ...}``);
* **graph** — a path from a named entity (only when ``long_term`` is among the stages: the
  graph is durable knowledge): id ``graph:<entity id>``, kind ``fact``, stage ``long_term``,
  text = the rendered relationship facts, one per line, created_at = the newest relationship's;
  metadata ``{"source": "graph", "entity_id": …, "start_entity_id": …}``; usage = the
  entity's access count.

Where each part lives: the retrievers and the eligibility check in
:mod:`remem.controller.retrieval`; candidates and the synthetic records in
:mod:`remem.controller.candidates`; signals and the explanation in
:mod:`remem.controller.explanation`; the stage wiring (fusion, then each prior stage of
:mod:`remem.controller.stages`) in :meth:`RecallPipeline._rank` below, which ranks one query;
for the default configuration the whole batch is ranked at once as numpy columns
(:mod:`remem.controller.columnar`, bit-identical to ``_rank``).

Fusion (:mod:`remem.controller.fusion`; default: linear fusion with the weights fitted for the
embedder in use, :func:`remem.controller.config.fitted_weights`, resolved once at construction).
With ``FusionConfig.merge_copies`` (default) a turn whose words are exactly a candidate memory's
(an utterance recorded as a turn and remembered as a memory) joins that memory's candidate — the
memory is returned, once, with the better of the two full-text ranks — so two copies of one
utterance neither split its votes nor take two of the ``k`` places.

Before fusion, full-text turn hits gain a share of their session neighbours' scores (the
``neighbours`` stage; full text is searched ``depth_factor`` × deeper for it), and the
neighbours of the best turn hits that full text missed are read from the transcript store (when
the controller has one) and join the list with their share as their score. After fusion,
``final = fused × recency × usage × speaker × dates × time_expressions × sessions`` — bounded
priors (:mod:`remem.controller.stages`; ``sessions`` is off by default): ``recency = 1 − a +
a · exp(-recency_rate · hours since creation)`` never falls below ``1 − a`` (a = 0.05), so age
re-orders near-ties and never buries a match; then among memories stating different values of
one keyed fact the newest wins (``conflict``). Every factor is in ``signals``;
``explanation`` renders them. Ties are broken by id (with the ``diversity`` stage on, the
order is MMR over sessions; with ``rerank`` on, the best ``depth`` candidates are first
re-ordered by the fitted dot product, before the conflicts, so the newest value still
wins). Off by default and measured in the README: ``feedback`` (full-text pseudo-relevance
feedback) and ``dense_feedback`` (Rocchio on the query vector), both before fusion, and
``rerank``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
from numpy.typing import NDArray

from remem.controller.candidates import Candidate, gather, session_of, view
from remem.controller.columnar import PriorRow, rank_columnar, supports
from remem.controller.config import ControllerConfig
from remem.controller.explanation import scored_memory
from remem.controller.fusion import fuse
from remem.controller.recall_options import RecallOptions
from remem.controller.retrieval import Retrieval
from remem.controller.stages import (
    CandidateView,
    Keyed,
    NeighbourScored,
    RerankRow,
    age_priors,
    cut_texts,
    cut_vector,
    dense_feedback,
    diversify,
    expand_neighbours,
    prior_factors,
    query_cues,
    rerank_factors,
    resolve_conflicts,
    session_factors,
    vector_docs,
    with_feedback,
)
from remem.controller.stages.config import RecallStagesConfig
from remem.controller.stages.conflicts import keyed_fact
from remem.graph import GraphHit, GraphScorer, QueryEntityMatcher
from remem.lifecycle import InclusionScorerConfig
from remem.models import EpisodeKind, MemoryRecord, ScoredMemory
from remem.staging import CollectionManager, StagedScore
from remem.stores.episodic import EpisodicStore
from remem.stores.records import RecordStore
from remem.stores.transcript import TranscriptStore

__all__ = ["RecallOptions", "RecallPipeline"]


async def _all_or_none(*steps: Awaitable[Any]) -> list[Any]:
    """Every step's result, as ``asyncio.gather``; when one fails, or the caller is cancelled,
    the others are cancelled and awaited before the error propagates, so no search of a recall
    (nor its query encode) outlives it."""
    tasks = [asyncio.ensure_future(step) for step in steps]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
        raise


class RecallPipeline:
    """Runs recall batches over the controller's stores (see the module docstring)."""

    def __init__(
        self,
        *,
        record_store: RecordStore,
        episodic_store: EpisodicStore,
        collection_manager: CollectionManager,
        matcher: QueryEntityMatcher | None,
        graph_scorer: GraphScorer | None,
        config: ControllerConfig,
        transcript_store: TranscriptStore | None = None,
    ) -> None:
        self.retrieval = Retrieval(
            record_store=record_store,
            episodic_store=episodic_store,
            collection_manager=collection_manager,
            matcher=matcher,
            graph_scorer=graph_scorer,
            transcript_store=transcript_store,
        )
        self.config = config
        # The fitted fusion weights depend on the embedder (lexical or semantic): resolved once.
        self.fusion = config.fusion.for_embedder(collection_manager.embeddings.model_name)
        # The batch is ranked as numpy columns (remem.controller.columnar) wherever that covers
        # the configuration; False ranks query by query (the reference the columnar path equals).
        self.columnar = True

    async def run(
        self,
        queries: Sequence[str],
        vectors: NDArray[np.float32] | Awaitable[NDArray[np.float32]],
        options: RecallOptions,
        now: datetime,
    ) -> list[list[ScoredMemory]]:
        """Every query's ranked memories. ``vectors``: the ``(len(queries), dim)`` query batch,
        or an awaitable of it (the query encode, still running): the full text, the graph, the
        neighbour expansion and the prior-aware cut do not need it, so they run while it is
        computed (with ``feedback`` on, the full-text side waits for the vector hits)."""
        r = self.retrieval
        depth = max(options.k, self.config.candidates)
        pd = self.config.stages.prior_depth
        vector_depth = depth * pd.vector_factor if pd.enabled else depth
        vector_side = asyncio.ensure_future(self._vector_hits(vectors, vector_depth, options))
        vec, ranked_texts, graphs = await _all_or_none(
            vector_side,
            self._text_hits(queries, depth, options, now, vector_side),
            asyncio.gather(*(r.graph(q, depth, options, now) for q in queries)),
        )
        stages, inclusion = self.config.stages, self.config.inclusion
        wanted = {m.id for ms in vec for m in ms}
        wanted |= {n.hit.id for ns in ranked_texts for n in ns if n.hit.kind is EpisodeKind.NOTE}
        records = await r.eligible(sorted(wanted), options)
        if pd.enabled and pd.vector_factor > 1:
            vec = [
                cut_vector(q, v, records, depth, now, stages, inclusion)
                for q, v in zip(queries, vec, strict=True)
            ]
        memo = _RecordMemo(now, stages, inclusion)
        if self.columnar and supports(self.fusion, stages):
            return self._rank_batch(queries, vec, ranked_texts, graphs, records, options, now, memo)
        return [
            self._rank(q, v, t, g, records, options, now, memo)
            for q, v, t, g in zip(queries, vec, ranked_texts, graphs, strict=True)
        ]

    async def _vector_hits(
        self,
        vectors: NDArray[np.float32] | Awaitable[NDArray[np.float32]],
        depth: int,
        options: RecallOptions,
    ) -> list[list[StagedScore]]:
        """The vector hits of the query batch (awaited when it is still being encoded), after
        ``dense_feedback`` (off: as found)."""
        r = self.retrieval
        batch = vectors if isinstance(vectors, np.ndarray) else await vectors
        vec = await r.vectors(batch, depth, options)
        # ``dense_feedback``: the query vectors move towards their best hits' (off: as is).
        return await dense_feedback(
            batch,
            vec,
            self.config.stages.dense_feedback,
            r.collections.vectors,
            lambda more: r.vectors(more, depth, options),
        )

    async def _text_hits(
        self,
        queries: Sequence[str],
        depth: int,
        options: RecallOptions,
        now: datetime,
        vector_side: Awaitable[list[list[StagedScore]]],
    ) -> list[list[NeighbourScored]]:
        """Every query's full-text hits, with feedback, neighbour expansion and the prior-aware
        cut to ``depth``: everything of full text that comes before eligibility."""
        r = self.retrieval
        stages = self.config.stages
        nb, pd, fb = stages.neighbours, stages.prior_depth, stages.feedback
        text_depth = depth * max(
            nb.depth_factor if nb.enabled else 1, pd.depth_factor if pd.enabled else 1
        )
        texts = await r.texts(queries, text_depth, options)
        if fb.enabled:
            # ``feedback``: the best hits' words searched again, merged down-weighted.
            vec = await vector_side
            texts = await with_feedback(
                queries,
                texts,
                fb,
                lambda qs: r.texts(qs, text_depth, options),
                await vector_docs(vec, fb, lambda ids: r.eligible(ids, options)),
            )
        if r.transcripts is not None and nb.enabled and nb.expand:
            texts = list(
                await asyncio.gather(*(expand_neighbours(t, nb, r.read_turns) for t in texts))
            )
        # Neighbour shares re-rank the deeper list, which is then cut back to ``depth`` BEFORE
        # eligibility, so only the notes that can rank are read from the record store.
        # ``prior_depth``: the query's speaker / date / time cues choose what survives the cut.
        return [
            cut_texts(q, t, depth, now, stages, self.config.inclusion)
            for q, t in zip(queries, texts, strict=True)
        ]

    def _rank_batch(
        self,
        queries: Sequence[str],
        vec: Sequence[Sequence[StagedScore]],
        texts: Sequence[Sequence[NeighbourScored]],
        graphs: Sequence[Sequence[GraphHit]],
        records: Mapping[str, MemoryRecord],
        options: RecallOptions,
        now: datetime,
        memo: _RecordMemo,
    ) -> list[list[ScoredMemory]]:
        """Every query ranked at once (:mod:`remem.controller.columnar`); equal to ``_rank``."""
        merge = self.fusion.merge_copies
        gathered = [
            gather(v, t, g, records, options, merge_copies=merge, texts=memo.texts)
            for v, t, g in zip(vec, texts, graphs, strict=True)
        ]
        return rank_columnar(
            queries,
            gathered,
            self.fusion,
            self.config.stages,
            self.config.inclusion,
            memo,
            now,
            options.k,
        )

    def _rank(
        self,
        query: str,
        vec: Sequence[StagedScore],
        text: Sequence[NeighbourScored],
        graph: Sequence[GraphHit],
        records: Mapping[str, MemoryRecord],
        options: RecallOptions,
        now: datetime,
        memo: _RecordMemo,
    ) -> list[ScoredMemory]:
        stages = self.config.stages
        candidates, lists, shares = gather(
            vec,
            text,
            graph,
            records,
            options,
            merge_copies=self.fusion.merge_copies,
            texts=memo.texts,
        )
        # Seam for priors computed before fusion: ``extras[key][name]`` is a feature that the
        # linear fusion weighs by ``config.fusion.features[name]`` (none are computed yet).
        extras: dict[str, dict[str, float]] = {}
        fused = fuse(lists, self.fusion, extras)
        views = {key: memo.view(candidates[key]) for key in fused}
        cues = query_cues(query, now, {v.speaker for v in views.values() if v.speaker}, stages)
        factors: dict[str, dict[str, float]] = {}
        finals: dict[str, float] = {}
        for key, f in fused.items():
            factors[key] = prior_factors(
                views[key], cues, now, stages, self.config.inclusion, memo.ages(key, views[key])
            )
            final = f.score
            for value in factors[key].values():
                final *= value
            finals[key] = final
        sessions = {key: session_of(candidates[key]) for key in fused}
        for key, factor in session_factors(finals, sessions, stages.sessions).items():
            factors[key]["sessions"] = factor
            finals[key] *= factor
        # ``rerank`` (off: nothing): the best candidates re-ordered by the fitted dot product.
        # Before the conflicts, so a superseded value it lifts is still capped below the newest.
        if stages.rerank.enabled:
            rows = [
                RerankRow(
                    key,
                    finals[key],
                    _part(fused[key].parts.get("fulltext")),
                    _part(fused[key].parts.get("vector")),
                    shares.get(key, 0.0),
                    factors[key]["speaker"],
                    factors[key]["dates"],
                    factors[key]["time_expressions"],
                    sessions[key],
                    views[key].text,
                    candidates[key].turn is not None,
                )
                for key in fused
            ]
            for key, factor in rerank_factors(query, rows, stages.rerank).items():
                factors[key]["rerank"] = factor
                finals[key] *= factor
        keyed = [
            Keyed(key, finals[key], candidates[key].created_at, rec.metadata, rec.valid_from)
            for key in fused
            if (rec := candidates[key].record) is not None
        ]
        for key, factor in resolve_conflicts(keyed, stages.conflicts).items():
            factors[key]["conflict"] = factor
            finals[key] *= factor
        # ``diversity`` (off: the plain order by score, then key): MMR over sessions.
        order, placed = diversify(finals, sessions, stages.diversity, options.k)
        if stages.diversity.enabled:
            for key, factor in placed.items():
                factors[key]["diversity"] = factor
                finals[key] *= factor
        return [
            scored_memory(
                candidates[key],
                finals[key],
                fused[key],
                factors[key],
                shares.get(key, 0.0),
                now,
                self.fusion,
            )
            for key in order[: options.k]
        ]


def _part(part: tuple[int, float, float] | None) -> tuple[int, float] | None:
    """A fusion part's ``(rank, raw score)``, as the re-ranker reads it."""
    return None if part is None else (part[0], part[1])


class _RecordMemo:
    """What one batch computes once per stored memory, however many queries rank it: its
    candidate view, its age priors (recency, usage — they read the record and ``now``, never the
    query) and its folded text for copy merging. Turns and graph paths are not memoised (their
    candidate is built from each query's own hit)."""

    __slots__ = ("_ages", "_rows", "_views", "config", "inclusion", "now", "texts")

    def __init__(self, now: datetime, config: RecallStagesConfig, inclusion: InclusionScorerConfig):
        self.now, self.config, self.inclusion = now, config, inclusion
        self.texts: dict[str, str] = {}
        self._views: dict[str, CandidateView] = {}
        self._ages: dict[str, tuple[float, float]] = {}
        self._rows: dict[str, PriorRow] = {}

    def row(self, c: Candidate) -> PriorRow:
        """What the columnar ranking reads of a candidate: its view, recency, usage and whether
        it states a keyed fact (``keyed_fact``) — one lookup per memory and query."""
        if c.record is None:
            v = view(c)
            return v, *age_priors(v, self.now, self.config, self.inclusion), False
        r = self._rows.get(c.key)
        if r is None:
            v = self.view(c)
            recency, usage = self.ages(c.key, v)
            r = self._rows[c.key] = (v, recency, usage, keyed_fact(c.record.metadata))
        return r

    def view(self, c: Candidate) -> CandidateView:
        if c.record is None:
            return view(c)
        v = self._views.get(c.key)
        if v is None:
            v = self._views[c.key] = view(c)
        return v

    def ages(self, key: str, v: CandidateView) -> tuple[float, float]:
        # Keyed by the view object too: only a memoised (record) view is looked up by key.
        if self._views.get(key) is not v:
            return age_priors(v, self.now, self.config, self.inclusion)
        a = self._ages.get(key)
        if a is None:
            a = self._ages[key] = age_priors(v, self.now, self.config, self.inclusion)
        return a
