"""PostgresGraphStore: the entity graph in PostgreSQL (psycopg 3, async, pooled)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from remem.errors import DuplicateIdError, InvalidArgumentError
from remem.models import Entity, Relationship
from remem.stores.graph import Neighbour
from remem.stores.graph_checks import (
    check_at,
    check_counts,
    check_depth,
    check_direction,
    check_name,
    missing_entities,
)
from remem.stores.graph_rows import (
    ENTITY_COLUMNS,
    RELATIONSHIP_COLUMNS,
    alias_rows,
    check_items,
    entity_to_row,
    normalise_name,
    relationship_to_row,
    row_to_entity,
    row_to_relationship,
)
from remem.stores.postgres.base import AConn, PostgresStore, copy_rows, fetch_ids
from remem.stores.postgres.schema import GRAPH_MIGRATIONS
from remem.stores.record_rows import check_ids, duplicates

_E = ", ".join(ENTITY_COLUMNS)
_R = ", ".join(RELATIONSHIP_COLUMNS)
_E_UPDATE = ("name", "name_norm", "entity_type", "aliases", "attributes", "namespace",
             "provenance", "updated_at")  # fmt: skip
_VALID_AT = (
    "(valid_from IS NULL OR valid_from <= %(at)s) AND (valid_to IS NULL OR %(at)s < valid_to)"
)


async def _missing_entities(conn: AConn, ids: list[str]) -> list[str]:
    return await fetch_ids(
        conn,
        'SELECT DISTINCT i COLLATE "C" AS i FROM unnest(%s::text[]) AS t(i) WHERE NOT EXISTS '
        "(SELECT 1 FROM graph_entities AS g WHERE g.id = t.i) ORDER BY 1",
        [ids],
    )


class PostgresGraphStore(PostgresStore):
    """The entity graph in PostgreSQL; same contract and decisions as DuckDBGraphStore.

    ``PostgresGraphStore(dsn)``. Entities and relationships are bulk-loaded with ``COPY`` into a
    temporary table and applied by one ``INSERT ... SELECT`` in the same transaction.
    Durability: each call is one committed transaction (survives an application crash, and power
    loss with the server's default fsync settings).
    """

    _components = (("graph", GRAPH_MIGRATIONS),)

    async def upsert_entities(self, entities: Sequence[Entity]) -> None:
        batch = {e.id: e for e in check_items(entities, Entity, action="upsert_entities")}
        if not batch:
            return
        rows = [entity_to_row(e) for e in batch.values()]
        aliases = [pair for e in batch.values() for pair in alias_rows(e)]
        sets = ", ".join(f"{c} = excluded.{c}" for c in _E_UPDATE)

        async def work(conn: AConn) -> None:
            await conn.execute(
                f"CREATE TEMP TABLE remem_ents ON COMMIT DROP AS "
                f"SELECT {_E} FROM graph_entities WITH NO DATA"
            )
            await copy_rows(conn, "remem_ents", ENTITY_COLUMNS, rows)
            await conn.execute(
                f"INSERT INTO graph_entities ({_E}) SELECT {_E} FROM remem_ents "
                f"ON CONFLICT (id) DO UPDATE SET {sets}"
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

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        wanted = check_ids(ids, action="get_entities")
        if not wanted:
            return []

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            cur = await conn.execute(
                f"SELECT {_E} FROM graph_entities WHERE id = ANY(%s::text[])",
                [list(dict.fromkeys(wanted))],
            )
            return await cur.fetchall()

        found = {row[0]: row for row in await self._tx(work, action="get_entities")}
        missing = [i for i in dict.fromkeys(wanted) if i not in found]
        if missing:
            raise missing_entities(missing, action="get_entities")
        return [row_to_entity(found[i]) for i in wanted]

    async def find_entities(self, name: str, *, namespace: str | None = None) -> list[Entity]:
        key = normalise_name(check_name(name))
        if not key:
            return []
        sql = (
            f"SELECT {_E} FROM graph_entities WHERE (name_norm = %(k)s OR id IN "
            "(SELECT entity_id FROM graph_entity_aliases WHERE alias_norm = %(k)s))"
            + (" AND namespace = %(ns)s" if namespace is not None else "")
            + ' ORDER BY id COLLATE "C"'
        )

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            cur = await conn.execute(sql, {"k": key, "ns": namespace})
            return await cur.fetchall()

        return [row_to_entity(r) for r in await self._tx(work, action="find_entities")]

    async def list_entities(self, *, namespace: str | None = None) -> list[Entity]:
        where = "WHERE namespace = %s" if namespace is not None else ""
        params = [namespace] if namespace is not None else []

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            cur = await conn.execute(
                f'SELECT {_E} FROM graph_entities {where} ORDER BY id COLLATE "C"', params
            )
            return await cur.fetchall()

        return [row_to_entity(r) for r in await self._tx(work, action="list_entities")]

    async def add_relationships(self, relationships: Sequence[Relationship]) -> None:
        batch = check_items(relationships, Relationship, action="add_relationships")
        dups = duplicates([r.id for r in batch])
        if dups:
            raise DuplicateIdError(
                f"add_relationships: ids {dups[:10]} appear twice in the batch; nothing written"
            )
        if not batch:
            return
        rows = [relationship_to_row(r) for r in batch]
        endpoints = list(dict.fromkeys(i for r in batch for i in (r.source_id, r.target_id)))

        async def work(conn: AConn) -> None:
            missing = await _missing_entities(conn, endpoints)
            if missing:
                raise missing_entities(missing, action="add_relationships")
            await conn.execute(
                f"CREATE TEMP TABLE remem_rels ON COMMIT DROP AS "
                f"SELECT {_R} FROM graph_relationships WITH NO DATA"
            )
            await copy_rows(conn, "remem_rels", RELATIONSHIP_COLUMNS, rows)
            existing = await fetch_ids(
                conn,
                "SELECT r.id FROM remem_rels AS r JOIN graph_relationships AS g ON g.id = r.id "
                'ORDER BY r.id COLLATE "C" LIMIT 10',
                [],
            )
            if existing:
                raise DuplicateIdError(
                    f"add_relationships: ids {existing} already exist; nothing was written"
                )
            await conn.execute(
                f"INSERT INTO graph_relationships ({_R}) SELECT {_R} FROM remem_rels"
            )

        await self._tx(work, action="add_relationships")

    async def relationships(
        self,
        entity_id: str,
        *,
        direction: Literal["out", "in", "both"] = "both",
        at: datetime | None = None,
        include_superseded: bool = False,
    ) -> list[Relationship]:
        check_ids([entity_id], action="relationships")
        ends = {"out": "source_id = %(e)s", "in": "target_id = %(e)s"}.get(
            check_direction(direction), "(source_id = %(e)s OR target_id = %(e)s)"
        )
        clauses = [ends]
        when = check_at(at)
        if when is not None:
            clauses.append(_VALID_AT)
        if not include_superseded:
            clauses.append("superseded_by IS NULL")
        sql = f"SELECT {_R} FROM graph_relationships WHERE {' AND '.join(clauses)} "
        sql += 'ORDER BY created_at, id COLLATE "C"'

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            cur = await conn.execute(sql, {"e": entity_id, "at": when})
            return await cur.fetchall()

        return [row_to_relationship(r) for r in await self._tx(work, action="relationships")]

    async def supersede_relationship(self, old_id: str, new_id: str, *, at: datetime) -> None:
        check_ids([old_id, new_id], action="supersede_relationship")
        if old_id == new_id:
            raise InvalidArgumentError(f"{old_id!r} cannot supersede itself; pass a different id")
        when = check_at(at)

        async def work(conn: AConn) -> None:
            cur = await conn.execute(
                "SELECT id, superseded_by FROM graph_relationships WHERE id IN (%s, %s) FOR UPDATE",
                [old_id, new_id],
            )
            found = {r[0]: r[1] for r in await cur.fetchall()}
            missing = [i for i in (old_id, new_id) if i not in found]
            if missing:
                raise missing_entities(
                    missing, action="supersede_relationship", what="relationship"
                )
            if found[old_id] is not None and found[old_id] != new_id:
                raise InvalidArgumentError(
                    f"{old_id!r} is already superseded by {found[old_id]!r}; supersede that instead"
                )
            await conn.execute(
                "UPDATE graph_relationships SET superseded_by = %s, valid_to = CASE "
                "WHEN valid_to IS NULL OR valid_to > %s THEN %s ELSE valid_to END WHERE id = %s",
                [new_id, when, when, old_id],
            )

        await self._tx(work, action="supersede_relationship")

    async def end_relationship(self, rel_id: str, *, at: datetime) -> None:
        check_ids([rel_id], action="end_relationship")
        when = check_at(at)

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

    async def neighbours(
        self, entity_ids: Sequence[str], *, depth: int = 1, at: datetime | None = None
    ) -> list[Neighbour]:
        starts = list(dict.fromkeys(check_ids(entity_ids, action="neighbours")))
        max_depth = check_depth(depth)
        when = check_at(at)
        if not starts:
            return []
        valid = "superseded_by IS NULL" + (f" AND {_VALID_AT}" if when is not None else "")
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
        params = {"starts": starts, "depth": max_depth, "at": when}

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            missing = await _missing_entities(conn, starts)
            if missing:
                raise missing_entities(missing, action="neighbours")
            cur = await conn.execute(sql, params)
            return await cur.fetchall()

        rows = await self._tx(work, action="neighbours")
        return [Neighbour(row_to_entity(r[2:]), int(r[0]), tuple(r[1])) for r in rows]

    async def record_access(self, counts: Mapping[str, int]) -> None:
        checked = {k: v for k, v in check_counts(counts).items() if v}
        if not checked:
            return
        ids, ns = list(checked), list(checked.values())

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

    async def relationship_counts(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """Per entity: the number of non-superseded relationships it is source or target of."""
        wanted = list(dict.fromkeys(check_ids(entity_ids, action="relationship_counts")))
        if not wanted:
            return {}

        async def work(conn: AConn) -> list[tuple[Any, ...]]:
            cur = await conn.execute(
                """
                WITH ends AS (
                    SELECT id, source_id AS e FROM graph_relationships WHERE superseded_by IS NULL
                    UNION
                    SELECT id, target_id FROM graph_relationships WHERE superseded_by IS NULL
                )
                SELECT e, count(*) FROM ends WHERE e = ANY(%s::text[]) GROUP BY e
                """,
                [wanted],
            )
            return await cur.fetchall()

        found = {r[0]: r[1] for r in await self._tx(work, action="relationship_counts")}
        return {i: int(found.get(i, 0)) for i in wanted}
