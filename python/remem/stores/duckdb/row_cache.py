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
  threads);
* write-through (``record_accesses`` only, whose new row values follow from the old row): the
  write body :meth:`take` s its rows out (an invalidation that hands back what it removed) and,
  once the transaction committed, the store puts the updated rows back with :meth:`put_back`
  — only if no other write body ran since the take (then DuckDB holds exactly those values).
  A rolled-back group re-runs the body, whose second take finds nothing to hand back.
  Recall reinforces the records it returns, so without this the rows most likely to be read
  again were the ones evicted after every access flush.

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
        self.warmed = False
        """Set once a store has started filling the cache with its newest rows (row_warm)."""
        self._rows: dict[str, Row] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    def lookup(self, ids: Sequence[str]) -> tuple[dict[str, Row], list[str]]:
        """(the held rows of ``ids`` by id, the ids not held, in order)."""
        rows = self._rows
        held: dict[str, Row] = {}
        missing: list[str] = []
        for i in ids:
            row = rows.get(i)
            if row is None:
                missing.append(i)
            else:
                held[i] = row
        return held, missing

    def store(self, rows: dict[str, Row], *, since: int) -> bool:
        """Keep ``rows`` if no write ran since ``generation`` was ``since``; True if kept."""
        with self._lock:
            return self._keep(rows, since=since)

    def _keep(self, rows: dict[str, Row], *, since: int) -> bool:
        if not rows or self.limit <= 0 or self.generation != since:
            return False
        held = self._rows
        held.update(rows)
        excess = len(held) - self.limit
        if excess > 0:
            for key in list(_first(held, excess)):
                del held[key]
        return True

    def invalidate(self, ids: Iterable[str]) -> None:
        """Forget ``ids`` and make every read in flight skip storing (call before writing)."""
        with self._lock:
            self.generation += 1
            for i in ids:
                self._rows.pop(i, None)

    def take(self, ids: Iterable[str]) -> tuple[int, dict[str, Row]]:
        """:meth:`invalidate`, returning (the new generation, the rows it removed)."""
        with self._lock:
            self.generation += 1
            taken = {i: row for i in ids if (row := self._rows.pop(i, None)) is not None}
            return self.generation, taken

    def put_back(self, rows: dict[str, Row], *, generation: int) -> bool:
        """Store ``rows`` (the committed values of a write whose :meth:`take` returned
        ``generation``) if no write body ran since; True if stored."""
        with self._lock:
            return self._keep(rows, since=generation)


def _first(held: dict[str, Row], n: int) -> Iterable[str]:
    for i, key in enumerate(held):
        if i >= n:
            return
        yield key
