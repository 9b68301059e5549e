"""GatedGraphStore: a :class:`GraphStore` whose writes pass a gate (the quiescence hook).

Graph writes do not go through the write port: entity upserts (:class:`EntityResolver`, a
``remember(entities=…)``), relationships added by extraction, and the consolidator's
supersessions, endings and merges call the graph store directly. Wrapping the store the
Runtime hands to all of them holds every one of those writes while the gate is closed::

    graph = GatedGraphStore(DuckDBGraphStore(db), gate.passage)
    await graph.add_relationships(rels)   # waits while the gate is closed, then writes

Gated: ``upsert_entities``, ``add_relationships``, ``supersede_relationship``,
``end_relationship``. Not gated: reads, and ``record_access`` — access counts are held by their
own participant (:class:`remem.recovery.quiescence.AccessFlushPause`), which flushes them while
pausing; gating them here too would make that flush wait for a gate already closed. A write
cancelled while it waits at the gate writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol

from remem.gating import Gated
from remem.models import Entity, Relationship
from remem.stores.graph import GraphStore, Neighbour

__all__ = ["GatedGraphStore"]


class _OpenableGraphStore(GraphStore, Protocol):
    async def open(self) -> Any: ...


class GatedGraphStore(Gated[_OpenableGraphStore]):
    """``inner`` with every graph write inside ``passage()`` (module docstring)."""

    # -- gated writes -------------------------------------------------------------------------

    async def upsert_entities(self, entities: Sequence[Entity]) -> None:
        async with self._passage():
            await self.inner.upsert_entities(entities)

    async def add_relationships(self, relationships: Sequence[Relationship]) -> None:
        async with self._passage():
            await self.inner.add_relationships(relationships)

    async def supersede_relationship(self, old_id: str, new_id: str, *, at: datetime) -> None:
        async with self._passage():
            await self.inner.supersede_relationship(old_id, new_id, at=at)

    async def end_relationship(self, rel_id: str, *, at: datetime) -> None:
        async with self._passage():
            await self.inner.end_relationship(rel_id, at=at)

    # -- reads and access counts (not gated) ----------------------------------------------------

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        return await self.inner.get_entities(ids)

    async def find_entities(self, name: str, *, namespace: str | None = None) -> list[Entity]:
        return await self.inner.find_entities(name, namespace=namespace)

    async def list_entities(self, *, namespace: str | None = None) -> list[Entity]:
        return await self.inner.list_entities(namespace=namespace)

    async def relationships(
        self,
        entity_id: str,
        *,
        direction: Literal["out", "in", "both"] = "both",
        at: datetime | None = None,
        include_superseded: bool = False,
    ) -> list[Relationship]:
        return await self.inner.relationships(
            entity_id, direction=direction, at=at, include_superseded=include_superseded
        )

    async def neighbours(
        self, entity_ids: Sequence[str], *, depth: int = 1, at: datetime | None = None
    ) -> list[Neighbour]:
        return await self.inner.neighbours(entity_ids, depth=depth, at=at)

    async def record_access(self, counts: Mapping[str, int]) -> None:
        await self.inner.record_access(counts)

    async def relationship_counts(self, entity_ids: Sequence[str]) -> dict[str, int]:
        return await self.inner.relationship_counts(entity_ids)
