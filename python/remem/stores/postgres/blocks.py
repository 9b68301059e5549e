"""PostgresBlockStore: core memory blocks and their edit history in PostgreSQL.

Schema component ``blocks`` (see :mod:`remem.stores.postgres.migrations`). A commit is one
transaction: a conditional ``UPDATE ... WHERE revision = expected`` (or ``INSERT ... ON CONFLICT
DO NOTHING`` for a new block) makes concurrent writers from any number of processes safe — the
loser gets :class:`BlockConflictError` and writes nothing.

Durability: once ``commit`` returns, the transaction is committed; it survives an application
crash and (with the server's default ``fsync``/``synchronous_commit``) power loss.
"""

from __future__ import annotations

from datetime import UTC

from remem.blocks.store import StoredBlock
from remem.stores.base.blocks import BlockCommit, BlockStoreBase, conflict_error
from remem.stores.postgres.base import AConn, PostgresStore
from remem.stores.postgres.migrations import Migration

BLOCK_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "core memory blocks and their edit history",
        """
        CREATE TABLE core_blocks (
            namespace  text        NOT NULL,
            label      text        NOT NULL,
            entries    text[]      NOT NULL,
            revision   bigint      NOT NULL,
            updated_at timestamptz NOT NULL,
            PRIMARY KEY (namespace, label)
        );
        CREATE TABLE core_block_history (
            namespace   text        NOT NULL,
            label       text        NOT NULL,
            revision    bigint      NOT NULL,
            seq         integer     NOT NULL,
            edited_at   timestamptz NOT NULL,
            actor       text        NOT NULL,
            op          text        NOT NULL CHECK (op IN ('add', 'replace', 'remove')),
            entry_before text,
            entry_after  text,
            size_before bigint      NOT NULL,
            size_after  bigint      NOT NULL,
            PRIMARY KEY (namespace, label, revision, seq)
        );
        """,
    ),
)


class PostgresBlockStore(PostgresStore, BlockStoreBase):
    """Core memory blocks in PostgreSQL (see the module docstring); implements BlockStore."""

    _components = (("blocks", BLOCK_MIGRATIONS),)

    async def _commit(self, commit: BlockCommit) -> StoredBlock:
        namespace, label, stored, at = commit.namespace, commit.label, commit.entries, commit.at
        expected_revision, revision = commit.expected_revision, commit.revision
        history = commit.history_rows(at)

        async def work(conn: AConn) -> StoredBlock:
            if expected_revision == 0:
                cur = await conn.execute(
                    "INSERT INTO core_blocks VALUES (%s, %s, %s, %s, %s) "
                    "ON CONFLICT DO NOTHING RETURNING revision",
                    (namespace, label, list(stored), revision, at),
                )
            else:
                cur = await conn.execute(
                    "UPDATE core_blocks SET entries = %s, revision = %s, updated_at = %s "
                    "WHERE namespace = %s AND label = %s AND revision = %s RETURNING revision",
                    (list(stored), revision, at, namespace, label, expected_revision),
                )
            if await cur.fetchone() is None:
                cur = await conn.execute(
                    "SELECT revision FROM core_blocks WHERE namespace = %s AND label = %s",
                    (namespace, label),
                )
                row = await cur.fetchone()
                current = 0 if row is None else int(row[0])
                raise conflict_error(label, current, expected_revision)
            async with conn.cursor() as c:
                await c.executemany(
                    "INSERT INTO core_block_history VALUES "
                    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    history,
                )
            return StoredBlock(namespace, label, stored, revision, at.astimezone(UTC))

        return await self._tx(work, action="commit block")
