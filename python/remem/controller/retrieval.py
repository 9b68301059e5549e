"""The retrievers recall runs, and the eligibility check on the record store.

* **vector** — ONE ``CollectionManager.query_scores`` for the (q, d) query batch (ids and scores
  only; the records are read from the record store afterwards);
* **fulltext** — ONE ``search_many`` batch on the episodic store (scoped to a session's turns
  when the recall names one; memory notes are never session-scoped);
* **graph** — per query, the entities it names and the paths from them;
* **turns** — neighbours of turn hits read from the transcript store (``neighbours`` stage);
* **eligible** — the records behind the hits, kept only if live, in a requested stage and
  matching the filters (:mod:`remem.controller.recall`).

Example::

    retrieval = Retrieval(records, episodic, collections, matcher, scorer, transcripts)
    hits = await retrieval.texts(["where does Ana live?"], 50, options)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from numpy.typing import NDArray

from remem.controller.recall_options import RecallOptions
from remem.graph import GraphHit, GraphScorer, QueryEntityMatcher
from remem.models import EpisodeKind, EpisodicHit, MemoryRecord, MemoryStage
from remem.models.base import trusted
from remem.staging import STAGED, CollectionManager, StagedScore, record_metadata
from remem.stores.episodic import EpisodicStore, search_many, turn_text
from remem.stores.filters import And, Compare, matches
from remem.stores.records import RecordStore, get_existing
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.transcript import TranscriptStore
from remem.writebehind.direct import USER_CHARS_KEY


class Retrieval:
    """The stores recall reads, one method per retriever (see the module docstring)."""

    def __init__(
        self,
        *,
        record_store: RecordStore,
        episodic_store: EpisodicStore,
        collection_manager: CollectionManager,
        matcher: QueryEntityMatcher | None,
        graph_scorer: GraphScorer | None,
        transcript_store: TranscriptStore | None = None,
    ) -> None:
        self.records = record_store
        self.transcripts = transcript_store
        self.episodic = episodic_store
        self.collections = collection_manager
        self.matcher = matcher
        self.graph_scorer = graph_scorer
        # False: every full-text hit is built by the store (the reference HitRows equals).
        self.hit_rows = True

    async def vectors(
        self, vectors: NDArray[np.float32], depth: int, options: RecallOptions
    ) -> list[list[StagedScore]]:
        """Every query's vector hits over the requested staged collections."""
        staged = [s for s in options.memory_stages if s in STAGED]
        if not staged or "vector" not in options.sources:
            return [[] for _ in range(len(vectors))]
        # Ids and scores only: the records are read from the record store by ``eligible``.
        return await self.collections.query_scores(
            vectors, k=depth, stages=staged, where=options.where
        )

    async def texts(
        self, queries: Sequence[str], depth: int, options: RecallOptions
    ) -> list[Sequence[EpisodicHit]]:
        """Every query's full-text hits, as ONE batch per search (the store may parallelise).
        With ``hit_rows`` (default) the embedded SQLite store's memory-index hits come as
        :class:`~remem.stores.sqlite.hit_rows.HitRows` (the same hits, built when read)."""
        if "fulltext" not in options.sources:
            return [[] for _ in queries]
        # The scope is pushed into the search itself (a posting mask / WHERE), never a filter
        # of its top ``depth``.
        ns = options.namespaces
        if options.session_id is None or not options.episodic:
            batch: Sequence[Sequence[EpisodicHit]]
            if self.hit_rows and isinstance(self.episodic, SQLiteEpisodicStore):
                batch = await self.episodic.search_many_rows(queries, limit=depth, namespace=ns)
            else:
                batch = await search_many(self.episodic, queries, limit=depth, namespace=ns)
            if options.episodic:
                return list(batch)
            return [[h for h in hits if h.kind is EpisodeKind.NOTE] for hits in batch]
        everywhere, session = await asyncio.gather(
            search_many(self.episodic, queries, limit=depth, namespace=ns),
            search_many(
                self.episodic, queries, limit=depth, session_id=options.session_id, namespace=ns
            ),
        )
        out: list[Sequence[EpisodicHit]] = []
        for notes, turns in zip(everywhere, session, strict=True):
            merged = [h for h in notes if h.kind is EpisodeKind.NOTE]
            merged += [h for h in turns if h.kind is EpisodeKind.TURN]
            out.append(sorted(merged, key=lambda h: (-h.score, -h.created_at.timestamp(), h.id)))
        return out

    async def read_turns(self, ranges: Sequence[tuple[str, int, int]]) -> list[list[EpisodicHit]]:
        """Per ``(session_id, first, last)``, those turns of the transcript as score-0 turn
        hits, every range in one read (an unknown session: none)."""
        assert self.transcripts is not None
        found = await self.transcripts.get_turn_ranges(ranges)
        # Built unvalidated (remem.models.base.trusted): every field comes from a stored,
        # validated transcript entry; recall reads ~14 neighbour ranges a question.
        return [
            [
                trusted(
                    EpisodicHit,
                    {
                        "id": e.id,
                        "kind": EpisodeKind.TURN,
                        "session_id": e.session_id,
                        "turn_number": e.turn_number,
                        "text": text,
                        "score": 0.0,
                        "created_at": e.created_at,
                        "metadata": {**e.metadata, USER_CHARS_KEY: len(e.user_message)},
                        "namespace": "default",
                    },
                )
                for e in entries
                if (text := turn_text(e))
            ]
            for entries in found
        ]

    async def graph(
        self, query: str, depth: int, options: RecallOptions, now: datetime
    ) -> list[GraphHit]:
        """Paths from the entities ``query`` names (long-term recall only)."""
        if (
            "graph" not in options.sources
            or self.matcher is None
            or self.graph_scorer is None
            or MemoryStage.LONG_TERM not in options.memory_stages
        ):
            return []
        scopes = options.namespaces if options.namespaces is not None else graph_namespace(options)
        mentions = await self.matcher.match(query, namespace=scopes)
        if not mentions:
            return []
        return await self.graph_scorer.score(query, mentions, at=now, limit=depth)

    async def eligible(self, ids: Sequence[str], options: RecallOptions) -> dict[str, MemoryRecord]:
        """The records of ``ids`` that may be recalled, by id (a missing one is skipped).

        Read with :func:`~remem.stores.records.get_existing` (``get_shared`` where the store has
        it: records possibly shared with earlier reads, decoded once per stored row), which
        recall never changes and returns only as
        :func:`~remem.stores.shared.record_memo.detached` copies (``scored_memory``).
        """
        if not ids:
            return {}
        found = await get_existing(self.records, ids)
        allowed = set(options.memory_stages)
        node = options.where_node
        return {
            r.id: r
            for r in found.values()
            if r.superseded_by is None
            and r.lifecycle.stage in allowed
            and (node is None or matches(node, record_metadata(r)))
        }


def graph_namespace(options: RecallOptions) -> str:
    """The namespace whose entities an unscoped recall's graph retrieval matches: the one a filter
    pins with a single ``{"namespace": ns}`` equality, else the recall's (``namespace=`` wins
    over both: see :meth:`Retrieval.graph`).

    Looking in ``"default"`` while the filter asks for B would find none of B's entities (and
    A's would only be dropped afterwards by the filter)."""
    node = options.where_node
    terms = node.children if isinstance(node, And) else (node,)
    for term in terms:
        if (
            isinstance(term, Compare)
            and (term.field, term.op) == ("namespace", "$eq")
            and isinstance(term.value, str)
        ):
            return term.value
    return options.namespace
