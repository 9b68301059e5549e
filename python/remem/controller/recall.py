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
``explanation`` renders them. Ties are broken by id.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from numpy.typing import NDArray

from remem.controller.config import ControllerConfig
from remem.controller.fusion import Fused, RankedList, describe_fusion, fuse
from remem.controller.stages import (
    CandidateView,
    Keyed,
    NeighbourScored,
    cut_vector,
    expand_neighbours,
    prior_cut,
    prior_factors,
    propagate_neighbours,
    query_cues,
    resolve_conflicts,
    session_factors,
    speaker_of,
)
from remem.errors import NotFoundError
from remem.graph import GraphHit, GraphScorer, QueryEntityMatcher
from remem.models import (
    EpisodeKind,
    EpisodicHit,
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    ScoredMemory,
)
from remem.models.base import trusted
from remem.staging import STAGED, CollectionManager, StagedScore, record_metadata
from remem.stores.episodic import EpisodicStore, search_many, turn_text
from remem.stores.filters import Filter, matches
from remem.stores.records import RecordStore
from remem.stores.transcript import TranscriptStore
from remem.stores.vector import Where
from remem.writebehind.direct import USER_CHARS_KEY


@dataclass(frozen=True, slots=True)
class RecallOptions:
    """Validated options shared by every query of one recall batch."""

    k: int
    memory_stages: tuple[MemoryStage, ...]
    episodic: bool
    session_id: str | None
    where: Where | None
    where_node: Filter | None
    namespace: str = "default"
    sources: frozenset[str] = frozenset(("vector", "fulltext", "graph"))
    """The retrievers to run (``recall(sources=...)``); the others contribute nothing."""


