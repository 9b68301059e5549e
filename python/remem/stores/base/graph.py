"""GraphStoreBase: the GraphStore contract's front half, written once for every SQL backend.

Each public method checks its arguments here (so every backend refuses the same bad input with
the same typed error), answers the empty cases, and either runs a read whose SQL both backends
spell alike (through the backend's :class:`~remem.stores.sql.SqlDialect` and its ``_rows``
hook) or hands checked values to one backend hook.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import ClassVar, Literal

from remem.errors import DuplicateIdError, InvalidArgumentError
from remem.models import Entity, Relationship
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.base.records import Params, Row, refuse_supersede, supersede_sql
from remem.stores.graph import Neighbour
from remem.stores.shared.graph_checks import (
    check_at,
    check_counts,
    check_depth,
    check_direction,
    check_name,
    check_required_at,
    missing_entities,
)
from remem.stores.shared.graph_rows import (
    ENTITY_COLUMNS,
    RELATIONSHIP_COLUMNS,
    alias_rows,
    check_items,
    normalise_name,
    row_to_entity,
    row_to_relationship,
)
from remem.stores.shared.record_checks import check_namespace
from remem.stores.shared.record_rows import check_ids, duplicates
from remem.stores.sql.dialect import SqlDialect

E_COLS = ", ".join(ENTITY_COLUMNS)
R_COLS = ", ".join(RELATIONSHIP_COLUMNS)
# Entity fields an upsert replaces; access_count and created_at keep their stored values.
ENTITY_UPDATE_SETS = ", ".join(
    f"{c} = excluded.{c}"
    for c in ("name", "name_norm", "entity_type", "aliases", "attributes", "namespace",
              "provenance", "updated_at")
)  # fmt: skip


def valid_at_sql(d: SqlDialect) -> str:
    """Relationships valid at the named parameter ``at`` (open ends unbounded)."""
    at = d.named("at")
    return f"(valid_from IS NULL OR valid_from <= {at}) AND (valid_to IS NULL OR {at} < valid_to)"


def refuse_existing_relationships(ids: Sequence[str]) -> None:
    if ids:
        raise DuplicateIdError(
            f"add_relationships: ids {list(ids)} already exist; nothing was written"
        )


def _unknown_relationships(ids: list[str]) -> Exception:
    return missing_entities(ids, action="supersede_relationship", what="relationship")


def refuse_relationship_supersede(
    found: Mapping[str, str | None], old_id: str, new_id: str
) -> None:
    """``supersede_relationship``'s checks on the two rows read (id → superseded_by)."""
    refuse_supersede(found, old_id, new_id, unknown=_unknown_relationships, that="that")


def relationship_supersede_sql(d: SqlDialect) -> tuple[str, str]:
    return supersede_sql(d, "graph_relationships")


