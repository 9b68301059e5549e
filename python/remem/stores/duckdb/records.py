"""DuckDBRecordStore: memory records in the embedded DuckDB memory file."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime
from typing import Any

import numpy as np

from remem.models import MemoryLifecycleMetadata, MemoryRecord
from remem.stores.base.records import (
    COLS,
    RecordStoreBase,
    refuse_early_access,
    refuse_existing,
    refuse_supersede,
    refuse_taken,
    supersede_sql,
)
from remem.stores.duckdb.base import DuckDBStore
from remem.stores.duckdb.database import Conn, objects, register_rows
from remem.stores.duckdb.record_put import BOUND_ROWS, put_bound
from remem.stores.duckdb.record_reads import rows_by_id
from remem.stores.duckdb.row_cache import Row
from remem.stores.duckdb.row_warm import warm_rows
from remem.stores.duckdb.schema import RECORD_TYPES
from remem.stores.records import LifecycleColumns
from remem.stores.shared.record_checks import missing_error
from remem.stores.shared.record_rows import (
    ACCESS_COLUMNS,
    LIFECYCLE_COLUMNS,
    RECORD_COLUMNS,
    TIME_COLUMNS,
    lifecycle_values,
    record_to_row,
    to_micros,
)
from remem.stores.sql.dialect import DUCKDB

_TIME_IDX = [i for i, c in enumerate(RECORD_COLUMNS) if c in TIME_COLUMNS]
_LC_TIME_IDX = [i for i, c in enumerate(LIFECYCLE_COLUMNS) if c in TIME_COLUMNS]

RELATIONSHIP_COUNT_SQL = """
rel_ends AS (
    SELECT id AS rel_id, source_id AS entity_id FROM graph_relationships
    WHERE superseded_by IS NULL
    UNION
    SELECT id, target_id FROM graph_relationships WHERE superseded_by IS NULL
),
rel_counts AS (
    SELECT s.id, count(DISTINCT e.rel_id) AS n
    FROM (SELECT id, unnest(entity_ids) AS entity_id FROM sel) AS s
    JOIN rel_ends AS e USING (entity_id)
    GROUP BY s.id
)"""


_SUPERSEDE_TYPES = {"old_id": "VARCHAR", "new_id": "VARCHAR", "at_us": "BIGINT"}
_SUPERSEDE_READ, _SUPERSEDE_UPDATE = supersede_sql(DUCKDB, "memory_records")


def _db_row(record: MemoryRecord) -> tuple[object, ...]:
    row = list(record_to_row(record))
    for i in _TIME_IDX:
        row[i] = to_micros(row[i])  # type: ignore[arg-type]
    return tuple(row)


def _missing(conn: Conn, view: str) -> list[str]:
    rows = conn.execute(
        f"SELECT id FROM {view} WHERE id NOT IN (SELECT id FROM memory_records) ORDER BY id"
    ).fetchall()
    return [r[0] for r in rows]


class DuckDBRecordStore(DuckDBStore, RecordStoreBase):
    """Memory records in a DuckDB file (shared with DuckDBGraphStore via DuckDBDatabase).

    ``DuckDBRecordStore(path)`` or ``DuckDBRecordStore(database)``. Batches are loaded through
    DuckDB's numpy scan (``register`` + ``INSERT ... SELECT``), never bound row by row; every
    method is one transaction. ``scan`` and ``lifecycle_columns`` return records ordered by
    ``(lifecycle.created_at, id)``; ``lifecycle_columns`` covers superseded records too.
    Argument checks and the reads both backends spell alike live in :class:`RecordStoreBase`.

    ``relationship_count`` (in :meth:`lifecycle_columns`) of a record is the number of distinct
    relationships in the graph tables of the same file that are not superseded and whose source
    or target is one of the record's ``entity_ids`` (0 when it has none).

    Durability: see :class:`DuckDBDatabase` — a returned call is committed (WAL + fsync) and
    survives an application crash and power loss; a call that did not return wrote nothing.

    Example::

        async with DuckDBRecordStore(tmp_path / "memory.duckdb") as store:
            await store.put([record])
            cols = await store.lifecycle_columns(stages=[MemoryStage.SHORT_TERM])
    """

    _warming: asyncio.Task[int] | None = None
    # ``_get_rows`` answers from the database's row cache: the same row object while unchanged.
    shared_rows = True

    async def _put(self, batch: list[MemoryRecord]) -> None:
        rows = [_db_row(r) for r in batch]
        cache = self._db.record_rows

        def work(conn: Conn) -> None:
            cache.invalidate(r.id for r in batch)
            if len(rows) <= BOUND_ROWS:
                put_bound(conn, rows)
                return
            select = register_rows(conn, "remem_put", RECORD_COLUMNS, RECORD_TYPES, rows)
            try:
                existing = conn.execute(
                    "SELECT id FROM remem_put WHERE id IN (SELECT id FROM memory_records) "
                    "ORDER BY id LIMIT 10"
                ).fetchall()
                refuse_existing([r[0] for r in existing])
                conn.execute(f"INSERT INTO memory_records ({COLS}) {select}")
            finally:
                conn.unregister("remem_put")

        await self._tx(work, action="put")

    async def _upsert(self, batch: list[MemoryRecord]) -> None:
        rows = [_db_row(r) for r in batch]
        sets = ", ".join(f"{c} = excluded.{c}" for c in RECORD_COLUMNS if c != "id")
        cache = self._db.record_rows

        def work(conn: Conn) -> None:
            cache.invalidate(r.id for r in batch)
            select = register_rows(conn, "remem_upsert", RECORD_COLUMNS, RECORD_TYPES, rows)
            try:
                conn.execute(
                    f"INSERT INTO memory_records ({COLS}) {select} "
                    f"ON CONFLICT (id) DO UPDATE SET {sets}"
                )
            finally:
                conn.unregister("remem_upsert")

        await self._tx(work, action="upsert")

    async def _get_rows(self, ids: list[str]) -> dict[str, Row]:
        cache = self._db.record_rows
        await self._ready()
        if not cache.warmed:
            self._start_warm()
        since = cache.generation
        found, missing = cache.lookup(ids)
        if missing:
            # Only the ids not held are read; if a write ran meanwhile, every id is re-read so
            # the result is one committed state, never rows from before and after a write.
            rows = await self._read_rows(missing)
            if cache.generation != since:
                since = cache.generation
                rows = await self._read_rows(ids)
                found = {}
            fresh = {row[0]: row for row in rows}
            cache.store(fresh, since=since)
            found.update(fresh)
        return found

    async def warm_cache(self) -> None:
        """Fill the row cache with the newest live records now, and return when it is done
        (``get`` starts this in the background on its first call; see row_warm)."""
        await self._ready()
        cache = self._db.record_rows
        if not cache.warmed:
            self._start_warm()
        if self._warming is not None:
            await asyncio.shield(self._warming)

    def _start_warm(self) -> None:
        """Warm the row cache in the background, once per database: a DuckDB point lookup costs
        ~2-3 ms whatever the number of ids, which every recall touching new records paid; the
        warm-up pays it once, without making the first ``get`` wait (row_warm)."""
        cache = self._db.record_rows
        cache.warmed = True
        if cache.limit > 0:
            self._warming = asyncio.get_running_loop().create_task(warm_rows(self._db, cache))

    async def _close(self) -> None:
        task, self._warming = self._warming, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await super()._close()

    async def _read_rows(self, ids: list[str]) -> list[tuple[Any, ...]]:
        sql, params = rows_by_id(ids)

        def work(conn: Conn) -> list[tuple[Any, ...]]:
            return conn.execute(sql, params).fetchall()

        return await self._read(work, action="get")

    async def _lifecycle_columns(self, where: str, params: list[object]) -> LifecycleColumns:
        sql = f"""
            WITH sel AS (
                SELECT id, stage, base_score, score_reference_time, created_at, access_count,
                       confidence, protected, entity_ids, decayed_at,
                       superseded_by IS NOT NULL AS superseded
                FROM memory_records WHERE {where}
            ),
            {RELATIONSHIP_COUNT_SQL}
            SELECT sel.id, stage, base_score,
                   score_reference_time / 1e6 AS score_reference_time,
                   created_at / 1e6 AS created_at, access_count, confidence,
                   coalesce(rel_counts.n, 0)::BIGINT AS relationship_count, protected,
                   coalesce(decayed_at / 1e6, 'NaN'::DOUBLE) AS decayed_at, superseded
            FROM sel LEFT JOIN rel_counts USING (id)
            ORDER BY sel.created_at, sel.id
        """

        def work(conn: Conn) -> dict[str, Any]:
            return conn.execute(sql, params).fetchnumpy()

        cols = await self._tx(work, action="lifecycle_columns")
        return LifecycleColumns(
            ids=cols["id"].tolist(),
            stage=cols["stage"].tolist(),
            base_score=np.ascontiguousarray(cols["base_score"], dtype=np.float64),
            score_reference_time=np.ascontiguousarray(cols["score_reference_time"], np.float64),
            created_at=np.ascontiguousarray(cols["created_at"], dtype=np.float64),
            access_count=np.ascontiguousarray(cols["access_count"], dtype=np.int64),
            confidence=np.ascontiguousarray(cols["confidence"], dtype=np.float64),
            relationship_count=np.ascontiguousarray(cols["relationship_count"], dtype=np.int64),
            protected=np.ascontiguousarray(cols["protected"], dtype=np.bool_),
            decayed_at=np.ascontiguousarray(cols["decayed_at"], dtype=np.float64),
            superseded=np.ascontiguousarray(cols["superseded"], dtype=np.bool_),
        )

    async def _update_lifecycle(self, batch: list[tuple[str, MemoryLifecycleMetadata]]) -> None:
        rows = []
        for record_id, lc in batch:
            values = list(lifecycle_values(lc))
            for i in _LC_TIME_IDX:
                values[i] = to_micros(values[i])  # type: ignore[arg-type]
            rows.append((record_id, *values))
        columns = ("id", *LIFECYCLE_COLUMNS)
        sets = ", ".join(f"{c} = v.{c}" for c in LIFECYCLE_COLUMNS)
        cache = self._db.record_rows

        def work(conn: Conn) -> None:
            cache.invalidate(r[0] for r in rows)  # type: ignore[misc]
            select = register_rows(conn, "remem_lc_raw", columns, RECORD_TYPES, rows)
            try:
                missing = _missing(conn, "remem_lc_raw")
                if missing:
                    raise missing_error(missing, action="update_lifecycle")
                conn.execute(
                    f"UPDATE memory_records SET {sets} FROM ({select}) AS v "
                    "WHERE memory_records.id = v.id"
                )
            finally:
                conn.unregister("remem_lc_raw")

        await self._tx(work, action="update_lifecycle")

    async def _record_accesses(self, ids: list[str], scores: list[float], at: datetime) -> None:
        at_us = to_micros(at)
        arrays = {"id": objects(list[object](ids)), "score": np.asarray(scores, dtype=np.float64)}
        cache = self._db.record_rows

        def work(conn: Conn) -> tuple[int, dict[str, Row]]:
            taken = cache.take(ids)
            conn.register("remem_acc", arrays)
            try:
                missing = _missing(conn, "remem_acc")
                if missing:
                    raise missing_error(missing, action="record_accesses")
                early = conn.execute(
                    "SELECT m.id FROM memory_records AS m JOIN remem_acc USING (id) "
                    "WHERE m.created_at > ? ORDER BY m.id LIMIT 10",
                    [at_us],
                ).fetchall()
                refuse_early_access(at, [r[0] for r in early])
                conn.execute(
                    "UPDATE memory_records SET access_count = access_count + 1, "
                    "accessed_at = ?, score_reference_time = ?, base_score = v.score "
                    "FROM remem_acc AS v WHERE memory_records.id = v.id",
                    [at_us, at_us],
                )
            finally:
                conn.unregister("remem_acc")
            return taken

        generation, taken = await self._tx(work, action="record_accesses")
        # Committed: write the same update through to the rows the body took out of the cache.
        assert at_us is not None
        new_score = dict(zip(ids, arrays["score"].tolist(), strict=True))
        cache.put_back(
            {i: _accessed(row, float(new_score[i]), at_us) for i, row in taken.items()},
            generation=generation,
        )

    async def _supersede(self, old_id: str, new_id: str, at: datetime) -> None:
        at_us = to_micros(at)
        cache = self._db.record_rows

        def work(conn: Conn) -> None:
            cache.invalidate((old_id, new_id))
            found = dict(conn.execute(_SUPERSEDE_READ, [old_id, new_id]).fetchall())
            refuse_supersede(found, old_id, new_id, unknown=_unknown, that="that one")
            conn.execute(_SUPERSEDE_UPDATE, [new_id, at_us, at_us, old_id])

        await self._tx(work, action="supersede")

    async def _supersede_many(self, batch: list[tuple[str, str, datetime]]) -> None:
        rows: list[tuple[object, ...]] = [(old, new, to_micros(at)) for old, new, at in batch]
        columns = ("old_id", "new_id", "at_us")
        cache = self._db.record_rows

        def work(conn: Conn) -> None:
            cache.invalidate(old for old, _, _ in batch)
            select = register_rows(conn, "remem_sup_raw", columns, _SUPERSEDE_TYPES, rows)
            try:
                conn.execute(f"CREATE TEMP TABLE remem_sup AS {select}")
                missing = conn.execute(
                    "SELECT i FROM (SELECT old_id AS i FROM remem_sup UNION "
                    "SELECT new_id FROM remem_sup) WHERE i NOT IN (SELECT id FROM memory_records) "
                    "ORDER BY i"
                ).fetchall()
                if missing:
                    raise missing_error([r[0] for r in missing], action="supersede_many")
                refuse_taken(
                    conn.execute(
                        "SELECT m.id, m.superseded_by FROM memory_records AS m JOIN remem_sup AS s "
                        "ON m.id = s.old_id WHERE m.superseded_by IS NOT NULL "
                        "AND m.superseded_by <> s.new_id ORDER BY m.id LIMIT 10"
                    ).fetchall()
                )
                conn.execute(
                    "UPDATE memory_records SET superseded_by = s.new_id, valid_to = CASE "
                    "WHEN memory_records.valid_to IS NULL OR memory_records.valid_to > s.at_us "
                    "THEN s.at_us ELSE memory_records.valid_to END "
                    "FROM remem_sup AS s WHERE memory_records.id = s.old_id"
                )
            finally:
                conn.execute("DROP TABLE IF EXISTS remem_sup")
                conn.unregister("remem_sup_raw")

        await self._tx(work, action="supersede_many")

    async def _delete(self, ids: list[str]) -> int:
        cache = self._db.record_rows

        def work(conn: Conn) -> int:
            cache.invalidate(ids)
            row = conn.execute(
                f"DELETE FROM memory_records WHERE {DUCKDB.member('id')}", [ids]
            ).fetchone()
            return int(row[0]) if row else 0

        return await self._tx(work, action="delete")


def _unknown(ids: list[str]) -> Exception:
    return missing_error(ids, action="supersede")


_BASE, _REFERENCE, _ACCESSED, _COUNT = (RECORD_COLUMNS.index(c) for c in ACCESS_COLUMNS)


def _accessed(row: Row, base_score: float, at_us: int) -> Row:
    """``row`` after record_accesses' UPDATE (the same arithmetic, in Python)."""
    out = list(row)
    out[_BASE], out[_REFERENCE], out[_ACCESSED] = base_score, at_us, at_us
    out[_COUNT] = row[_COUNT] + 1
    return tuple(out)
