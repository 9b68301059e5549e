"""GatedBlockStore: a :class:`BlockStore` whose commits pass a gate (the quiescence hook).

A commit is the only way a core memory block is written — ``CoreMemory`` append/replace/remove,
the companion's ``core_memory_*`` tools and the service's block edits all end in
``store.commit`` — so holding the gate holds every block write::

    store = GatedBlockStore(DuckDBBlockStore(db), gate.passage)
    await store.commit(...)   # waits while the gate is closed, then writes

Reads (``load``, ``history``, ``labels``) never wait. ``passage`` is any callable returning an
async context manager; :class:`remem.recovery.quiescence.Gate` supplies it and the Runtime wires
it (:meth:`remem.Runtime.quiesce`). A commit cancelled while it waits at the gate writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from remem.blocks.edits import BlockChange
from remem.blocks.store import BlockHistoryEntry, BlockStore, StoredBlock
from remem.gating import Gated

__all__ = ["GatedBlockStore"]


class _OpenableBlockStore(BlockStore, Protocol):
    async def open(self) -> Any: ...


class GatedBlockStore(Gated[_OpenableBlockStore]):
    """``inner`` with every commit inside ``passage()`` (module docstring)."""

    async def load(self, namespace: str, label: str) -> StoredBlock | None:
        return await self.inner.load(namespace, label)

    async def commit(
        self,
        namespace: str,
        label: str,
        entries: Sequence[str],
        changes: Sequence[BlockChange],
        *,
        expected_revision: int,
        actor: str,
        at: datetime,
    ) -> StoredBlock:
        async with self._passage():
            return await self.inner.commit(
                namespace,
                label,
                entries,
                changes,
                expected_revision=expected_revision,
                actor=actor,
                at=at,
            )

    async def history(
        self, namespace: str, label: str, *, limit: int | None = None
    ) -> list[BlockHistoryEntry]:
        return await self.inner.history(namespace, label, limit=limit)

    async def labels(self, namespace: str) -> list[str]:
        return await self.inner.labels(namespace)
