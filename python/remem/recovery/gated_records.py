"""GatedRecordStore: a :class:`RecordStore` whose writes pass a gate (the quiescence hook).

Not every record write goes through the write port: ``forget`` and ``supersede`` /
``supersede_many`` (the consolidator's path) update the record store and then drop vectors, a
lifecycle plan run by hand updates stages and then moves vectors, and access-count flushes
rescore records. Wrapping the record store the Runtime hands out holds all of them while the
gate is closed — and, since each of those updates the records *before* it touches a vector, the
vector change that follows waits with it::

    records = GatedRecordStore(DuckDBRecordStore(db), gate.passage)
    await records.update_lifecycle(updates)   # waits while the gate is closed, then writes

Gated: ``put``, ``upsert``, ``update_lifecycle``, ``record_accesses``, ``supersede``,
``supersede_many``, ``delete``. Reads never wait (``get_shared``, recall's eligibility
read, included). The write port's own record writes pass this
gate too; it is closed after the port's gate (:mod:`remem.recovery.quiescence`), when nothing
of the port is in flight. A write cancelled while it waits at the gate writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from remem.gating import Gated
from remem.models import MemoryKind, MemoryLifecycleMetadata, MemoryRecord, MemoryStage
from remem.stores.records import LifecycleColumns, RecordStore, get_existing

__all__ = ["GatedRecordStore"]


class _OpenableRecordStore(RecordStore, Protocol):
    async def open(self) -> Any: ...


class GatedRecordStore(Gated[_OpenableRecordStore]):
    """``inner`` with every record write inside ``passage()`` (module docstring)."""

    # -- gated writes -------------------------------------------------------------------------

    async def put(self, records: Sequence[MemoryRecord]) -> None:
        async with self._passage():
            await self.inner.put(records)

    async def upsert(self, records: Sequence[MemoryRecord]) -> None:
        async with self._passage():
            await self.inner.upsert(records)

    async def update_lifecycle(
        self, updates: Sequence[tuple[str, MemoryLifecycleMetadata]]
    ) -> None:
        async with self._passage():
            await self.inner.update_lifecycle(updates)

    async def record_accesses(
        self, ids: Sequence[str], new_base_scores: Sequence[float], at: datetime
    ) -> None:
        async with self._passage():
            await self.inner.record_accesses(ids, new_base_scores, at)

    async def supersede(self, old_id: str, new_id: str, *, at: datetime) -> None:
        async with self._passage():
            await self.inner.supersede(old_id, new_id, at=at)

    async def supersede_many(self, items: Sequence[tuple[str, str, datetime]]) -> None:
        async with self._passage():
            await self.inner.supersede_many(items)

    async def delete(self, ids: Sequence[str]) -> int:
        async with self._passage():
            return await self.inner.delete(ids)

    # -- reads (not gated) --------------------------------------------------------------------

    async def get(self, ids: Sequence[str]) -> list[MemoryRecord]:
        return await self.inner.get(ids)

    async def get_shared(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """``inner``'s ``get_shared`` (:class:`~remem.stores.records.SharedRecordReader`), or
        its ``get`` of the ids that exist."""
        return await get_existing(self.inner, ids)

    async def scan(
        self,
        *,
        stages: Sequence[MemoryStage] | None = None,
        kinds: Sequence[MemoryKind] | None = None,
        namespace: str | None = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]:
        return await self.inner.scan(
            stages=stages, kinds=kinds, namespace=namespace, include_superseded=include_superseded
        )

    async def count(self, *, stages: Sequence[MemoryStage] | None = None) -> int:
        return await self.inner.count(stages=stages)

    async def lifecycle_columns(
        self, *, stages: Sequence[MemoryStage] | None = None
    ) -> LifecycleColumns:
        return await self.inner.lifecycle_columns(stages=stages)

    async def keyed_facts(
        self,
        *,
        subjects: Sequence[str] | None = None,
        attributes: Sequence[str] | None = None,
        namespace: str | None = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]:
        return await self.inner.keyed_facts(
            subjects=subjects,
            attributes=attributes,
            namespace=namespace,
            include_superseded=include_superseded,
        )
