"""Read-only SQLite connections on a small thread pool, for running many queries in parallel.

An :class:`~remem.stores.sqlite.embedded.EmbeddedDatabase` serialises every call on its one
worker thread — right for writes, but a batch of full-text queries (``recall_many``) then runs
one after another although SQLite releases the GIL while it evaluates a statement and WAL mode
lets any number of readers run next to the writer. A :class:`ReaderPool` opens up to ``size``
extra connections with ``mode=ro`` (they can never write), one per pool thread, lazily; each
sees every transaction committed before its statement started, so a read issued after a write
returned sees that write.

Example::

    readers = ReaderPool(Path("episodic.db"), size=4, name="episodic")
    counts = await readers.map(lambda conn, q: conn.execute(q).fetchone(), ["SELECT 1"] * 8)
    readers.close()
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from remem.errors import BackendError

T = TypeVar("T")
Q = TypeVar("Q")

DEFAULT_READERS = max(1, min(4, os.cpu_count() or 1))
"""Reader threads per store: FTS queries are CPU-bound, so more than the cores buys nothing."""


class ReaderPool:
    """Up to ``size`` read-only connections to ``path``, each owned by one pool thread."""

    def __init__(self, path: Path, *, size: int = DEFAULT_READERS, name: str = "reader") -> None:
        self.path = path
        self.size = size
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix=f"remem-{name}")
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro",
                    uri=True,
                    isolation_level=None,
                    check_same_thread=False,  # closed by close(), from another thread
                    timeout=30.0,
                )
            except sqlite3.Error as exc:
                raise BackendError(
                    f"could not open {self.path} for reading ({exc}); check it exists"
                ) from exc
            with self._lock:
                if self._closed:
                    conn.close()
                    raise BackendError(f"the readers of {self.path} are closed; reopen the store")
                self._opened.append(conn)
            self._local.conn = conn
        return conn

    async def map(self, fn: Callable[[sqlite3.Connection, Q], T], items: Sequence[Q]) -> list[T]:
        """``[fn(conn, item) for item in items]``, spread over the pool's threads, in order."""
        loop = asyncio.get_running_loop()
        futures = [loop.run_in_executor(self._executor, self._call, fn, item) for item in items]
        return list(await asyncio.gather(*futures))

    def _call(self, fn: Callable[[sqlite3.Connection, Q], T], item: Q) -> T:
        return fn(self._connection(), item)

    def close(self) -> None:
        """Wait for running reads, then close every connection; idempotent."""
        self._executor.shutdown(wait=True)
        with self._lock:
            self._closed = True
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()