@dataclass(slots=True)
class _Candidate:
    key: str
    created_at: datetime
    access_count: int
    record: MemoryRecord | None = None
    turn: EpisodicHit | None = None
    graph: GraphHit | None = None


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
        self.records = record_store
        self.transcripts = transcript_store
        self.episodic = episodic_store
        self.collections = collection_manager
        self.matcher = matcher
        self.graph_scorer = graph_scorer
        self.config = config
        # The fitted fusion weights depend on the embedder (lexical or semantic): resolved once.
        self.fusion = config.fusion.for_embedder(collection_manager.embeddings.model_name)

    async def run(
        self,
        queries: Sequence[str],
        vectors: NDArray[np.float32],
        options: RecallOptions,
        now: datetime,
    ) -> list[list[ScoredMemory]]:
        depth = max(options.k, self.config.candidates)
        nb = self.config.stages.neighbours
        pd = self.config.stages.prior_depth
        text_depth = depth * max(
            nb.depth_factor if nb.enabled else 1, pd.depth_factor if pd.enabled else 1
        )
        staged = [s for s in options.memory_stages if s in STAGED]

        async def vector_hits() -> list[list[StagedScore]]:
            if not staged or "vector" not in options.sources:
                return [[] for _ in queries]
            # Ids and scores only: the records are read from the record store below.
            k = depth * pd.vector_factor if pd.enabled else depth
            return await self.collections.query_scores(
                vectors, k=k, stages=staged, where=options.where
            )

        vec, texts, graphs = await asyncio.gather(
            vector_hits(),
            self._texts(queries, text_depth, options),
            asyncio.gather(*(self._graph(q, depth, options, now) for q in queries)),
        )
        if self.transcripts is not None and nb.enabled and nb.expand:
            texts = list(
                await asyncio.gather(*(expand_neighbours(t, nb, self._read_turns) for t in texts))
            )
        # Neighbour shares re-rank the deeper list, which is then cut back to ``depth`` BEFORE
        # eligibility, so only the notes that can rank are read from the record store.
        # ``prior_depth``: the query's speaker / date / time cues choose what survives the cut.
        stages, inclusion = self.config.stages, self.config.inclusion
        ranked_texts = [
            prior_cut(q, propagate_neighbours(t, nb), depth, now, stages, inclusion)
            for q, t in zip(queries, texts, strict=True)
        ]
        wanted = {m.id for ms in vec for m in ms}
        wanted |= {n.hit.id for ns in ranked_texts for n in ns if n.hit.kind is EpisodeKind.NOTE}
        records = await self._eligible(sorted(wanted), options)
        if pd.enabled and pd.vector_factor > 1:
            vec = [
                cut_vector(q, v, records, depth, now, stages, inclusion)
                for q, v in zip(queries, vec, strict=True)
            ]
        return [
            self._rank(q, v, t, g, records, options, now)
            for q, v, t, g in zip(queries, vec, ranked_texts, graphs, strict=True)
        ]

    async def _texts(
        self, queries: Sequence[str], depth: int, options: RecallOptions
    ) -> list[list[EpisodicHit]]:
        """Every query's full-text hits, as ONE batch per search (the store may parallelise)."""
        if "fulltext" not in options.sources:
            return [[] for _ in queries]
        if options.session_id is None or not options.episodic:
            batch = await search_many(self.episodic, queries, limit=depth)
            return [
                [h for h in hits if options.episodic or h.kind is EpisodeKind.NOTE]
                for hits in batch
            ]
        everywhere, session = await asyncio.gather(
            search_many(self.episodic, queries, limit=depth),
            search_many(self.episodic, queries, limit=depth, session_id=options.session_id),
        )
        out: list[list[EpisodicHit]] = []
        for notes, turns in zip(everywhere, session, strict=True):
            merged = [h for h in notes if h.kind is EpisodeKind.NOTE]
            merged += [h for h in turns if h.kind is EpisodeKind.TURN]
            out.append(sorted(merged, key=lambda h: (-h.score, -h.created_at.timestamp(), h.id)))
        return out

    async def _read_turns(self, session_id: str, first: int, last: int) -> list[EpisodicHit]:
        """Turns ``first..last`` of a session from the transcript, as score-0 turn hits."""
        assert self.transcripts is not None
        try:
            entries = await self.transcripts.get_entries(
                session_id, since_turn=first - 1, limit=last - first + 1
            )
        except NotFoundError:
            return []
        return [
            EpisodicHit(
                id=e.id,
                kind=EpisodeKind.TURN,
                session_id=e.session_id,
                turn_number=e.turn_number,
                text=turn_text(e),
                score=0.0,
                created_at=e.created_at,
                metadata={**e.metadata, USER_CHARS_KEY: len(e.user_message)},
            )
            for e in entries
            if turn_text(e)
        ]

    async def _graph(
        self, query: str, depth: int, options: RecallOptions, now: datetime
    ) -> list[GraphHit]:
        if (
            "graph" not in options.sources
            or self.matcher is None
            or self.graph_scorer is None
            or MemoryStage.LONG_TERM not in options.memory_stages
        ):
            return []
        mentions = await self.matcher.match(query, namespace=options.namespace)
        if not mentions:
            return []
        return await self.graph_scorer.score(query, mentions, at=now, limit=depth)

    async def _eligible(
        self, ids: Sequence[str], options: RecallOptions
    ) -> dict[str, MemoryRecord]:
        if not ids:
            return {}
        try:
            found = await self.records.get(ids)
        except NotFoundError:
            # A vector or note whose record is gone (e.g. a compensated write): skip it.
            found = []
            for i in ids:
                try:
                    found += await self.records.get([i])
                except NotFoundError:
                    continue
        allowed = set(options.memory_stages)
        return {
            r.id: r
            for r in found
            if r.superseded_by is None
            and r.lifecycle.stage in allowed
            and matches(options.where_node, record_metadata(r))
        }

    def _rank(
        self,
        query: str,
        vec: Sequence[StagedScore],
        text: Sequence[NeighbourScored],
        graph: Sequence[GraphHit],
        records: Mapping[str, MemoryRecord],
        options: RecallOptions,
        now: datetime,
    ) -> list[ScoredMemory]:
        stages = self.config.stages
        candidates: dict[str, _Candidate] = {}

        def memory(key: str) -> bool:
            record = records.get(key)
            if record is None:
                return False
            if key not in candidates:
                lc = record.lifecycle
                candidates[key] = _Candidate(key, lc.created_at, lc.access_count, record=record)
            return True

        vector_list = [(m.id, m.score) for m in vec if memory(m.id)]
        for n in text:
            if n.hit.kind is EpisodeKind.NOTE:
                memory(n.hit.id)
        copies: dict[str, str] = {}
        if self.fusion.merge_copies:
            # The first memory of a text wins (candidates' order is the retrievers'), so the
            # merge is deterministic when two memories share a text.
            for key, c in candidates.items():
                if c.record is not None:
                    copies.setdefault(_same_text(c.record.text), key)
        text_list: list[tuple[str, float]] = []
        shares: dict[str, float] = {}
        listed: set[str] = set()
        for n in text:
            h = n.hit
            key = h.id
            if h.kind is EpisodeKind.NOTE:
                if key not in candidates:
                    continue
            elif not _turn_allowed(h, options):
                continue
            elif copies:
                key = copies.get(_same_text(_turn_utterance(h)), h.id)
            if key in listed:
                continue  # a memory's note and its turn copy: one entry, at the better rank
            if key not in candidates:
                candidates[key] = _Candidate(key, h.created_at, 0, turn=h)
            listed.add(key)
            text_list.append((key, n.score))
            shares[key] = n.share
        graph_list: list[tuple[str, float]] = []
        for hit in graph:
            key = f"graph:{hit.entity.id}"
            created = max(r.created_at for r in hit.path)
            cand = _Candidate(key, created, hit.entity.access_count, graph=hit)
            if options.where_node is None or matches(
                options.where_node, record_metadata(_graph_record(cand))
            ):
                candidates[key] = cand
                graph_list.append((key, hit.score))
        lists = [
            RankedList("vector", vector_list),
            RankedList("fulltext", text_list),
            RankedList("graph", graph_list),
        ]
        # Seam for priors computed before fusion: ``extras[key][name]`` is a feature that the
        # linear fusion weighs by ``config.fusion.features[name]`` (none are computed yet).
        extras: dict[str, dict[str, float]] = {}
        fused = fuse(lists, self.fusion, extras)
        views = {key: _view(candidates[key]) for key in fused}
        cues = query_cues(query, now, {v.speaker for v in views.values() if v.speaker}, stages)
        factors: dict[str, dict[str, float]] = {}
        finals: dict[str, float] = {}
        for key, f in fused.items():
            factors[key] = prior_factors(views[key], cues, now, stages, self.config.inclusion)
            final = f.score
            for value in factors[key].values():
                final *= value
            finals[key] = final
        sessions = {key: _session(candidates[key]) for key in fused}
        for key, factor in session_factors(finals, sessions, stages.sessions).items():
            factors[key]["sessions"] = factor
            finals[key] *= factor
        keyed = [
            Keyed(key, finals[key], candidates[key].created_at, rec.metadata, rec.valid_from)
            for key in fused
            if (rec := candidates[key].record) is not None
        ]
        for key, factor in resolve_conflicts(keyed, stages.conflicts).items():
            factors[key]["conflict"] = factor
            finals[key] *= factor
        order = sorted(fused, key=lambda key: (-finals[key], key))
        return [
            self._result(
                candidates[key], finals[key], fused[key], factors[key], shares.get(key, 0.0), now
            )
            for key in order[: options.k]
        ]

    def _result(
        self,
        c: _Candidate,
        final: float,
        f: Fused,
        factors: Mapping[str, float],
        share: float,
        now: datetime,
    ) -> ScoredMemory:
        hours = max(0.0, (now - c.created_at).total_seconds() / 3600.0)
        recency, usage = factors["recency"], factors["usage"]
        signals: dict[str, float] = {}
        for name, (rank, raw, part) in f.parts.items():
            signals[name] = float(raw)
            signals[f"{name}_rank"] = float(rank)
            signals[f"{name}_fused"] = float(part)
        signals.update(
            fusion=f.score,
            inclusion=recency * usage,
            age_hours=hours,
            access_count=float(c.access_count),
            neighbours=share,
            conflict=1.0,
        )
        signals.update(factors)
        record = c.record
        if record is None:
            record = _turn_record(c) if c.turn is not None else _graph_record(c)
        explanation = (
            f"{final:.4g} = fusion {f.score:.4g} [{describe_fusion(f, self.fusion)}]"
            f" × recency {recency:.3f} ({hours:.1f} h old)"
            f" × usage {usage:.3f} ({c.access_count} accesses)"
        )
        for name, value in factors.items():
            if name not in ("recency", "usage") and value != 1.0:
                explanation += f" × {name} {value:.3g}"
        if share:
            explanation += f"; fulltext includes neighbours +{share:.3g}"
        if c.graph is not None:
            explanation += f"; graph: {c.graph.explanation}"
        # Trusted: every value was computed here from validated store rows (finite scores).
        return trusted(
            ScoredMemory,
            {
                "record": record,
                "score": final,
                "signals": signals,
                "sources": tuple(sorted(f.parts)),
                "explanation": explanation,
            },
        )


