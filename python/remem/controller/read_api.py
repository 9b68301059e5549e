"""The controller's read API: recall, keyed facts, priming, session listings, full-text search.

Every read checks the controller is open and its scopes (:mod:`remem.controller.scope_checks`;
``namespace=`` is one scope, several, or None for all — refused in a multi-scope controller),
then awaits the write port's barrier so it sees every acknowledged write, then reads:

* ``recall`` / ``recall_many`` through the :class:`~remem.controller.recall.RecallPipeline`
  (and note the access of what they return);
* ``keyed_facts`` from the record store (:func:`remem.controller.scoped.keyed_facts_in`);
* ``prime`` from the graph, records and transcript (:mod:`remem.controller.priming`);
* ``list_sessions`` from the transcript, ``search_text`` from the episodic index.

The parts are wired by :class:`~remem.controller.controller.MemoryController` (declared in
:mod:`remem.controller.state`). This class is not used on its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from numpy.typing import NDArray

from remem.context.priming import Priming, PrimingConfig
from remem.controller.gc_pause import gc_paused
from remem.controller.priming import PrimingSources, prime_session
from remem.controller.recall_options import check_queries, recall_options, start_query_batch
from remem.controller.scope_checks import is_multi, read_scopes
from remem.controller.scoped import keyed_facts_in
from remem.controller.stages.question_form import statement_forms
from remem.controller.state import ControllerState
from remem.controller.writes import check_query_vector
from remem.models import EpisodicHit, MemoryRecord, MemoryStage, ScoredMemory, TranscriptSession
from remem.scopes import Namespaces, require_scope
from remem.stores.transcript import check_session_id
from remem.stores.vector import Where


class ReadAPI(ControllerState):
    """MemoryController's reads (see the module docstring)."""

    # -- keyed facts ----------------------------------------------------------------------------

    async def keyed_facts(
        self,
        *,
        subjects: Sequence[str] | None = None,
        attributes: Sequence[str] | None = None,
        namespace: Namespaces = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]:
        """Keyed facts (metadata subject/attribute/value) ordered by key then validity time;
        live ones only unless ``include_superseded`` (then every value a fact has had).
        ``namespace``: the scopes to read (None: all, single-scope runtimes only)."""
        self._check_open()
        scopes = read_scopes(self.config, namespace, "keyed_facts")
        await self.writes.barrier()
        return await keyed_facts_in(
            self._stores.records,
            scopes,
            subjects=subjects,
            attributes=attributes,
            include_superseded=include_superseded,
        )

    # -- priming --------------------------------------------------------------------------------

    async def prime(
        self,
        session_id: str,
        *,
        now: datetime | None = None,
        config: PrimingConfig | None = None,
        namespace: Namespaces = None,
    ) -> Priming:
        """What session ``session_id`` starts with: entities, known facts, insights, summaries
        and earlier sessions' last turns, cut to ``config`` (default: this controller's
        ``priming``) and its token budget (:mod:`remem.controller.priming`).

        Pass the result to :meth:`remem.context.ContextAssembler.assemble` on every turn of
        the session. ``namespace`` limits everything primed — entities and their facts,
        insights, summaries, earlier sessions — to those scopes (default: all, single-scope
        runtimes only)."""
        self._check_open()
        check_session_id(session_id)
        scopes = read_scopes(self.config, namespace, "prime")
        cfg = config if config is not None else self.priming
        await self.writes.barrier()
        stores = self._stores
        sources = PrimingSources(stores.graph, stores.records, stores.transcript)
        return await prime_session(
            sources,
            cfg,
            session_id=session_id,
            now=now if now is not None else self.clock.now(),
            namespace=scopes,
        )

    # -- scoped listings and search ---------------------------------------------------------------

    async def list_sessions(self, *, namespace: Namespaces = None) -> list[TranscriptSession]:
        """The transcript's sessions in ``namespace`` (None: all, single-scope runtimes only),
        oldest first; [] without a transcript store."""
        self._check_open()
        scopes = read_scopes(self.config, namespace, "list_sessions")
        await self.writes.barrier()
        if self._stores.transcript is None:
            return []
        return await self._stores.transcript.list_sessions(namespace=scopes)

    async def search_text(
        self,
        query: str,
        *,
        namespace: Namespaces = None,
        limit: int = 10,
        session_id: str | None = None,
    ) -> list[EpisodicHit]:
        """Full-text hits (turns and memory notes) for ``query`` in ``namespace`` (None: all,
        single-scope runtimes only), best first; the scope is part of the search itself."""
        self._check_open()
        scopes = read_scopes(self.config, namespace, "search_text")
        await self.writes.barrier()
        return await self._stores.episodic.search(
            query, limit=limit, session_id=session_id, namespace=scopes
        )

    # -- recall ---------------------------------------------------------------------------------

    async def recall(
        self,
        query: str,
        *,
        session_id: str | None = None,
        k: int = 10,
        stages: Sequence[MemoryStage | str] | None = None,
        filters: Where | None = None,
        include_decayed: bool = False,
        vector: NDArray[np.float32] | Sequence[float] | None = None,
        sources: Sequence[str] | None = None,
        namespace: Namespaces = None,
    ) -> list[ScoredMemory]:
        """The ``k`` best memories for ``query``, best first, each with its signals explained.

        ``stages`` defaults to short_term, long_term and episodic; ``include_decayed`` adds
        decayed; deleted and superseded memories are never returned. ``filters`` is a where
        filter on kind/namespace/stage/session_id (a filter on any other field is refused:
        InvalidArgumentError). ``vector`` is a precomputed query embedding.
        ``sources`` names the retrievers to run (default all of ``vector``, ``fulltext``,
        ``graph``); ``sources=["fulltext"]`` is a full-text-only recall (no query embedding).
        ``namespace``: the scopes the recall may see (one, several, or None for every scope —
        refused with ScopeRequiredError in a multi-scope runtime); pushed into the vector
        search, the full-text search, the record read and the graph matcher.
        """
        vectors = None if vector is None else check_query_vector(vector)
        results = await self.recall_many(
            [query],
            vectors=vectors,
            session_id=session_id,
            k=k,
            stages=stages,
            filters=filters,
            include_decayed=include_decayed,
            sources=sources,
            namespace=namespace,
        )
        return results[0]

    async def recall_many(
        self,
        queries: Sequence[str],
        *,
        vectors: NDArray[np.float32] | Sequence[Sequence[float]] | None = None,
        session_id: str | None = None,
        k: int = 10,
        stages: Sequence[MemoryStage | str] | None = None,
        filters: Where | None = None,
        include_decayed: bool = False,
        sources: Sequence[str] | None = None,
        namespace: Namespaces = None,
    ) -> list[list[ScoredMemory]]:
        """``recall`` for many queries: one embedding batch and ONE batched collection query
        (native batched top-k); equal to calling ``recall`` per query."""
        self._check_open()
        started = time.perf_counter()
        check_queries(queries)
        options = recall_options(
            self.config.max_k, k, stages, filters, include_decayed, session_id, sources, namespace
        )
        require_scope(options.namespaces, multi=is_multi(self.config), action="recall")
        if not queries:
            return []
        # ``question_form``: the semantic retriever embeds each question's statement form.
        embedded = statement_forms(queries, self._recall.config.stages.question_form)
        # The encode runs while the writes land and the retrievers that need no vector search.
        batch = start_query_batch(self.collection_manager.embeddings, embedded, vectors, options)
        try:
            if isinstance(batch, asyncio.Task):
                # One loop turn, so the encode reaches its worker thread now rather than after
                # the full-text search has been planned (it is the longest step).
                await asyncio.sleep(0)
            await self.writes.barrier()
            # See remem.controller.gc_pause: the collector cost a large share. The access note
            # is inside the pause too: its flush reads every recalled record back
            # (reinforcement), and the collections it triggered cost ~1 s a 1,000-query batch
            # at 10k memories.
            with gc_paused():
                results = await self._recall.run(queries, batch, options, self.clock.now())
                await self._books.note_access(results)
        finally:
            if isinstance(batch, asyncio.Task):
                if not batch.done():
                    batch.cancel()
                elif not batch.cancelled():
                    batch.exception()  # raised through ``run``, or after another error raised
        self._books.emit("recall", started, queries=len(queries), k=k)
        return results
