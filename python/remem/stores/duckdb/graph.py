"""DuckDBGraphStore: the entity graph in the embedded DuckDB memory file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

import numpy as np

from remem.errors import DuplicateIdError, InvalidArgumentError
from remem.models import Entity, Relationship
from remem.stores.duckdb.base import DuckDBStore
from remem.stores.duckdb.database import Conn, objects, register_rows
from remem.stores.duckdb.schema import ENTITY_TYPES, RELATIONSHIP_TYPES
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
    ENTITY_TIME_COLUMNS,
    RELATIONSHIP_COLUMNS,
    RELATIONSHIP_TIME_COLUMNS,
    alias_rows,
    check_items,
    entity_to_row,
    normalise_name,
    relationship_to_row,
    row_to_entity,
    row_to_relationship,
)
from remem.stores.record_rows import check_ids, duplicates, to_micros

_E = ", ".join(ENTITY_COLUMNS)
_R = ", ".join(RELATIONSHIP_COLUMNS)
_E_TIME = [i for i, c in enumerate(ENTITY_COLUMNS) if c in ENTITY_TIME_COLUMNS]
_R_TIME = [i for i, c in enumerate(RELATIONSHIP_COLUMNS) if c in RELATIONSHIP_TIME_COLUMNS]
# Entity fields an upsert replaces; access_count and created_at keep their stored values.
_E_UPDATE = ("name", "name_norm", "entity_type", "aliases", "attributes", "namespace",
             "provenance", "updated_at")  # fmt: skip
_VALID_AT = "(valid_from IS NULL OR valid_from <= $at) AND (valid_to IS NULL OR $at < valid_to)"


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


class DuckDBGraphStore(DuckDBStore):
    """Entities and relationships in a DuckDB file (shared with DuckDBRecordStore).

    ``DuckDBGraphStore(path)`` or ``DuckDBGraphStore(database)``. Decisions beyond the protocol:
    an upsert of an existing entity keeps its stored ``access_count`` and ``created_at`` (usage is
    counted by ``record_access``, not reset by re-extraction); ``add_relationships`` refuses
    existing ids (DuplicateIdError) and endpoints that are not stored entities (NotFoundError),
    writing nothing; ``neighbours`` raises NotFoundError for unknown start ids and, among equally
    short paths, reports the lexicographically smallest list of relationship ids; it does not
    revisit an entity within one path, so its cost grows with the number of simple paths up to
    ``depth``. ``record_access`` counts entity accesses. Lists are ordered by id (entities) or
    ``(created_at, id)`` (relationships). Durability: as :class:`DuckDBDatabase`.
    """

    async def upsert_entities(self, entities: Sequence[Entity]) -> None:
        batch = {e.id: e for e in check_items(entities, Entity, action="upsert_entities")}
        if not batch:
            return
        rows = [_micros(entity_to_row(e), _E_TIME) for e in batch.values()]
        aliases = [pair for e in batch.values() for pair in alias_rows(e)]
        sets = ", ".join(f"{c} = excluded.{c}" for c in _E_UPDATE)
        alias_arrays = {
            "entity_id": objects([a for a, _ in aliases]),
            "alias_norm": objects([n for _, n in aliases]),
        }

        def work(conn: Conn) -> None:
            select = register_rows(conn, "remem_ents", ENTITY_COLUMNS, ENTITY_TYPES, rows)
            conn.register("remem_aliases", alias_arrays)
            try:
                conn.execute(
                    f"INSERT INTO graph_entities ({_E}) {select} "
                    f"ON CONFLICT (id) DO UPDATE SET {sets}"
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

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        wanted = check_ids(ids, action="get_entities")
        if not wanted:
            return []

        def work(conn: Conn) -> list[tuple[Any, ...]]:
            return conn.execute(
                f"SELECT {_E} FROM graph_entities WHERE id IN (SELECT unnest(?::VARCHAR[]))",
                [list(dict.fromkeys(wanted))],
            ).fetchall()

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
            f"SELECT {_E} FROM graph_entities WHERE (name_norm = $k OR id IN "
            "(SELECT entity_id FROM graph_entity_aliases WHERE alias_norm = $k))"
            + (" AND namespace = $ns" if namespace is not None else "")
            + " ORDER BY id"
        )
        params: dict[str, object] = {"k": key}
        if namespace is not None:
            params["ns"] = namespace

        def work(conn: Conn) -> list[tuple[Any, ...]]:
            return conn.execute(sql, params).fetchall()

        return [row_to_entity(r) for r in await self._tx(work, action="find_entities")]

    async def list_entities(self, *, namespace: str | None = None) -> list[Entity]:
        where = "WHERE namespace = ?" if namespace is not None else ""
        params = [namespace] if namespace is not None else []

        def work(conn: Conn) -> list[tuple[Any, ...]]:
            return conn.execute(
                f"SELECT {_E} FROM graph_entities {where} ORDER BY id", params
            ).fetchall()

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
        rows = [_micros(relationship_to_row(r), _R_TIME) for r in batch]
        endpoints = list(dict.fromkeys(i for r in batch for i in (r.source_id, r.target_id)))

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
                if existing:
                    raise DuplicateIdError(
                        f"add_relationships: ids {[r[0] for r in existing]} already exist; "
                        "nothing was written"
                    )
                conn.execute(f"INSERT INTO graph_relationships ({_R}) {select}")
            finally:
                conn.unregister("remem_rels")

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
        ends = {"out": "source_id = $e", "in": "target_id = $e"}.get(
            check_direction(direction), "(source_id = $e OR target_id = $e)"
        )
        clauses = [ends]
        params: dict[str, object] = {"e": entity_id}
        when = check_at(at)
        if when is not None:
            clauses.append(_VALID_AT)
            params["at"] = to_micros(when)
        if not include_superseded:
            clauses.append("superseded_by IS NULL")
        sql = f"SELECT {_R} FROM graph_relationships WHERE {' AND '.join(clauses)} "
        sql += "ORDER BY created_at, id"

        def work(conn: Conn) -> list[tuple[Any, ...]]:
            return conn.execute(sql, params).fetchall()

        return [row_to_relationship(r) for r in await self._tx(work, action="relationships")]

    async def supersede_relationship(self, old_id: str, new_id: str, *, at: datetime) -> None:
        check_ids([old_id, new_id], action="supersede_relationship")
        if old_id == new_id:
            raise InvalidArgumentError(f"{old_id!r} cannot supersede itself; pass a different id")
        at_us = to_micros(check_at(at))

        def work(conn: Conn) -> None:
            found = dict(
                conn.execute(
                    "SELECT id, superseded_by FROM graph_relationships WHERE id IN (?, ?)",
                    [old_id, new_id],
                ).fetchall()
            )
            missing = [i for i in (old_id, new_id) if i not in found]
            if missing:
                raise missing_entities(
                    missing, action="supersede_relationship", what="relationship"
                )
            if found[old_id] is not None and found[old_id] != new_id:
                raise InvalidArgumentError(
                    f"{old_id!r} is already superseded by {found[old_id]!r}; supersede that instead"
                )
            conn.execute(
                "UPDATE graph_relationships SET superseded_by = ?, valid_to = CASE "
                "WHEN valid_to IS NULL OR valid_to > ? THEN ? ELSE valid_to END WHERE id = ?",
                [new_id, at_us, at_us, old_id],
            )

        await self._tx(work, action="supersede_relationship")

    async def end_relationship(self, rel_id: str, *, at: datetime) -> None:
        check_ids([rel_id], action="end_relationship")
        at_us = to_micros(check_at(at))

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

    async def neighbours(
        self, entity_ids: Sequence[str], *, depth: int = 1, at: datetime | None = None
    ) -> list[Neighbour]:
        starts = list(dict.fromkeys(check_ids(entity_ids, action="neighbours")))
        max_depth = check_depth(depth)
        when = check_at(at)
        if not starts:
            return []
        valid = "superseded_by IS NULL" + (f" AND {_VALID_AT}" if when is not None else "")
        params: dict[str, object] = {"starts": starts, "depth": max_depth}
        if when is not None:
            params["at"] = to_micros(when)
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

    async def record_access(self, counts: Mapping[str, int]) -> None:
        checked = {k: v for k, v in check_counts(counts).items() if v}
        if not checked:
            return
        arrays = {
            "id": objects(list(checked)),
            "n": np.fromiter(checked.values(), dtype=np.int64, count=len(checked)),
        }

        def work(conn: Conn) -> None:
            conn.register("remem_counts", arrays)
            try:
                missing = _missing_entities(conn, list(checked))
                if missing:
                    raise missing_entities(missing, action="record_access")
                conn.execute(
                    "UPDATE graph_entities SET access_count = access_count + v.n "
                    "FROM remem_counts AS v WHERE graph_entities.id = v.id"
                )
            finally:
                conn.unregister("remem_counts")

        await self._tx(work, action="record_access")

    async def relationship_counts(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """Per entity: the number of non-superseded relationships it is source or target of."""
        wanted = list(dict.fromkeys(check_ids(entity_ids, action="relationship_counts")))
        if not wanted:
            return {}

        def work(conn: Conn) -> list[tuple[Any, ...]]:
            return conn.execute(
                """
                WITH ends AS (
                    SELECT id, source_id AS e FROM graph_relationships WHERE superseded_by IS NULL
                    UNION
                    SELECT id, target_id FROM graph_relationships WHERE superseded_by IS NULL
                )
                SELECT e, count(*) FROM ends
                WHERE e IN (SELECT unnest(?::VARCHAR[])) GROUP BY e
                """,
                [wanted],
            ).fetchall()

        found = dict(await self._tx(work, action="relationship_counts"))
        return {i: int(found.get(i, 0)) for i in wanted}
