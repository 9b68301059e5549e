"""BackgroundExtraction: the extractor, its queue, and how a batch's result is applied.

With an extractor, every ``extraction.interval`` turns of a session,
:meth:`BackgroundExtraction.add` hands a batch to the
:class:`~remem.controller.extraction_queue.ExtractionQueue` worker, which runs the extractor and
applies its result (:func:`~remem.controller.extraction_apply.apply_extraction`: entities and
relationships to the graph, memories through the controller's ``remember``). A failed batch is
recorded in the failure log with its turn ids; it never reaches the caller. :attr:`after`, when
set, runs on the records each background batch created (a Runtime with an extractor supersedes
the keyed facts they contradict there).
:meth:`apply_now` applies a result the caller extracted itself, exactly as the worker would
(with or without an extractor: the companion runs its own).

Every batch is applied in its session's namespace (``TranscriptSession.namespace``, read once
per session from the transcript store and cached: a session never changes scope), so facts and
entities extracted from B's turns are B's. Without a transcript store, or for a session it does
not hold, the namespace is ``"default"`` — the scope a turn without a session record has.

Example::

    extraction = BackgroundExtraction(extractor, cfg.extraction, resolver=r, graph_store=g,
                                      remember=controller.remember, failures=log, now=clock.now)
    await extraction.add(entry)
    await extraction.aclose(cfg.extraction.drain_timeout)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from remem.controller.config import ExtractionConfig
from remem.controller.extraction import ExtractionContext, ExtractionResult, Extractor
from remem.controller.extraction_apply import apply_extraction
from remem.controller.extraction_queue import ExtractionBatch, ExtractionQueue
from remem.errors import InvalidArgumentError, NotFoundError
from remem.failures import BackgroundFailure, FailureLog
from remem.graph import EntityResolver
from remem.models import MemoryRecord, TranscriptEntry
from remem.stores.graph import GraphStore
from remem.stores.transcript import TranscriptStore

Remember = Callable[..., Awaitable[MemoryRecord]]
AfterBatch = Callable[[Sequence[MemoryRecord]], Awaitable[object]]
"""What runs on the memory records one background batch created."""


class BackgroundExtraction:
    """Runs ``extractor`` on batches of recorded turns (see the module docstring)."""

    def __init__(
        self,
        extractor: Extractor | None,
        config: ExtractionConfig,
        *,
        resolver: EntityResolver,
        graph_store: GraphStore,
        remember: Remember,
        failures: FailureLog,
        now: Callable[[], datetime],
        transcript: TranscriptStore | None = None,
    ) -> None:
        self.extractor = extractor
        self._transcript = transcript
        self._namespaces: dict[str, str] = {}
        self._resolver = resolver
        self._graph = graph_store
        self._remember = remember
        self._failures = failures
        self._now = now
        self._queue: ExtractionQueue | None = None
        self.after: AfterBatch | None = None
        """Run on the records each background batch created (the Runtime supersedes what they
        contradict: ``ExtractionConfig.supersede``); its failure is the batch's failure."""
        if extractor is not None:
            self._queue = ExtractionQueue(
                self._run, self._failed, interval=config.interval, size=config.queue_size
            )

    @property
    def pending_turns(self) -> int:
        """Turns recorded but not yet extracted."""
        return 0 if self._queue is None else self._queue.pending_turns

    async def add(self, entry: TranscriptEntry) -> None:
        """Count ``entry`` towards its session's next batch (nothing without an extractor)."""
        if self._queue is not None:
            await self._queue.add(entry)

    async def join(self) -> None:
        """Wait for the batches already queued (partial windows stay pending)."""
        if self._queue is not None:
            await self._queue.join()

    async def flush(self) -> None:
        """Extract every pending turn now (partial windows too) and wait for it."""
        if self._queue is not None:
            await self._queue.flush()

    async def aclose(self, drain_seconds: float) -> None:
        """Drain the queue (see :mod:`remem.controller.extraction_queue`)."""
        if self._queue is not None:
            await self._queue.aclose(drain_seconds)

    async def apply_now(
        self,
        result: ExtractionResult,
        entries: Sequence[TranscriptEntry],
        now: datetime,
        namespace: str | None = None,
    ) -> list[MemoryRecord]:
        """Apply ``result`` for ``entries`` (turns of one session) as the worker would, in
        ``namespace`` (default: the session's)."""
        batch = _one_session(entries)
        if namespace is None:
            namespace = await self.namespace_of(batch.session_id)
        return await self._apply(result, batch, now, namespace)

    async def namespace_of(self, session_id: str) -> str:
        """The namespace of ``session_id``'s transcript session (``"default"`` if unknown)."""
        known = self._namespaces.get(session_id)
        if known is not None:
            return known
        namespace = "default"
        if self._transcript is not None:
            try:
                namespace = (await self._transcript.get_session(session_id)).namespace
            except NotFoundError:
                return namespace  # not cached: the session may be created later
        self._namespaces[session_id] = namespace
        return namespace

    async def _run(self, batch: ExtractionBatch) -> None:
        assert self.extractor is not None
        namespace = await self.namespace_of(batch.session_id)
        context = ExtractionContext(
            session_id=batch.session_id, now=self._now(), namespace=namespace
        )
        result = await self.extractor.extract(batch.entries, context=context)
        records = await self._apply(result, batch, context.now, namespace)
        if records and self.after is not None:
            await self.after(records)

    async def _apply(
        self, result: ExtractionResult, batch: ExtractionBatch, now: datetime, namespace: str
    ) -> list[MemoryRecord]:
        return await apply_extraction(
            result,
            batch,
            resolver=self._resolver,
            graph_store=self._graph,
            remember=self._remember,
            now=now,
            namespace=namespace,
        )

    def _failed(self, batch: ExtractionBatch, exc: BaseException) -> None:
        self._failures.add(BackgroundFailure("extraction", self._now(), batch.turn_ids, exc))


def _one_session(entries: Sequence[TranscriptEntry]) -> ExtractionBatch:
    if isinstance(entries, str) or not isinstance(entries, Sequence) or not entries:
        raise InvalidArgumentError("entries must be a non-empty list of TranscriptEntry")
    sessions = {e.session_id for e in entries}
    if len(sessions) != 1:
        raise InvalidArgumentError(
            f"entries must come from one session, got {sorted(sessions)}; apply per session"
        )
    return ExtractionBatch(entries[0].session_id, tuple(entries))
