"""BlockStoreBase: the BlockStore contract's front half and reads, written once for SQL backends.

Arguments are checked here (every backend refuses the same bad input alike); ``load``,
``history`` and ``labels`` are one statement each, spelt through the backend's
:class:`~remem.stores.sql.SqlDialect`. ``commit`` is each backend's own: its concurrency
strategy (DuckDB's single writer, PostgreSQL's conditional ``UPDATE``) is the fast path.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from remem.blocks.commit_checks import check_commit, check_key, check_limit_arg, check_namespace
from remem.blocks.edits import BlockChange
from remem.blocks.store import BlockHistoryEntry, StoredBlock
from remem.errors import BlockConflictError, InvalidArgumentError
from remem.stores.base.lifecycle import StoreLifecycle
from remem.stores.base.records import Params, Row
from remem.stores.sql.dialect import SqlDialect

_NO_LIMIT = 2**62
"""``history`` without a limit (or with a larger one) reads at most this many rows: both
backends' LIMIT is a 64-bit integer."""


def conflict_error(label: str, current: int, expected: int) -> BlockConflictError:
    """The optimistic-commit refusal: the stored revision moved on."""
    return BlockConflictError(
        f"the {label} block was changed elsewhere (revision {current}, expected "
        f"{expected}); reload it and retry the edit"
    )


@dataclass(frozen=True, slots=True)
class BlockCommit:
    """A checked ``commit``: store ``entries`` as ``revision`` if the stored one is
    ``expected_revision``, and append one history row per change."""

    namespace: str
    label: str
    entries: tuple[str, ...]
    changes: Sequence[BlockChange]
    expected_revision: int
    actor: str
    at: datetime

    @property
    def revision(self) -> int:
        return self.expected_revision + 1

    def history_rows(self, at: object) -> list[tuple[object, ...]]:
        """The ``core_block_history`` rows, with the time as the backend stores it."""
        return [
            (
                *(self.namespace, self.label, self.revision, seq, at, self.actor),
                *(c.op, c.before, c.after, c.size_before, c.size_after),
            )
            for seq, c in enumerate(self.changes)
        ]


class BlockStoreBase(StoreLifecycle, ABC):
    """Implements :class:`~remem.blocks.store.BlockStore` over ``_rows`` and ``_commit``."""

    dialect: ClassVar[SqlDialect]

    @abstractmethod
    async def _rows(self, sql: str, params: Params, *, action: str) -> list[Row]: ...

    @abstractmethod
    async def _commit(self, commit: BlockCommit) -> StoredBlock:
        """Apply a checked commit in one transaction (see BlockStore.commit)."""

    async def load(self, namespace: str, label: str) -> StoredBlock | None:
        check_key(namespace, label)
        p = self.dialect.placeholder
        rows = await self._rows(
            f"SELECT entries, revision, updated_at FROM core_blocks "
            f"WHERE namespace = {p} AND label = {p}",
            [namespace, label],
            action="load block",
        )
        if not rows:
            return None
        row = rows[0]
        return StoredBlock(
            namespace, label, tuple(row[0]), int(row[1]), self.dialect.time_value(row[2])
        )

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
        for name, value in (("entries", entries), ("changes", changes)):
            if isinstance(value, str | bytes) or not isinstance(value, Sequence):
                raise InvalidArgumentError(
                    f"commit: {name} must be a sequence, got {type(value).__name__}; "
                    "edit the block through CoreMemoryBlock"
                )
        stored = check_commit(namespace, label, entries, changes, expected_revision, actor, at)
        return await self._commit(
            BlockCommit(namespace, label, stored, changes, expected_revision, actor, at)
        )

    async def history(
        self, namespace: str, label: str, *, limit: int | None = None
    ) -> list[BlockHistoryEntry]:
        check_key(namespace, label)
        check_limit_arg(limit)
        d = self.dialect
        p = d.placeholder
        rows = await self._rows(
            "SELECT revision, seq, edited_at, actor, op, entry_before, entry_after, "
            "size_before, size_after "
            f"FROM core_block_history WHERE namespace = {p} AND label = {p} "
            f"ORDER BY revision DESC, seq DESC LIMIT {p}",
            [namespace, label, _NO_LIMIT if limit is None else min(limit, _NO_LIMIT)],
            action="read block history",
        )
        return [
            BlockHistoryEntry(
                namespace,
                label,
                int(r[0]),
                int(r[1]),
                d.time_value(r[2]),
                str(r[3]),
                r[4],
                r[5],
                r[6],
                int(r[7]),
                int(r[8]),
            )
            for r in reversed(rows)
        ]

    async def labels(self, namespace: str) -> list[str]:
        check_namespace(namespace)
        d = self.dialect
        rows = await self._rows(
            f"SELECT label FROM core_blocks WHERE namespace = {d.placeholder} "
            f"ORDER BY label{d.collate}",
            [namespace],
            action="list blocks",
        )
        return [str(r[0]) for r in rows]
