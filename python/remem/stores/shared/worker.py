"""A single worker thread per embedded store.

SQLite and DuckDB connections must not be used from two threads at once, and their calls block.
Each embedded store owns one ``BlockingWorker``: every call runs on that one thread, off the event
loop, in submission order — so the connection is never shared across threads and async callers
never block the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class BlockingWorker:
    """Runs blocking callables on one dedicated thread."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"remem-{name}")

    async def run(self, fn: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn)

    def submit(self, fn: Callable[[], None]) -> None:
        """Queue ``fn`` without waiting for it (it reports its own results)."""
        self._executor.submit(fn)

    def shutdown(self) -> None:
        """Wait for queued work to finish, then stop the thread."""
        self._executor.shutdown(wait=True)
