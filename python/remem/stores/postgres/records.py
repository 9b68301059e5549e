"""PostgresRecordStore: memory records in PostgreSQL (psycopg 3, async, pooled)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from remem.models import MemoryLifecycleMetadata, MemoryRecord
from remem.stores.base.records import (
    COLS,
    RecordStoreBase,
    Row,
    refuse_early_access,
    refuse_existing,
    refuse_supersede,
    refuse_taken,
    supersede_sql,
)
from remem.stores.postgres.base import AConn, PostgresStore, copy_rows, fetch_ids
from remem.stores.postgres.schema import GRAPH_MIGRATIONS, RECORD_MIGRATIONS
from remem.stores.records import LifecycleColumns
from remem.stores.shared.record_checks import missing_error
from remem.stores.shared.record_rows import (
    LIFECYCLE_COLUMNS,
    RECORD_COLUMNS,
    lifecycle_values,
    record_to_row,
)
from remem.stores.sql.dialect import POSTGRES

_SUPERSEDE_READ, _SUPERSEDE_UPDATE = supersede_sql(POSTGRES, "memory_records")


async def _temp_like(conn: AConn, name: str, columns: Sequence[str]) -> None:
    await conn.execute(
        f"CREATE TEMP TABLE {name} ON COMMIT DROP AS "
        f"SELECT {', '.join(columns)} FROM memory_records WITH NO DATA"
    )


async def _missing(conn: AConn, table: str) -> list[str]:
    return await fetch_ids(
        conn,
        f"SELECT t.id FROM {table} AS t WHERE NOT EXISTS "
        f'(SELECT 1 FROM memory_records AS m WHERE m.id = t.id) ORDER BY t.id COLLATE "C"',
        [],
    )


class PostgresRecordStore(PostgresStore, RecordStoreBase):
    """Memory records in PostgreSQL; same contract and orderings as DuckDBRecordStore.

    ``PostgresRecordStore(dsn)``. Batches are loaded with ``COPY`` into a temporary table and
    applied by one ``INSERT/UPDATE ... SELECT`` in the same transaction, so a DuplicateIdError
    or NotFoundError leaves nothing written. Opening applies the ``graph`` and ``records``
    migrations (``relationship_count`` joins the graph tables). Argument checks and the reads
    both backends spell alike live in :class:`RecordStoreBase`.

    ``relationship_count`` of a record is the number of distinct non-superseded relationships
    whose source or target is one of the record's ``entity_ids`` (0 when it has none).

    Durability: each call is one committed PostgreSQL transaction; once it returns it survives
    an application crash and (with the server's default ``fsync``/``synchronous_commit``) power
    loss. Note: jsonb normalises numbers, so a metadata float written in exponent form with no
    fraction (e.g. ``1e20``) reads back as an int.
    """

    _components = (("graph", GRAPH_MIGRATIONS), ("records", RECORD_MIGRATIONS))

    async def _put(self, batch: list[MemoryRecord]) -> None:
        rows = [record_to_row(r) for r in batch]

        async def work(conn: AConn) -> None:
            await _temp_like(conn, "remem_put", RECORD_COLUMNS)
            await copy_rows(conn, "remem_put", RECORD_COLUMNS, rows)
            refuse_existing(
                await fetch_ids(
                    conn,
                    "SELECT p.id FROM remem_put AS p JOIN memory_records AS m ON m.id = p.id "
                    'ORDER BY p.id COLLATE "C" LIMIT 10',
                    [],
                )
            )
            await conn.execute(f"INSERT INTO memory_records ({COLS}) SELECT {COLS} FROM remem_put")

        await self._tx(work, action="put")

    async def _upsert(self, batch: list[MemoryRecord]) -> None:
        rows = [record_to_row(r) for r in batch]
        sets = ", ".join(f"{c} = excluded.{c}" for c in RECORD_COLUMNS if c != "id")

        async def work(conn: AConn) -> None:
            await _temp_like(conn, "remem_upsert", RECORD_COLUMNS)
            await copy_rows(conn, "remem_upsert", RECORD_COLUMNS, rows)
            await conn.execute(
                f"INSERT INTO memory_records ({COLS}) SELECT {COLS} FROM remem_upsert "
                f"ON CONFLICT (id) DO UPDATE SET {sets}"
            )

        await self._tx(work, action="upsert")

    async def _get_rows(self, ids: list[str]) -> dict[str, Row]:
        sql = f"SELECT {COLS} FROM memory_records WHERE {POSTGRES.member('id')}"
        return {row[0]: row for row in await self._rows(sql, [ids], action="get")}

    async def _lifecycle_columns(self, where: str, params: list[object]) -> LifecycleColumns:
        sql = f"""
            WITH sel AS (
                SELECT id, stage, base_score, score_reference_time, created_at, access_count,
                       confidence, protected, entity_ids, decayed_at,
                       superseded_by IS NOT NULL AS superseded
                FROM memory_records WHERE {where}
            ),
            rel_ends AS (
                SELECT id AS rel_id, source_id AS entity_id FROM graph_relationships
                WHERE superseded_by IS NULL
                UNION
                SELECT id, target_id FROM graph_relationships WHERE superseded_by IS NULL
            ),
            rel_counts AS (
                SELECT s.id, count(DISTINCT e.rel_id) AS n
                FROM sel AS s CROSS JOIN LATERAL unnest(s.entity_ids) AS u(entity_id)
                JOIN rel_ends AS e ON e.entity_id = u.entity_id
                GROUP BY s.id
            )
            SELECT sel.id, stage, base_score,
                   extract(epoch FROM score_reference_time)::float8,
                   extract(epoch FROM created_at)::float8, access_count, confidence,
                   coalesce(rel_counts.n, 0)::int8, protected,
                   coalesce(extract(epoch FROM decayed_at)::float8, 'NaN'::float8), superseded
            FROM sel LEFT JOIN rel_counts ON rel_counts.id = sel.id
            ORDER BY sel.created_at, sel.id COLLATE "C"
        """

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            cur = conn.cursor(binary=True)
            await cur.execute(sql, params)
            return await cur.fetchall()

        rows = await self._tx(work, action="lifecycle_columns")
        cols: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [()] * 11
        return LifecycleColumns(
            ids=list(cols[0]),
            stage=list(cols[1]),
            base_score=np.array(cols[2], dtype=np.float64),
            score_reference_time=np.array(cols[3], dtype=np.float64),
            created_at=np.array(cols[4], dtype=np.float64),
            access_count=np.array(cols[5], dtype=np.int64),
            confidence=np.array(cols[6], dtype=np.float64),
            relationship_count=np.array(cols[7], dtype=np.int64),
            protected=np.array(cols[8], dtype=np.bool_),
            decayed_at=np.array(cols[9], dtype=np.float64),
            superseded=np.array(cols[10], dtype=np.bool_),
        )

    async def _update_lifecycle(self, batch: list[tuple[str, MemoryLifecycleMetadata]]) -> None:
        columns = ("id", *LIFECYCLE_COLUMNS)
        rows = [(record_id, *lifecycle_values(lc)) for record_id, lc in batch]
        sets = ", ".join(f"{c} = v.{c}" for c in LIFECYCLE_COLUMNS)

        async def work(conn: AConn) -> None:
            await _temp_like(conn, "remem_lc", columns)
            await copy_rows(conn, "remem_lc", columns, rows)
            missing = await _missing(conn, "remem_lc")
            if missing:
                raise missing_error(missing, action="update_lifecycle")
            await conn.execute(
                f"UPDATE memory_records AS m SET {sets} FROM remem_lc AS v WHERE m.id = v.id"
            )

        await self._tx(work, action="update_lifecycle")

    async def _record_accesses(self, ids: list[str], scores: list[float], at: datetime) -> None:
        acc = "unnest(%(ids)s::text[], %(scores)s::float8[]) AS v(id, score)"
        params = {"ids": ids, "scores": scores, "at": at}

        async def work(conn: AConn) -> None:
            missing = await fetch_ids(
                conn,
                f"SELECT v.id FROM {acc} WHERE NOT EXISTS "
                '(SELECT 1 FROM memory_records AS m WHERE m.id = v.id) ORDER BY v.id COLLATE "C"',
                params,
            )
            if missing:
                raise missing_error(missing, action="record_accesses")
            early = await fetch_ids(
                conn,
                f"SELECT m.id FROM memory_records AS m JOIN {acc} ON m.id = v.id "
                'WHERE m.created_at > %(at)s ORDER BY m.id COLLATE "C" LIMIT 10',
                params,
            )
            refuse_early_access(at, early)
            await conn.execute(
                "UPDATE memory_records AS m SET access_count = m.access_count + 1, "
                "accessed_at = %(at)s, score_reference_time = %(at)s, base_score = v.score "
                f"FROM {acc} WHERE m.id = v.id",
                params,
            )

        await self._tx(work, action="record_accesses")

    async def _supersede(self, old_id: str, new_id: str, at: datetime) -> None:
        async def work(conn: AConn) -> None:
            cur = await conn.execute(_SUPERSEDE_READ, [old_id, new_id])
            found = {r[0]: r[1] for r in await cur.fetchall()}
            refuse_supersede(found, old_id, new_id, unknown=_unknown, that="that one")
            await conn.execute(_SUPERSEDE_UPDATE, [new_id, at, at, old_id])

        await self._tx(work, action="supersede")

    async def _supersede_many(self, batch: list[tuple[str, str, datetime]]) -> None:
        sup = (
            "unnest(%(old)s::text[], %(new)s::text[], %(at)s::timestamptz[]) "
            "AS s(old_id, new_id, at)"
        )
        params = {
            "old": [b[0] for b in batch],
            "new": [b[1] for b in batch],
            "at": [b[2] for b in batch],
        }

        async def work(conn: AConn) -> None:
            missing = await fetch_ids(
                conn,
                f'SELECT DISTINCT i COLLATE "C" AS i FROM {sup}, '
                "LATERAL (VALUES (s.old_id), (s.new_id)) AS v(i) "
                "WHERE NOT EXISTS (SELECT 1 FROM memory_records AS m WHERE m.id = v.i) "
                "ORDER BY i",
                params,
            )
            if missing:
                raise missing_error(missing, action="supersede_many")
            cur = await conn.execute(
                f"SELECT m.id, m.superseded_by FROM memory_records AS m JOIN {sup} "
                "ON m.id = s.old_id WHERE m.superseded_by IS NOT NULL "
                'AND m.superseded_by <> s.new_id ORDER BY m.id COLLATE "C" LIMIT 10',
                params,
            )
            refuse_taken(await cur.fetchall())
            await conn.execute(
                "UPDATE memory_records AS m SET superseded_by = s.new_id, valid_to = CASE "
                "WHEN m.valid_to IS NULL OR m.valid_to > s.at THEN s.at ELSE m.valid_to END "
                f"FROM {sup} WHERE m.id = s.old_id",
                params,
            )

        await self._tx(work, action="supersede_many")

    async def _delete(self, ids: list[str]) -> int:
        async def work(conn: AConn) -> int:
            cur = await conn.execute(
                f"DELETE FROM memory_records WHERE {POSTGRES.member('id')}", [ids]
            )
            return cur.rowcount

        return await self._tx(work, action="delete")


def _unknown(ids: list[str]) -> Exception:
    return missing_error(ids, action="supersede")
