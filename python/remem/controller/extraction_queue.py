"""The extraction queue: batches of turns waiting for one background worker.

``record_turn`` returns once the turn is durable (transcript + episodic index); extraction runs
later, on a worker task, so a slow or failing extractor never delays or loses a turn. Batches
are applied in order, one at a time (the resolver's index and the graph are updated without
races). A failed batch is recorded in the controller's failure log with its turn ids.

Shutdown decision — **drain**: ``aclose()`` first enqueues every session's partial window (turns
recorded since the last extraction, fewer than ``interval``), then waits up to
``drain_timeout`` seconds for the worker to finish. Batches still unfinished are cancelled and
recorded as failures naming their turn ids, so the pending work is visible and, because the
turns are in the transcript, can be extracted again. Persisting pending ids in a side file was
rejected: it would be a second source of truth beside the transcript.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from remem.models import TranscriptEntry


@dataclass(frozen=True, slots=True)
class ExtractionBatch:
    session_id: str
    entries: tuple[TranscriptEntry, ...]

    @property
    def turn_ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.entries)


Apply = Callable[[ExtractionBatch], Awaitable[None]]
OnFailure = Callable[[ExtractionBatch, BaseException], None]


class ExtractionQueue:
    """Windows turns per session and runs ``apply`` on full windows in a worker task."""

    def __init__(self, apply: Apply, on_failure: OnFailure, *, interval: int, size: int) -> None:
        self._apply = apply
        self._on_failure = on_failure
        self.interval = interval
        self._queue: asyncio.Queue[ExtractionBatch] = asyncio.Queue(maxsize=size)
        self._windows: dict[str, list[TranscriptEntry]] = {}
        self._worker: asyncio.Task[None] | None = None
        self._current: ExtractionBatch | None = None
        self._closed = False

    @property
    def pending_turns(self) -> int:
        """Turns not yet extracted: in open windows, queued, or being extracted now."""
        windows = sum(len(w) for w in self._windows.values())
        waiting: list[ExtractionBatch] = list(self._queue._queue)  # type: ignore[attr-defined]
        queued = sum(len(b.entries) for b in waiting)
        running = len(self._current.entries) if self._current is not None else 0
        return windows + queued + running

    async def add(self, entry: TranscriptEntry) -> None:
        """Add a recorded turn; a window of ``interval`` turns becomes a batch."""
        window = self._windows.setdefault(entry.session_id, [])
        window.append(entry)
        if len(window) >= self.interval:
            del self._windows[entry.session_id]
            await self._put(ExtractionBatch(entry.session_id, tuple(window)))

    async def _put(self, batch: ExtractionBatch) -> None:
        if self._worker is None:
            self._worker = asyncio.create_task(self._run(), name="remem-extraction")
        await self._queue.put(batch)

    async def _run(self) -> None:
        while True:
            batch = await self._queue.get()
            self._current = batch
            try:
                await self._apply(batch)
            except Exception as exc:  # recorded with the turn ids; the turns stay in the transcript
                self._on_failure(batch, exc)
            # Not in a finally: a cancelled batch stays in _current so aclose() can record it.
            self._current = None
            self._queue.task_done()

    async def join(self) -> None:
        """Wait until every queued batch has been applied (open windows stay open)."""
        if self._worker is not None:
            await self._queue.join()

    async def flush(self) -> None:
        """Enqueue every partial window, then wait for the queue to empty."""
        windows, self._windows = self._windows, {}
        for session_id, window in windows.items():
            await self._put(ExtractionBatch(session_id, tuple(window)))
        await self.join()

    async def aclose(self, drain_seconds: float) -> None:
        """Drain (see the module docstring); unfinished batches become recorded failures."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.flush(), drain_seconds)
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
        left: list[ExtractionBatch] = [] if self._current is None else [self._current]
        while not self._queue.empty():
            left.append(self._queue.get_nowait())
        left += [ExtractionBatch(s, tuple(w)) for s, w in self._windows.items()]
        self._windows.clear()
        for batch in left:
            self._on_failure(
                batch, TimeoutError("extraction did not finish before close; re-extract these")
            )