def _session(c: _Candidate) -> str | None:
    if c.record is not None:
        return c.record.session_id
    return c.turn.session_id if c.turn is not None else None


def _view(c: _Candidate) -> CandidateView:
    if c.record is not None:
        text, meta = c.record.text, c.record.metadata
    elif c.turn is not None:
        text, meta = c.turn.text, c.turn.metadata
    else:
        assert c.graph is not None
        text, meta = "\n".join(c.graph.facts()), {}
    return CandidateView(c.created_at, c.access_count, text, speaker_of(meta))


def _turn_allowed(hit: EpisodicHit, options: RecallOptions) -> bool:
    if options.session_id is not None and hit.session_id != options.session_id:
        return False
    meta: dict[str, Any] = {"kind": "note", "namespace": "default", "stage": "episodic"}
    if hit.session_id is not None:
        meta["session_id"] = hit.session_id
    return matches(options.where_node, meta)


def _same_text(text: str) -> str:
    """The text two copies of one utterance share: whitespace runs folded, ends stripped."""
    return " ".join(text.split())


def _turn_utterance(hit: EpisodicHit) -> str:
    """A turn's words as its writer gave them: the user message when the assistant's is empty
    (an utterance recorded on its own), else the whole stored text."""
    n = hit.metadata.get(USER_CHARS_KEY)
    if (
        isinstance(n, int)
        and not isinstance(n, bool)
        and 0 < n <= len(hit.text)
        and not hit.text[n:].strip()
    ):
        return hit.text[:n]
    return hit.text


