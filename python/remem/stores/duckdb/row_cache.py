"""RowCache: committed ``memory_records`` rows by id, so point reads skip DuckDB.

A DuckDB point lookup costs ~1–3 ms however few rows it returns (planning and executing a
query, then a worker-thread hop), which was most of a recall at 10k memories. Recall reads the
same few records again and again, so :class:`DuckDBRecordStore.get` answers from this cache
when it holds every wanted id, on the event loop, with no hop.

Why it is safe in the embedded store: DuckDB lets one process open the file for writing, every
write to ``memory_records`` goes through :class:`DuckDBRecordStore` on the file's one
:class:`DuckDBDatabase` (which owns this cache), and the rules below keep only committed rows:

* a write invalidates its ids and bumps ``generation`` inside its transaction body, on the
  worker thread, before its SQL runs (a group commit that rolls back and re-runs each call
  invalidates again, which is harmless);
* a read notes ``generation`` before it is queued and stores its rows only if no write body ran
  since: a read that could have seen an uncommitted (or later rolled back) write, or that raced
  a write's invalidation, stores nothing;
* check-and-store and bump-and-invalidate hold one lock (the worker and the loop are two
  threads).

Rows are stored as DuckDB returned them (tuples of plain values; metadata still JSON text), so
every ``get`` builds fresh records and no caller shares a mutable dict with the cache. At most
``limit`` rows are held; the oldest stored is evicted first.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

DEFAULT_ROW_LIMIT = 50_000
"""Most rows a RowCache holds (~1 kB each with a short text)."""

Row = tuple[Any, ...]


class RowCache:
    """Committed rows by id (see the module docstring for the invalidation rules).

    Example::

        cache = RowCache()
        gen = cache.generation
        cache.store({"m1": row}, since=gen)  # stored: no write happened in between
        cache.lookup(["m1"])  # -> [row]
    """

    def __init__(self, limit: int = DEFAULT_ROW_LIMIT) -> None:
        self.limit = limit
        self.generation = 0
        self._rows: dict[str, Row] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    def lookup(self, ids: Sequence[str]) -> list[Row] | None:
        """The rows of ``ids`` in order if every one is held, else None."""
        rows = self._rows
        try:
            return [rows[i] for i in ids]
        except KeyError:
            return None

    def store(self, rows: dict[str, Row], *, since: int) -> None:
        """Keep ``rows`` if no write ran since ``generation`` was ``since``."""
        if not rows or self.limit <= 0:
            return
        with self._lock:
            if self.generation != since:
                return
            held = self._rows
            held.update(rows)
            excess = len(held) - self.limit
            if excess > 0:
                for key in list(_first(held, excess)):
                    del held[key]

    def invalidate(self, ids: Iterable[str]) -> None:
        """Forget ``ids`` and make every read in flight skip storing (call before writing)."""
        with self._lock:
            self.generation += 1
            for i in ids:
                self._rows.pop(i, None)


def _first(held: dict[str, Row], n: int) -> Iterable[str]:
    for i, key in enumerate(held):
        if i >= n:
            return
        yield key
