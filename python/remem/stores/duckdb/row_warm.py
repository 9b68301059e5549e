"""Filling a :class:`~remem.stores.duckdb.row_cache.RowCache` in the background, page by page.

Why: the warm-up (the ``limit`` newest live rows, one columnar read) made the first ``get``
after opening a store wait for it — 0.8-2.5 s at 100k records, most of it building 50k Python
tuples — and every DuckDB call queued behind it on the store's one worker thread. Now the first
``get`` reads only the ids it wants and starts :func:`warm_rows` as a task: one query on a
cursor of its own (a duplicate connection, whose pending result survives the store's other
statements), run and fetched :data:`WARM_PAGE` rows at a time on a thread of its own, so the
store's calls never queue behind it.

Consistency: the rows are the committed state when the query ran, at or after the moment the
warm noted ``generation`` on the store's worker (see :func:`warm_rows`); each page is stored
but the rows a write body named since (:meth:`RowCache.store`) — exactly the rule every read
of the cache follows — and the warm stops only when the cache's log of writes no longer
reaches back to that moment. (It used to stop at the first write: recall's own access notes
stopped it after one page, and the first questions after an ingest read DuckDB instead.)
Pages come in table order (for a store written in time order, oldest first), so the newest
rows are evicted last and stay unpacked.
The rows are chosen by a threshold on ``created_at`` (two columns sorted), not by ordering whole
rows, which made DuckDB materialise them: ~700 MiB of RSS at 1M records for 200k rows.
"""

from __future__ import annotations

import asyncio
import functools
import logging

import duckdb

from remem.errors import BackendError
from remem.stores.duckdb.database import DuckDBDatabase
from remem.stores.duckdb.record_reads import live_rows_since, newest_live_threshold
from remem.stores.duckdb.row_cache import RowCache
from remem.stores.shared.worker import BlockingWorker

WARM_PAGE = 2_000
"""Rows converted to Python per fetch (~10-40 ms each), between which the GIL is free."""
log = logging.getLogger(__name__)


async def warm_rows(db: DuckDBDatabase, cache: RowCache) -> int:
    """Store up to ``cache.limit`` of the newest live rows in ``cache``; returns how many
    pages' rows were offered to the cache (writes meanwhile keep the rows they named out). A
    failure is logged, never raised: the cache only stays colder."""
    stored = 0
    cursor: duckdb.DuckDBPyConnection | None = None
    pages = BlockingWorker(f"warm-{db.path.name}")
    try:
        # ``since`` is noted on the store's worker: every write whose body ran before it has
        # committed (a write is one worker job), and any later body bumps the generation, so
        # the query may run on the other thread, where the store's calls never wait for it.
        since, opened = await db.run(lambda conn: (cache.generation, conn.cursor()))
        cursor = opened
        await pages.run(functools.partial(_start, opened, cache.limit))
        fetch = functools.partial(opened.fetchmany, WARM_PAGE)
        while True:
            rows = await pages.run(fetch)
            if not cache.store({row[0]: row for row in rows}, since=since):
                break  # the log of writes no longer reaches back: the rest would be dropped too
            stored += len(rows)
            if len(rows) < WARM_PAGE:
                break
    except (duckdb.Error, BackendError) as exc:  # BackendError: the database closed under us
        log.warning("warming the record cache of %s stopped: %s", db.path, exc)
    except asyncio.CancelledError:
        if cursor is not None:
            cursor.interrupt()  # the store is closing: stop the query instead of waiting for it
        raise
    finally:
        try:
            if cursor is not None:
                await pages.run(cursor.close)  # after any fetch in flight (one thread)
        finally:
            pages.shutdown()
    return stored


def _start(cursor: duckdb.DuckDBPyConnection, limit: int) -> None:
    """Run the warm-up's query on ``cursor``: the live rows at least as new as the ``limit``-th
    newest (a tie at that instant may add a few, which the cache's cap evicts)."""
    found = cursor.execute(newest_live_threshold(limit)).fetchone()
    sql, params = live_rows_since(None if found is None else int(found[0]))
    cursor.execute(sql, params)