def _split_turn(hit: EpisodicHit) -> str:
    n = hit.metadata.get(USER_CHARS_KEY)
    if not isinstance(n, int) or isinstance(n, bool) or n > len(hit.text):
        return hit.text
    user = hit.text[:n]
    assistant = hit.text[n + 1 :] if n else hit.text
    parts = [f"user: {user}"] if user else []
    if assistant:
        parts.append(f"assistant: {assistant}")
    return "\n".join(parts) or hit.text


def _turn_record(c: _Candidate) -> MemoryRecord:
    hit = c.turn
    assert hit is not None
    return MemoryRecord(
        id=hit.id,
        text=_split_turn(hit),
        kind=MemoryKind.NOTE,
        session_id=hit.session_id,
        lifecycle=MemoryLifecycleMetadata(
            stage=MemoryStage.EPISODIC,
            score_reference_time=hit.created_at,
            created_at=hit.created_at,
        ),
        metadata={"source": "turn", "turn_number": hit.turn_number},
    )


def _graph_record(c: _Candidate) -> MemoryRecord:
    hit = c.graph
    assert hit is not None
    return MemoryRecord(
        id=c.key,
        text="\n".join(hit.facts()),
        kind=MemoryKind.FACT,
        namespace=hit.entity.namespace,
        lifecycle=MemoryLifecycleMetadata(
            stage=MemoryStage.LONG_TERM,
            score_reference_time=c.created_at,
            created_at=c.created_at,
            access_count=hit.entity.access_count,
        ),
        metadata={"source": "graph", "entity_id": hit.entity.id, "start_entity_id": hit.start.id},
        entity_ids=tuple(dict.fromkeys(e.id for e in hit.nodes)),
    )