class GraphStoreBase(StoreLifecycle, ABC):
    """Implements :class:`~remem.stores.graph.GraphStore` over the hooks below.

    A backend sets ``dialect``, implements ``_rows`` (one read statement) and the write hooks;
    every hook receives checked, non-empty input.
    """

    dialect: ClassVar[SqlDialect]

    @abstractmethod
    async def _rows(self, sql: str, params: Params, *, action: str) -> list[Row]: ...

    @abstractmethod
    async def _upsert_entities(
        self, entities: list[Entity], aliases: list[tuple[str, str]]
    ) -> None: ...

    @abstractmethod
    async def _add_relationships(self, batch: list[Relationship], endpoints: list[str]) -> None:
        """Insert ``batch``; refuse unknown ``endpoints`` and existing ids, writing nothing."""

    @abstractmethod
    async def _supersede_relationship(self, old_id: str, new_id: str, at: datetime) -> None: ...

    @abstractmethod
    async def _end_relationship(self, rel_id: str, at: datetime) -> None:
        """Close ``rel_id`` at ``at`` (see :meth:`GraphStore.end_relationship`)."""

    @abstractmethod
    async def _neighbours(
        self, starts: list[str], depth: int, at: datetime | None
    ) -> list[Neighbour]: ...

    @abstractmethod
    async def _record_access(self, counts: dict[str, int]) -> None: ...

    async def upsert_entities(self, entities: Sequence[Entity]) -> None:
        batch = {e.id: e for e in check_items(entities, Entity, action="upsert_entities")}
        if batch:
            aliases = [pair for e in batch.values() for pair in alias_rows(e)]
            await self._upsert_entities(list(batch.values()), aliases)

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        wanted = check_ids(ids, action="get_entities")
        if not wanted:
            return []
        unique = list(dict.fromkeys(wanted))
        sql = f"SELECT {E_COLS} FROM graph_entities WHERE {self.dialect.member('id')}"
        found = {row[0]: row for row in await self._rows(sql, [unique], action="get_entities")}
        missing = [i for i in unique if i not in found]
        if missing:
            raise missing_entities(missing, action="get_entities")
        return [row_to_entity(found[i]) for i in wanted]

    async def find_entities(self, name: str, *, namespace: str | None = None) -> list[Entity]:
        key = normalise_name(check_name(name))
        namespace = check_namespace(namespace)
        if not key:
            return []
        d = self.dialect
        k = d.named("k")
        sql = (
            f"SELECT {E_COLS} FROM graph_entities WHERE (name_norm = {k} OR id IN "
            f"(SELECT entity_id FROM graph_entity_aliases WHERE alias_norm = {k}))"
            + (f" AND namespace = {d.named('ns')}" if namespace is not None else "")
            + f" ORDER BY id{d.collate}"
        )
        params: dict[str, object] = {"k": key}
        if namespace is not None:
            params["ns"] = namespace
        return [row_to_entity(r) for r in await self._rows(sql, params, action="find_entities")]

    async def list_entities(self, *, namespace: str | None = None) -> list[Entity]:
        namespace = check_namespace(namespace)
        d = self.dialect
        where = f"WHERE namespace = {d.placeholder}" if namespace is not None else ""
        params = [namespace] if namespace is not None else []
        sql = f"SELECT {E_COLS} FROM graph_entities {where} ORDER BY id{d.collate}"
        return [row_to_entity(r) for r in await self._rows(sql, params, action="list_entities")]

    async def add_relationships(self, relationships: Sequence[Relationship]) -> None:
        batch = check_items(relationships, Relationship, action="add_relationships")
        dups = duplicates([r.id for r in batch])
        if dups:
            raise DuplicateIdError(
                f"add_relationships: ids {dups[:10]} appear twice in the batch; nothing written"
            )
        if batch:
            endpoints = list(dict.fromkeys(i for r in batch for i in (r.source_id, r.target_id)))
            await self._add_relationships(batch, endpoints)

    async def relationships(
        self,
        entity_id: str,
        *,
        direction: Literal["out", "in", "both"] = "both",
        at: datetime | None = None,
        include_superseded: bool = False,
    ) -> list[Relationship]:
        check_ids([entity_id], action="relationships")
        d = self.dialect
        e = d.named("e")
        ends = {"out": f"source_id = {e}", "in": f"target_id = {e}"}.get(
            check_direction(direction), f"(source_id = {e} OR target_id = {e})"
        )
        clauses = [ends]
        params: dict[str, object] = {"e": entity_id}
        when = check_at(at)
        if when is not None:
            clauses.append(valid_at_sql(d))
            params["at"] = d.time_param(when)
        if not include_superseded:
            clauses.append("superseded_by IS NULL")
        sql = (
            f"SELECT {R_COLS} FROM graph_relationships WHERE {' AND '.join(clauses)} "
            f"ORDER BY created_at, id{d.collate}"
        )
        rows = await self._rows(sql, params, action="relationships")
        return [row_to_relationship(r) for r in rows]

    async def supersede_relationship(self, old_id: str, new_id: str, *, at: datetime) -> None:
        check_ids([old_id, new_id], action="supersede_relationship")
        if old_id == new_id:
            raise InvalidArgumentError(f"{old_id!r} cannot supersede itself; pass a different id")
        await self._supersede_relationship(old_id, new_id, check_required_at(at))

    async def end_relationship(self, rel_id: str, *, at: datetime) -> None:
        check_ids([rel_id], action="end_relationship")
        await self._end_relationship(rel_id, check_required_at(at))

    async def neighbours(
        self, entity_ids: Sequence[str], *, depth: int = 1, at: datetime | None = None
    ) -> list[Neighbour]:
        starts = list(dict.fromkeys(check_ids(entity_ids, action="neighbours")))
        max_depth = check_depth(depth)
        when = check_at(at)
        if not starts:
            return []
        return await self._neighbours(starts, max_depth, when)

    async def record_access(self, counts: Mapping[str, int]) -> None:
        checked = {k: v for k, v in check_counts(counts).items() if v}
        if checked:
            await self._record_access(checked)

    async def relationship_counts(self, entity_ids: Sequence[str]) -> dict[str, int]:
        """Per entity: the number of non-superseded relationships it is source or target of."""
        wanted = list(dict.fromkeys(check_ids(entity_ids, action="relationship_counts")))
        if not wanted:
            return {}
        sql = f"""
            WITH ends AS (
                SELECT id, source_id AS e FROM graph_relationships WHERE superseded_by IS NULL
                UNION
                SELECT id, target_id FROM graph_relationships WHERE superseded_by IS NULL
            )
            SELECT e, count(*) FROM ends WHERE {self.dialect.member("e")} GROUP BY e
        """
        rows = await self._rows(sql, [wanted], action="relationship_counts")
        found = {r[0]: r[1] for r in rows}
        return {i: int(found.get(i, 0)) for i in wanted}
