"""BlockStore: where core memory blocks persist — current entries plus an append-only history.

A block is keyed by ``(namespace, label)``; one namespace per user/companion pair. Each
successful commit bumps the block's ``revision`` and appends one :class:`BlockHistoryEntry` per
applied edit (who, when, what, sizes before and after). History rows are never updated or
deleted. Commits are optimistic: ``expected_revision`` must equal the stored revision (0 for a
block never stored), otherwise :class:`BlockConflictError` and nothing is written.

The limit is configuration, not data: a store keeps entries only, so lowering a limit never
needs a migration and a stored block may come back over its new limit (it renders flagged).

Implementations: :class:`remem.stores.duckdb.blocks.DuckDBBlockStore` (embedded, in the memory
file) and :class:`remem.stores.postgres.blocks.PostgresBlockStore`; one contract suite
(tests/blocks/test_store_contract.py) runs against both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from remem.blocks.edits import BlockChange, EditOp


@dataclass(frozen=True, slots=True)
class StoredBlock:
    """A block's entries as last committed."""

    namespace: str
    label: str
    entries: tuple[str, ...]
    revision: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class BlockHistoryEntry:
    """One applied edit: ``seq`` orders the edits of one revision (one batch)."""

    namespace: str
    label: str
    revision: int
    seq: int
    at: datetime
    actor: str
    op: EditOp
    before: str | None
    after: str | None
    size_before: int
    size_after: int


@runtime_checkable
class BlockStore(Protocol):
    """Persistence of core memory blocks (async; an async context manager with ``aclose()``)."""

    async def load(self, namespace: str, label: str) -> StoredBlock | None:
        """The block as last committed, or None if it was never stored."""
        ...

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
        """Store ``entries`` as revision ``expected_revision + 1`` and append ``changes`` to
        the history, in one transaction; BlockConflictError if the revision moved on."""
        ...

    async def history(
        self, namespace: str, label: str, *, limit: int | None = None
    ) -> list[BlockHistoryEntry]:
        """The block's edits, oldest first (the newest ``limit`` of them if given)."""
        ...

    async def labels(self, namespace: str) -> list[str]:
        """Labels of the blocks stored in ``namespace``, sorted."""
        ...

    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
