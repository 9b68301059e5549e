"""DuckDBBlockStore: core memory blocks and their edit history in the DuckDB memory file.

The blocks have their own tables and their own versioned schema component (``duckdb-blocks``
in ``remem_schema_migrations``), applied when the store opens, so the records/graph schema in
:mod:`remem.stores.duckdb.schema` is untouched and either can evolve alone. The store shares the
file's :class:`DuckDBDatabase` (one connection, one worker thread) with the other stores::

    async with DuckDBBlockStore("memory.duckdb") as blocks:
        memory = await CoreMemory.load(blocks, "ada")

Durability: a commit (entries + history rows) is one DuckDB transaction, fsynced to the WAL on
COMMIT — once ``commit`` returns it survives an application crash and power loss (on storage
that honours fsync); an interrupted commit leaves nothing behind.
"""

from __future__ import annotations

from remem.blocks.store import StoredBlock
from remem.errors import BackendError
from remem.stores.base.blocks import BlockCommit, BlockStoreBase, conflict_error
from remem.stores.duckdb.base import DuckDBStore
from remem.stores.duckdb.database import Conn
from remem.stores.duckdb.schema import BOOTSTRAP
from remem.stores.shared.record_rows import decode_required, to_micros

COMPONENT = "duckdb-blocks"

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "core memory blocks and their edit history",
        """
        CREATE TABLE core_blocks (
            namespace  VARCHAR   NOT NULL,
            label      VARCHAR   NOT NULL,
            entries    VARCHAR[] NOT NULL,
            revision   BIGINT    NOT NULL,
            updated_at BIGINT    NOT NULL,
            PRIMARY KEY (namespace, label)
        );
        CREATE TABLE core_block_history (
            namespace   VARCHAR NOT NULL,
            label       VARCHAR NOT NULL,
            revision    BIGINT  NOT NULL,
            seq         INTEGER NOT NULL,
            edited_at   BIGINT NOT NULL,
            actor       VARCHAR NOT NULL,
            op          VARCHAR NOT NULL,
            entry_before VARCHAR,
            entry_after  VARCHAR,
            size_before BIGINT  NOT NULL,
            size_after  BIGINT  NOT NULL,
            PRIMARY KEY (namespace, label, revision, seq)
        );
        """,
    ),
)


def _migrate(conn: Conn) -> None:
    conn.execute(BOOTSTRAP)
    rows = conn.execute(
        "SELECT version FROM remem_schema_migrations WHERE component = ?", [COMPONENT]
    ).fetchall()
    applied = {int(r[0]) for r in rows}
    newest = MIGRATIONS[-1][0]
    if applied and max(applied) > newest:
        raise BackendError(
            f"the DuckDB file's blocks schema is at version {max(applied)}, newer than this "
            f"remem ({newest}); upgrade remem before opening it"
        )
    for version, description, sql in MIGRATIONS:
        if version in applied:
            continue
        conn.execute("BEGIN TRANSACTION")
        try:
            conn.execute(sql)
            conn.execute(
                "INSERT INTO remem_schema_migrations VALUES (?, ?, ?)",
                [COMPONENT, version, description],
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


class DuckDBBlockStore(DuckDBStore, BlockStoreBase):
    """Core memory blocks in DuckDB (see the module docstring); implements BlockStore."""

    async def _open(self) -> None:
        await super()._open()
        try:
            await self._db.run(_migrate)
        except BaseException as exc:
            await self._db.release()
            if isinstance(exc, BackendError) or not isinstance(exc, Exception):
                raise
            raise BackendError(f"migrating the DuckDB blocks schema failed: {exc}") from exc

    async def _commit(self, commit: BlockCommit) -> StoredBlock:
        namespace, label, stored, at = commit.namespace, commit.label, commit.entries, commit.at
        expected_revision, revision = commit.expected_revision, commit.revision
        at_us = to_micros(at)
        history = commit.history_rows(at_us)

        def work(conn: Conn) -> StoredBlock:
            row = conn.execute(
                "SELECT revision FROM core_blocks WHERE namespace = ? AND label = ?",
                [namespace, label],
            ).fetchone()
            current = 0 if row is None else int(row[0])
            if current != expected_revision:
                raise conflict_error(label, current, expected_revision)
            if row is None:
                conn.execute(
                    "INSERT INTO core_blocks VALUES (?, ?, ?, ?, ?)",
                    [namespace, label, list(stored), revision, at_us],
                )
            else:
                conn.execute(
                    "UPDATE core_blocks SET entries = ?, revision = ?, updated_at = ? "
                    "WHERE namespace = ? AND label = ?",
                    [list(stored), revision, at_us, namespace, label],
                )
            conn.executemany(
                "INSERT INTO core_block_history VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                history,
            )
            return StoredBlock(namespace, label, stored, revision, decode_required(at_us))

        return await self._tx(work, action="commit block")
