"""Writers of portable rows into an empty memory, one per backend.

Both first create the schema the stores would (by opening them, or running their migrations),
then insert every table in its stored order, then the vectors through the vector store's own
API (so its index, sidecars and bookkeeping are its own), or — for an export without vectors —
re-embed the staged memories with the given embedder through the collection manager.

* :func:`write_embedded` fills a fresh directory (the caller builds it beside the target and
  renames it into place only once it is complete).
* :func:`insert_postgres` writes every table (after deleting what a ``force`` import
  replaces) inside the transaction in which the caller then loads the vector collections
  (``PgVectorStore.load_in``): rows and vectors commit together or not at all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from remem.embeddings import EmbeddingService
from remem.recovery.errors import RecoveryError, TargetNotEmptyError
from remem.recovery.portable_sources import VectorRow
from remem.recovery.portable_tables import TABLES, PortableTable
from remem.staging import STAGED, CollectionManager, MemoryMoveJournal
from remem.stores.duckdb.database import register_rows
from remem.stores.shared.record_rows import row_to_record
from remem.stores.vector import VectorStore

RowsOf = Callable[[PortableTable], Iterator[dict[str, Any]]]
_BATCH = 2_000


def batches_of(rows: Iterable[Any], size: int = _BATCH) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


async def create_embedded_schema(directory: Path) -> None:
    """Open (and close) every embedded store on ``directory``: the schema they would create."""
    from remem.blocks.store import BlockStore
    from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
    from remem.stores.duckdb.blocks import DuckDBBlockStore
    from remem.stores.sqlite.episodic import SQLiteEpisodicStore
    from remem.stores.sqlite.transcript import SQLiteTranscriptStore

    db = DuckDBDatabase(directory / "memory.duckdb")
    blocks: BlockStore = DuckDBBlockStore(db)
    stores: list[Any] = [
        SQLiteTranscriptStore(directory / "transcript.db"),
        SQLiteEpisodicStore(directory / "episodic.db"),
        DuckDBRecordStore(db),
        DuckDBGraphStore(db),
        blocks,
    ]
    opened: list[Any] = []
    try:
        for store in stores:
            await store.open()
            opened.append(store)
    finally:
        for store in reversed(opened):
            await store.aclose()


def insert_embedded(directory: Path, rows_of: RowsOf) -> None:
    """Insert every table into the (schema-only) embedded memory in ``directory``."""
    for file in ("transcript.db", "episodic.db"):
        conn = sqlite3.connect(directory / file)
        try:
            with conn:
                for table in (t for t in TABLES if t.file == file):
                    statement = table.embedded_insert("?")
                    for batch in batches_of(table.to_embedded(r) for r in rows_of(table)):
                        conn.executemany(statement, batch)
        finally:
            conn.close()
    ddb = duckdb.connect(str(directory / "memory.duckdb"))
    try:
        ddb.execute("BEGIN TRANSACTION")
        for table in (t for t in TABLES if t.file == "memory.duckdb"):
            types = dict(
                ddb.execute(
                    "SELECT column_name, data_type FROM information_schema.columns "
                    "WHERE table_name = ?",
                    [table.embedded_table],
                ).fetchall()
            )
            columns = ", ".join(table.names)
            for batch in batches_of(table.to_embedded(r) for r in rows_of(table)):
                # DuckDB's bulk path (numpy-backed view), far faster than executemany.
                select = register_rows(ddb, "remem_import", table.names, types, batch)
                try:
                    ddb.execute(f"INSERT INTO {table.embedded_table} ({columns}) {select}")
                finally:
                    ddb.unregister("remem_import")
        ddb.execute("COMMIT")
        ddb.execute("CHECKPOINT")
    finally:
        ddb.close()


async def write_vectors(
    store: VectorStore,
    collections: Iterable[tuple[str, str, int, str]],
    items_of: Callable[[str], Iterator[VectorRow]],
) -> None:
    """Create each ``(name, model, dimension, metric)`` collection and add its items."""
    from remem.models import Metric

    for name, model, dimension, metric in collections:
        await store.create_collection(
            name, model_name=model, dimension=dimension, metric=Metric(metric)
        )
        for batch in batches_of(items_of(name)):
            matrix = np.frombuffer(b"".join(r.vector for r in batch), dtype="<f4")
            await store.add(
                name,
                [r.id for r in batch],
                matrix.reshape(len(batch), dimension).astype(np.float32),
                documents=[r.document for r in batch],
                metadatas=[r.metadata for r in batch],
            )


async def reembed(
    store: VectorStore, embedder: EmbeddingService, memories: Iterable[dict[str, Any]]
) -> int:
    """Embed every staged, live memory into its stage's collection; return how many."""
    memories_table = next(t for t in TABLES if t.name == "memories")
    manager = CollectionManager(store, embedder, journal=MemoryMoveJournal())
    await manager.open()
    done = 0
    try:
        for batch in batches_of(memories):
            records = [row_to_record(memories_table.to_embedded(r)) for r in batch]
            # A superseded memory is kept as a record but has no vector (it is never recalled).
            staged = [r for r in records if r.lifecycle.stage in STAGED and r.superseded_by is None]
            if staged:
                await manager.add(staged)
                done += len(staged)
    finally:
        await manager.aclose()
    return done


