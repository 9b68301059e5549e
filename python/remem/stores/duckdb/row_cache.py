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
* a read notes ``generation`` before it is queued and stores only the rows no write body named
  since: a row that could have been read from an uncommitted (or later rolled back) write, or
  that raced a write's invalidation, is not stored, while the read's other rows — which no
  write since changed, since a write names every row it changes — are. The ids of the last
  writes are logged for this (:data:`LOG_IDS` at most); a read older than the log stores
  nothing. (Before the log, any write dropped the whole read: the background warm-up, racing
  recall's own access notes, stopped after its first page.);
* check-and-store and bump-and-invalidate hold one lock (the worker and the loop are two
  threads);
* write-through (``record_accesses`` only, whose new row values follow from the old row): the
  write body :meth:`take` s its rows out (an invalidation that hands back what it removed) and,
  once the transaction committed, the store puts the updated rows back with :meth:`put_back`
  — those no other write body named since the take (DuckDB holds exactly their values).
  A rolled-back group re-runs the body, whose second take finds nothing to hand back.
  Recall reinforces the records it returns, so without this the rows most likely to be read
  again were the ones evicted after every access flush.

Rows are DuckDB's values (plain values; metadata still JSON text), so every ``get`` builds fresh
records and no caller shares a mutable dict with the cache. At most ``limit`` rows are held; the
oldest stored is evicted first. Each is held **packed** (``marshal``: 416 bytes against the
tuple's 1,404 for a bench prose row), so the default holds 200k rows in about the memory 50k
tuples took — a 100k store whole, where at 50k every recall at 100k paid a DuckDB point read
for half its candidates (~2.5 ms, most of the gap to the recall target). Unpacking costs ~4 µs a
row, so the last :data:`DEFAULT_HOT_LIMIT` rows stored or handed out are also held unpacked,
as the same tuple object while it stays there: the decoded-record memo
(:mod:`remem.stores.shared.record_memo`) keys on that identity, and a 10k store stays hot whole.
"""

from __future__ import annotations

import marshal
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

DEFAULT_ROW_LIMIT = 200_000
"""Most rows a RowCache holds (packed: ~0.5 kB each with a short text and its id)."""
DEFAULT_HOT_LIMIT = 20_000
"""Most of them also held unpacked (~1.4 kB each): the ones stored or handed out last."""

LOG_IDS = 100_000
"""Most ids the log of recent writes holds (a read older than the log stores nothing)."""

Row = tuple[Any, ...]


class RowCache:
    """Committed rows by id (see the module docstring for the invalidation rules).

    Example::

        cache = RowCache()
        gen = cache.generation
        cache.store({"m1": row}, since=gen)  # stored: no write happened in between
        cache.lookup(["m1"])  # -> [row]
    """

    def __init__(self, limit: int = DEFAULT_ROW_LIMIT, hot: int = DEFAULT_HOT_LIMIT) -> None:
        self.limit = limit
        self.hot_limit = min(hot, limit)
        self.generation = 0
        self.warmed = False
        """Set once a store has started filling the cache with its newest rows (row_warm)."""
        self._packed: dict[str, bytes] = {}
        self._hot: dict[str, Row] = {}
        self._lock = threading.Lock()
        # (generation, ids) of the last writes, oldest first; generations are consecutive.
        self._log: deque[tuple[int, tuple[str, ...]]] = deque()
        self._logged = 0

    def __len__(self) -> int:
        return len(self._packed)

    def lookup(self, ids: Sequence[str]) -> tuple[dict[str, Row], list[str]]:
        """(the held rows of ``ids`` by id, the ids not held, in order)."""
        held: dict[str, Row] = {}
        missing: list[str] = []
        with self._lock:
            hot, packed = self._hot, self._packed
            for i in ids:
                row = hot.pop(i, None)  # re-inserted last: the least recently used leaves first
                if row is None:
                    blob = packed.get(i)
                    if blob is None:
                        missing.append(i)
                        continue
                    row = marshal.loads(blob)
                hot[i] = held[i] = row
            _trim(hot, self.hot_limit)
        return held, missing

    def store(self, rows: dict[str, Row], *, since: int) -> bool:
        """Keep those of ``rows`` that no write named since ``generation`` was ``since``; False
        when the log no longer reaches back to ``since`` (nothing kept: read again)."""
        with self._lock:
            return self._keep(rows, since=since)

    def _keep(self, rows: dict[str, Row], *, since: int) -> bool:
        written = self._written_since(since)
        if written is None:
            return False
        if not rows or self.limit <= 0:
            return True
        packed, hot = self._packed, self._hot
        for key, row in rows.items():
            # A held row is committed and current (a write removes it first), so it equals
            # this one: kept as it is, the same object the decoded-record memo knows.
            if key in written or key in packed:
                continue
            packed[key] = marshal.dumps(row)
            hot.pop(key, None)
            hot[key] = row
        excess = len(packed) - self.limit
        if excess > 0:
            for key in list(islice(packed, excess)):
                del packed[key]
                hot.pop(key, None)
        _trim(hot, self.hot_limit)
        return True

    def _written_since(self, since: int) -> set[str] | frozenset[str] | None:
        """The ids the writes after generation ``since`` named; None if the log is shorter."""
        if since == self.generation:
            return frozenset()
        log = self._log
        if since > self.generation or not log or log[0][0] > since + 1:
            return None
        written: set[str] = set()
        for generation, ids in reversed(log):
            if generation <= since:
                break
            written.update(ids)
        return written

    def _bump(self, ids: tuple[str, ...]) -> None:
        """A write body starts: a new generation, logged with the ids it names."""
        self.generation += 1
        log = self._log
        log.append((self.generation, ids))
        self._logged += len(ids)
        while self._logged > LOG_IDS and log:
            self._logged -= len(log.popleft()[1])

    def invalidate(self, ids: Iterable[str]) -> None:
        """Forget ``ids`` and make every read in flight skip storing them (call before
        writing)."""
        named = tuple(ids)
        with self._lock:
            self._bump(named)
            for i in named:
                self._packed.pop(i, None)
                self._hot.pop(i, None)

    def take(self, ids: Iterable[str]) -> tuple[int, dict[str, Row]]:
        """:meth:`invalidate`, returning (the new generation, the rows it removed)."""
        named = tuple(ids)
        with self._lock:
            self._bump(named)
            taken: dict[str, Row] = {}
            for i in named:
                blob = self._packed.pop(i, None)
                row = self._hot.pop(i, None)
                if blob is not None:
                    taken[i] = row if row is not None else marshal.loads(blob)
            return self.generation, taken

    def put_back(self, rows: dict[str, Row], *, generation: int) -> bool:
        """Store ``rows`` (the committed values of a write whose :meth:`take` returned
        ``generation``) but those a later write body named; False if the log is shorter."""
        with self._lock:
            return self._keep(rows, since=generation)


def _trim(held: dict[str, Any], limit: int) -> None:
    """Drop the oldest entries of ``held`` beyond ``limit``."""
    excess = len(held) - limit
    if excess > 0:
        for key in list(islice(held, excess)):
            del held[key]
