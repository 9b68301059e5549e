"""DuckDBGraphStore: the entity graph in the embedded DuckDB memory file."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np

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
from remem.stores.duckdb.base import DuckDBStore
from remem.stores.duckdb.database import Conn, objects, register_rows
from remem.stores.duckdb.schema import ENTITY_TYPES, RELATIONSHIP_TYPES
from remem.stores.graph import Neighbour
from remem.stores.shared.graph_checks import missing_entities
from remem.stores.shared.graph_rows import (
    ENTITY_COLUMNS,
    ENTITY_TIME_COLUMNS,
    RELATIONSHIP_COLUMNS,
    RELATIONSHIP_TIME_COLUMNS,
    entity_to_row,
    relationship_to_row,
    row_to_entity,
)
from remem.stores.shared.record_rows import to_micros
from remem.stores.sql.dialect import DUCKDB

_E_TIME = [i for i, c in enumerate(ENTITY_COLUMNS) if c in ENTITY_TIME_COLUMNS]
_R_TIME = [i for i, c in enumerate(RELATIONSHIP_COLUMNS) if c in RELATIONSHIP_TIME_COLUMNS]
_SUPERSEDE_READ, _SUPERSEDE_UPDATE = relationship_supersede_sql(DUCKDB)


def _micros(row: tuple[object, ...], idx: list[int]) -> tuple[object, ...]:
    out = list(row)
    for i in idx:
        out[i] = to_micros(out[i])  # type: ignore[arg-type]
    return tuple(out)


def _missing_entities(conn: Conn, ids: list[str]) -> list[str]:
    rows = conn.execute(
        "SELECT DISTINCT i FROM unnest(?::VARCHAR[]) AS t(i) "
        "WHERE i NOT IN (SELECT id FROM graph_entities) ORDER BY i",
        [ids],
    ).fetchall()
    return [r[0] for r in rows]


class DuckDBGraphStore(DuckDBStore, GraphStoreBase):
    """Entities and relationships in a DuckDB file (shared with DuckDBRecordStore).

    ``DuckDBGraphStore(path)`` or ``DuckDBGraphStore(database)``. Decisions beyond the protocol:
    an upsert of an existing entity keeps its stored ``access_count`` and ``created_at`` (usage is
    counted by ``record_access``, not reset by re-extraction); ``add_relationships`` refuses
    existing ids (DuplicateIdError) and endpoints that are not stored entities (NotFoundError),
    writing nothing; ``neighbours`` raises NotFoundError for unknown start ids and, among equally
    short paths, reports the lexicographically smallest list of relationship ids; it does not
    revisit an entity within one path, so its cost grows with the number of simple paths up to
    ``depth``. ``record_access`` counts entity accesses. Lists are ordered by id (entities) or
    ``(created_at, id)`` (relationships). Argument checks and the reads both backends spell
    alike live in :class:`GraphStoreBase`. Durability: as :class:`DuckDBDatabase`.
    """

    async def _upsert_entities(
        self, entities: list[Entity], aliases: list[tuple[str, str]]
    ) -> None:
        rows = [_micros(entity_to_row(e), _E_TIME) for e in entities]
        alias_arrays = {
            "entity_id": objects([a for a, _ in aliases]),
            "alias_norm": objects([n for _, n in aliases]),
        }

        def work(conn: Conn) -> None:
            select = register_rows(conn, "remem_ents", ENTITY_COLUMNS, ENTITY_TYPES, rows)
            conn.register("remem_aliases", alias_arrays)
            try:
                conn.execute(
                    f"INSERT INTO graph_entities ({E_COLS}) {select} "
                    f"ON CONFLICT (id) DO UPDATE SET {ENTITY_UPDATE_SETS}"
                )
                conn.execute(
                    "DELETE FROM graph_entity_aliases "
                    "WHERE entity_id IN (SELECT id FROM remem_ents)"
                )
                if aliases:
                    conn.execute(
                        "INSERT INTO graph_entity_aliases SELECT CAST(entity_id AS VARCHAR), "
                        "CAST(alias_norm AS VARCHAR) FROM remem_aliases"
                    )
            finally:
                conn.unregister("remem_ents")
                conn.unregister("remem_aliases")

        await self._tx(work, action="upsert_entities")

    async def _add_relationships(self, batch: list[Relationship], endpoints: list[str]) -> None:
        rows = [_micros(relationship_to_row(r), _R_TIME) for r in batch]

        def work(conn: Conn) -> None:
            missing = _missing_entities(conn, endpoints)
            if missing:
                raise missing_entities(missing, action="add_relationships")
            select = register_rows(
                conn, "remem_rels", RELATIONSHIP_COLUMNS, RELATIONSHIP_TYPES, rows
            )
            try:
                existing = conn.execute(
                    "SELECT id FROM remem_rels WHERE id IN (SELECT id FROM graph_relationships) "
                    "ORDER BY id LIMIT 10"
                ).fetchall()
                refuse_existing_relationships([r[0] for r in existing])
                conn.execute(f"INSERT INTO graph_relationships ({R_COLS}) {select}")
            finally:
                conn.unregister("remem_rels")

        await self._tx(work, action="add_relationships")

    async def _supersede_relationship(self, old_id: str, new_id: str, at: datetime) -> None:
        at_us = to_micros(at)

        def work(conn: Conn) -> None:
            found = dict(conn.execute(_SUPERSEDE_READ, [old_id, new_id]).fetchall())
            refuse_relationship_supersede(found, old_id, new_id)
            conn.execute(_SUPERSEDE_UPDATE, [new_id, at_us, at_us, old_id])

        await self._tx(work, action="supersede_relationship")

    async def _end_relationship(self, rel_id: str, at: datetime) -> None:
        at_us = to_micros(at)

        def work(conn: Conn) -> None:
            found = conn.execute(
                "SELECT superseded_by FROM graph_relationships WHERE id = ?", [rel_id]
            ).fetchall()
            if not found:
                raise missing_entities([rel_id], action="end_relationship", what="relationship")
            if found[0][0] is not None:
                raise InvalidArgumentError(
                    f"{rel_id!r} is superseded by {found[0][0]!r}; end that one instead"
                )
            conn.execute(
                "UPDATE graph_relationships SET valid_to = CASE "
                "WHEN valid_to IS NULL OR valid_to > ? THEN ? ELSE valid_to END WHERE id = ?",
                [at_us, at_us, rel_id],
            )

        await self._tx(work, action="end_relationship")

    async def _neighbours(
        self, starts: list[str], depth: int, at: datetime | None
    ) -> list[Neighbour]:
        valid = "superseded_by IS NULL" + (f" AND {valid_at_sql(DUCKDB)}" if at is not None else "")
        params: dict[str, object] = {"starts": starts, "depth": depth}
        if at is not None:
            params["at"] = to_micros(at)
        sql = f"""
            WITH RECURSIVE
            live AS (SELECT id, source_id, target_id FROM graph_relationships WHERE {valid}),
            edges AS (
                SELECT id, source_id AS a, target_id AS b FROM live
                UNION ALL SELECT id, target_id, source_id FROM live
            ),
            walk(entity_id, depth, path, seen) AS (
                SELECT s, 0, []::VARCHAR[], [s] FROM unnest($starts::VARCHAR[]) AS t(s)
                UNION ALL
                SELECT e.b, w.depth + 1, list_append(w.path, e.id), list_append(w.seen, e.b)
                FROM walk AS w JOIN edges AS e ON e.a = w.entity_id
                WHERE w.depth < $depth AND NOT list_contains(w.seen, e.b)
            ),
            best AS (
                SELECT entity_id, depth, path FROM walk
                WHERE depth > 0 AND NOT list_contains($starts::VARCHAR[], entity_id)
                QUALIFY row_number() OVER (PARTITION BY entity_id ORDER BY depth, path) = 1
            )
            SELECT best.depth, best.path, {", ".join("g." + c for c in ENTITY_COLUMNS)}
            FROM best JOIN graph_entities AS g ON g.id = best.entity_id
            ORDER BY best.depth, g.id
        """

        def work(conn: Conn) -> list[tuple[Any, ...]]:
            missing = _missing_entities(conn, starts)
            if missing:
                raise missing_entities(missing, action="neighbours")
            return conn.execute(sql, params).fetchall()

        rows = await self._tx(work, action="neighbours")
        return [Neighbour(row_to_entity(r[2:]), int(r[0]), tuple(r[1])) for r in rows]

    async def _record_access(self, counts: dict[str, int]) -> None:
        arrays = {
            "id": objects(list(counts)),
            "n": np.fromiter(counts.values(), dtype=np.int64, count=len(counts)),
        }

        def work(conn: Conn) -> None:
            conn.register("remem_counts", arrays)
            try:
                missing = _missing_entities(conn, list(counts))
                if missing:
                    raise missing_entities(missing, action="record_access")
                conn.execute(
                    "UPDATE graph_entities SET access_count = access_count + v.n "
                    "FROM remem_counts AS v WHERE graph_entities.id = v.id"
                )
            finally:
                conn.unregister("remem_counts")

        await self._tx(work, action="record_access")
