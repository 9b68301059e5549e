"""PostgresGraphStore: the entity graph in PostgreSQL (psycopg 3, async, pooled)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from remem.errors import InvalidArgumentError
from remem.models import Entity, Relationship
from remem.stores.base.graph import (
    E_COLS,
    ENTITY_UPDATE_SETS,
    R_COLS,
    GraphStoreBase,
    refuse_existing_relationships,
    refuse_relationship_supersede,
    relationship_supersede_sql,
    valid_at_sql,
)
from remem.stores.graph import Neighbour
from remem.stores.postgres.base import AConn, PostgresStore, copy_rows, fetch_ids
from remem.stores.postgres.schema import GRAPH_MIGRATIONS
from remem.stores.shared.graph_checks import missing_entities
from remem.stores.shared.graph_rows import (
    ENTITY_COLUMNS,
    RELATIONSHIP_COLUMNS,
    entity_to_row,
    relationship_to_row,
    row_to_entity,
)
from remem.stores.sql.dialect import POSTGRES

_SUPERSEDE_READ, _SUPERSEDE_UPDATE = relationship_supersede_sql(POSTGRES)


async def _missing_entities(conn: AConn, ids: list[str]) -> list[str]:
    return await fetch_ids(
        conn,
        'SELECT DISTINCT i COLLATE "C" AS i FROM unnest(%s::text[]) AS t(i) WHERE NOT EXISTS '
        "(SELECT 1 FROM graph_entities AS g WHERE g.id = t.i) ORDER BY 1",
        [ids],
    )


class PostgresGraphStore(PostgresStore, GraphStoreBase):
    """The entity graph in PostgreSQL; same contract and decisions as DuckDBGraphStore.

    ``PostgresGraphStore(dsn)``. Entities and relationships are bulk-loaded with ``COPY`` into a
    temporary table and applied by one ``INSERT ... SELECT`` in the same transaction.
    Argument checks and the reads both backends spell alike live in :class:`GraphStoreBase`.
    Durability: each call is one committed transaction (survives an application crash, and power
    loss with the server's default fsync settings).
    """

    _components = (("graph", GRAPH_MIGRATIONS),)

    async def _upsert_entities(
        self, entities: list[Entity], aliases: list[tuple[str, str]]
    ) -> None:
        rows = [entity_to_row(e) for e in entities]

        async def work(conn: AConn) -> None:
            await conn.execute(
                f"CREATE TEMP TABLE remem_ents ON COMMIT DROP AS "
                f"SELECT {E_COLS} FROM graph_entities WITH NO DATA"
            )
            await copy_rows(conn, "remem_ents", ENTITY_COLUMNS, rows)
            await conn.execute(
                f"INSERT INTO graph_entities ({E_COLS}) SELECT {E_COLS} FROM remem_ents "
                f"ON CONFLICT (id) DO UPDATE SET {ENTITY_UPDATE_SETS}"
            )
            await conn.execute(
                "DELETE FROM graph_entity_aliases WHERE entity_id IN (SELECT id FROM remem_ents)"
            )
            if aliases:
                await conn.execute(
                    "INSERT INTO graph_entity_aliases (entity_id, alias_norm) "
                    "SELECT * FROM unnest(%s::text[], %s::text[])",
                    [[a for a, _ in aliases], [n for _, n in aliases]],
                )

        await self._tx(work, action="upsert_entities")

    async def _add_relationships(self, batch: list[Relationship], endpoints: list[str]) -> None:
        rows = [relationship_to_row(r) for r in batch]

        async def work(conn: AConn) -> None:
            missing = await _missing_entities(conn, endpoints)
            if missing:
                raise missing_entities(missing, action="add_relationships")
            await conn.execute(
                f"CREATE TEMP TABLE remem_rels ON COMMIT DROP AS "
                f"SELECT {R_COLS} FROM graph_relationships WITH NO DATA"
            )
            await copy_rows(conn, "remem_rels", RELATIONSHIP_COLUMNS, rows)
            refuse_existing_relationships(
                await fetch_ids(
                    conn,
                    "SELECT r.id FROM remem_rels AS r JOIN graph_relationships AS g "
                    'ON g.id = r.id ORDER BY r.id COLLATE "C" LIMIT 10',
                    [],
                )
            )
            await conn.execute(
                f"INSERT INTO graph_relationships ({R_COLS}) SELECT {R_COLS} FROM remem_rels"
            )

        await self._tx(work, action="add_relationships")

    async def _supersede_relationship(self, old_id: str, new_id: str, at: datetime) -> None:
        async def work(conn: AConn) -> None:
            cur = await conn.execute(_SUPERSEDE_READ, [old_id, new_id])
            found = {r[0]: r[1] for r in await cur.fetchall()}
            refuse_relationship_supersede(found, old_id, new_id)
            await conn.execute(_SUPERSEDE_UPDATE, [new_id, at, at, old_id])

        await self._tx(work, action="supersede_relationship")

    async def _end_relationship(self, rel_id: str, at: datetime) -> None:
        when = at

        async def work(conn: AConn) -> None:
            cur = await conn.execute(
                "SELECT superseded_by FROM graph_relationships WHERE id = %s FOR UPDATE",
                [rel_id],
            )
            found = await cur.fetchall()
            if not found:
                raise missing_entities([rel_id], action="end_relationship", what="relationship")
            if found[0][0] is not None:
                raise InvalidArgumentError(
                    f"{rel_id!r} is superseded by {found[0][0]!r}; end that one instead"
                )
            await conn.execute(
                "UPDATE graph_relationships SET valid_to = CASE "
                "WHEN valid_to IS NULL OR valid_to > %s THEN %s ELSE valid_to END WHERE id = %s",
                [when, when, rel_id],
            )

        await self._tx(work, action="end_relationship")

    async def _neighbours(
        self, starts: list[str], depth: int, at: datetime | None
    ) -> list[Neighbour]:
        valid = "superseded_by IS NULL" + (
            f" AND {valid_at_sql(POSTGRES)}" if at is not None else ""
        )
        cols = ", ".join("g." + c for c in ENTITY_COLUMNS)
        sql = f"""
            WITH RECURSIVE
            live AS (SELECT id, source_id, target_id FROM graph_relationships WHERE {valid}),
            edges AS (
                SELECT id, source_id AS a, target_id AS b FROM live
                UNION ALL SELECT id, target_id, source_id FROM live
            ),
            walk(entity_id, depth, path, seen) AS (
                SELECT s COLLATE "C", 0, ARRAY[]::text[] COLLATE "C", ARRAY[s] COLLATE "C"
                FROM unnest(%(starts)s::text[]) AS t(s)
                UNION ALL
                SELECT e.b, w.depth + 1, w.path || e.id, w.seen || e.b
                FROM walk AS w JOIN edges AS e ON e.a = w.entity_id
                WHERE w.depth < %(depth)s AND NOT (e.b = ANY(w.seen))
            ),
            best AS (
                SELECT DISTINCT ON (entity_id) entity_id, depth, path FROM walk
                WHERE depth > 0 AND NOT (entity_id = ANY(%(starts)s::text[]))
                ORDER BY entity_id, depth, path COLLATE "C"
            )
            SELECT best.depth, best.path, {cols}
            FROM best JOIN graph_entities AS g ON g.id = best.entity_id
            ORDER BY best.depth, g.id COLLATE "C"
        """
        params = {"starts": starts, "depth": depth, "at": at}

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            missing = await _missing_entities(conn, starts)
            if missing:
                raise missing_entities(missing, action="neighbours")
            cur = await conn.execute(sql, params)
            return await cur.fetchall()

        rows = await self._tx(work, action="neighbours")
        return [Neighbour(row_to_entity(r[2:]), int(r[0]), tuple(r[1])) for r in rows]

    async def _record_access(self, counts: dict[str, int]) -> None:
        ids, ns = list(counts), list(counts.values())

        async def work(conn: AConn) -> None:
            missing = await _missing_entities(conn, ids)
            if missing:
                raise missing_entities(missing, action="record_access")
            await conn.execute(
                "UPDATE graph_entities AS g SET access_count = g.access_count + v.n "
                "FROM unnest(%s::text[], %s::int8[]) AS v(id, n) WHERE g.id = v.id",
                [ids, ns],
            )

        await self._tx(work, action="record_access")