# -- PostgreSQL -----------------------------------------------------------------------------------


async def create_postgres_schema(conn: Any) -> None:
    """Run every PostgreSQL store's migrations on ``conn`` (an autocommit AsyncConnection)."""
    from remem.stores.postgres import episodic, transcript
    from remem.stores.postgres.blocks import BLOCK_MIGRATIONS
    from remem.stores.postgres.migrations import migrate
    from remem.stores.postgres.schema import GRAPH_MIGRATIONS, RECORD_MIGRATIONS
    from remem.stores.postgres.search_identity import ensure_search_identity
    from remem.stores.postgres.vector_schema import MIGRATIONS as VECTOR_MIGRATIONS
    from remem.stores.shared.search_text import DEFAULT_FULL_TEXT

    await migrate(conn, "transcript", transcript.MIGRATIONS)
    await migrate(conn, "episodic", episodic.MIGRATIONS)
    await ensure_search_identity(conn, DEFAULT_FULL_TEXT)
    await migrate(conn, "graph", GRAPH_MIGRATIONS)
    await migrate(conn, "records", RECORD_MIGRATIONS)
    await migrate(conn, "blocks", BLOCK_MIGRATIONS)
    await migrate(conn, "vectors", VECTOR_MIGRATIONS)


async def postgres_holds_data(conn: Any) -> bool:
    """Whether any table (or vector collection) of the memory in ``conn`` has a row."""
    for table in TABLES:
        cur = await conn.execute(f"SELECT EXISTS (SELECT 1 FROM {table.postgres_table})")
        row = await cur.fetchone()
        if row and row[0]:
            return True
    cur = await conn.execute("SELECT coalesce(sum(item_count), 0) FROM remem_vector_collections")
    row = await cur.fetchone()
    return bool(row and row[0])


async def insert_postgres(conn: Any, rows_of: RowsOf, *, force: bool, target: str) -> None:
    """Insert every table in one transaction; with ``force``, what the memory held is deleted
    in the same transaction (refused without it: TargetNotEmptyError)."""
    async with conn.transaction():
        if await postgres_holds_data(conn):
            if not force:
                raise TargetNotEmptyError(
                    f"the PostgreSQL memory at {target} is not empty; import into an empty "
                    "database, or pass force=True (`--force`) to replace what it holds"
                )
            names = ", ".join(t.postgres_table for t in TABLES)
            await conn.execute(f"TRUNCATE {names}")
        for table in TABLES:
            statement = table.postgres_insert()
            async with conn.cursor() as cur:
                for batch in batches_of(table.to_postgres(r) for r in rows_of(table)):
                    await cur.executemany(statement, batch)


def refuse_unknown_metric(metric: str) -> None:
    from remem.models import Metric

    try:
        Metric(metric)
    except ValueError as exc:
        raise RecoveryError(
            f"the export names an unknown vector metric {metric!r}; it is damaged, use another"
        ) from exc
