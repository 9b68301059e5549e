"""WriteBatcher: concurrent writes share one batch per store (group commit across stores).

Every durable write costs a commit — about a millisecond in DuckDB however small — so an agent
server whose sessions call ``remember`` at the same time would otherwise queue one commit per
call in each store. Callers :meth:`submit` an item and wait; one drain task writes everything
queued so far as ONE batch (one record-store transaction, one vector write, one note write),
then the next batch. A lone caller is written at once (no waiting for company), so sequential
callers pay one extra event-loop step and nothing else.

All-or-nothing stays per call: if a batch fails, each of its items is written again alone, so
every caller gets its own outcome (its own error, or success) exactly as without batching. The
batch write itself must leave nothing behind when it fails (``MemoryWriter`` compensates).

A caller cancelled before its batch started is dropped from it; once a batch started, a
cancelled caller's item may or may not be stored (the same as cancelling any write mid-flight).

Example::

    batcher = WriteBatcher(write_many)  # async def write_many(items: list[T]) -> None
    await batcher.submit(item)  # returns once ``item`` is stored (in some batch)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")

DEFAULT_MAX_BATCH = 256
"""Most items per batch: bounds one transaction's size and a failed batch's retry cost."""


class WriteBatcher(Generic[T]):
    """Groups items submitted concurrently into batches for ``write`` (see the module doc)."""

    def __init__(
        self, write: Callable[[list[T]], Awaitable[None]], *, max_batch: int = DEFAULT_MAX_BATCH
    ) -> None:
        self._write = write
        self.max_batch = max_batch
        self._queue: list[tuple[T, asyncio.Future[None]]] = []
        self._drain_task: asyncio.Task[None] | None = None
        self.batches = 0
        """Batches written so far (a failed batch's solo retries are not counted)."""

    async def submit(self, item: T) -> None:
        """Store ``item`` in the next batch; raise its own error if it cannot be stored."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._queue.append((item, future))
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = loop.create_task(self._drain())
        await future

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch = self._queue[: self.max_batch]
                del self._queue[: self.max_batch]
                live = [(item, fut) for item, fut in batch if not fut.done()]
                if live:
                    await self._run(live)
        finally:
            # Only reached with items left if this task itself was cancelled (loop shutdown).
            left, self._queue = self._queue, []
            for _, fut in left:
                if not fut.done():
                    fut.set_exception(asyncio.CancelledError("the write batcher was stopped"))

    async def _run(self, live: list[tuple[T, asyncio.Future[None]]]) -> None:
        self.batches += 1
        try:
            await self._write([item for item, _ in live])
        except Exception as exc:
            if len(live) == 1:
                _settle(live[0][1], exc)
                return
            # Someone in the batch failed: give every item its own attempt and outcome.
            for item, fut in live:
                try:
                    await self._write([item])
                except Exception as solo:
                    _settle(fut, solo)
                else:
                    _settle(fut, None)
            return
        except BaseException as exc:
            for _, fut in live:
                _settle(fut, exc)
            raise
        for _, fut in live:
            _settle(fut, None)


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():  # the caller was cancelled meanwhile
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)
