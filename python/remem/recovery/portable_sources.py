"""Consistent readers of a whole memory, one per backend, yielding portable rows.

* :func:`embedded_source` holds the directory's writer lock (so a live Runtime is refused with
  :class:`WritersActiveError`) and reads SQLite read-only and DuckDB through the locked
  connections.
* :func:`postgres_source` reads everything inside one ``REPEATABLE READ READ ONLY`` transaction:
  one snapshot of the database, whatever writers do meanwhile.

A table a backend never created (a component never opened) reads as empty.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import duckdb
import numpy as np

from remem.recovery.errors import RecoveryError
from remem.recovery.participants import writer_lock
from remem.recovery.portable_tables import PortableTable
from remem.recovery.quiescence import QuiescenceToken

_BATCH = 2_000


@dataclass(frozen=True, slots=True)
class SourceCollection:
    name: str
    model: str
    dimension: int
    metric: str
    items: int


@dataclass(frozen=True, slots=True)
class VectorRow:
    id: str
    document: str | None
    metadata: dict[str, Any]
    vector: bytes
    """float32, little-endian."""


class Source(Protocol):
    backend: str

    def rows(self, table: PortableTable) -> Iterator[dict[str, Any]]: ...
    def collections(self) -> list[SourceCollection]: ...
    def items(self, collection: str) -> Iterator[VectorRow]: ...


def is_dsn(location: object) -> bool:
    """Whether ``location`` is a PostgreSQL connection URI rather than a directory."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


class _EmbeddedSource:
    backend = "embedded"

    def __init__(self, directory: Path, conns: dict[str, duckdb.DuckDBPyConnection]) -> None:
        self.directory = directory
        self.conns = conns
        self._sqlite: dict[str, sqlite3.Connection] = {}

    def _sqlite_conn(self, file: str) -> sqlite3.Connection | None:
        if file not in self._sqlite:
            path = self.directory / file
            if not path.is_file():
                return None
            self._sqlite[file] = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        return self._sqlite[file]

    def close(self) -> None:
        for conn in self._sqlite.values():
            conn.close()

    def rows(self, table: PortableTable) -> Iterator[dict[str, Any]]:
        if table.file.endswith(".db"):
            conn = self._sqlite_conn(table.file)
            if (
                conn is None
                or not conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                    (table.embedded_table,),
                ).fetchone()
            ):
                return
            cur = conn.execute(table.embedded_select())
            while batch := cur.fetchmany(_BATCH):
                yield from (table.from_embedded(r) for r in batch)
            return
        ddb = self.conns.get(table.file)
        if ddb is None or not _duckdb_has(ddb, table.embedded_table):
            return
        dcur = ddb.cursor()
        try:
            dcur.execute(table.embedded_select())
            while batch := dcur.fetchmany(_BATCH):
                yield from (table.from_embedded(r) for r in batch)
        finally:
            dcur.close()

    def collections(self) -> list[SourceCollection]:
        ddb = self.conns.get("vectors/vectors.duckdb")
        if ddb is None or not _duckdb_has(ddb, "collections"):
            return []
        rows = ddb.execute(
            "SELECT c.name, c.model_name, c.dimension, c.metric, "
            "(SELECT count(*) FROM items i WHERE i.cid = c.cid) FROM collections c ORDER BY name"
        ).fetchall()
        return [SourceCollection(str(n), str(m), int(d), str(x), int(k)) for n, m, d, x, k in rows]

    def items(self, collection: str) -> Iterator[VectorRow]:
        import json

        ddb = self.conns["vectors/vectors.duckdb"]
        dcur = ddb.cursor()
        try:
            dcur.execute(
                "SELECT i.id, i.document, i.metadata, i.vector FROM items i "
                "JOIN collections c USING (cid) WHERE c.name = ? ORDER BY i.id",
                [collection],
            )
            while batch := dcur.fetchmany(_BATCH):
                for item_id, document, metadata, vector in batch:
                    yield VectorRow(str(item_id), document, json.loads(metadata), bytes(vector))
        finally:
            dcur.close()


def _duckdb_has(conn: duckdb.DuckDBPyConnection, table: str) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ? "
        "AND table_catalog = current_database()",
        [table],
    ).fetchone()
    return bool(row and row[0])


@contextlib.contextmanager
def embedded_source(
    directory: Path, *, quiesced: QuiescenceToken | None = None
) -> Iterator[Source]:
    """Read the closed memory in ``directory`` (WritersActiveError while a Runtime has it,
    unless ``quiesced`` is that Runtime's held token)."""
    if not (directory / "memory.duckdb").is_file():
        raise RecoveryError(
            f"{str(directory)!r} holds no embedded memory (no memory.duckdb); pass the directory "
            "given to Runtime.open"
        )
    with writer_lock(directory, quiesced=quiesced) as conns:
        source = _EmbeddedSource(directory, conns)
        try:
            yield source
        finally:
            source.close()


class _PostgresSource:
    backend = "postgres"

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def _has(self, table: str) -> bool:
        row = self.conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
        return bool(row and row[0])

    def rows(self, table: PortableTable) -> Iterator[dict[str, Any]]:
        if not self._has(table.postgres_table):
            return
        with self.conn.cursor(name=f"remem_export_{table.name}") as cur:
            cur.itersize = _BATCH
            cur.execute(table.postgres_select())
            for row in cur:
                yield table.from_postgres(row)

    def _cids(self) -> dict[str, int]:
        if not self._has("remem_vector_collections"):
            return {}
        rows = self.conn.execute("SELECT name, cid FROM remem_vector_collections").fetchall()
        return {str(n): int(c) for n, c in rows}

    def collections(self) -> list[SourceCollection]:
        out = []
        cids = self._cids()
        for name in sorted(cids):
            row = self.conn.execute(
                "SELECT model_name, dimension, metric FROM remem_vector_collections "
                "WHERE name = %s",
                (name,),
            ).fetchone()
            count = self.conn.execute(f"SELECT count(*) FROM remem_vectors_{cids[name]}").fetchone()
            out.append(SourceCollection(name, str(row[0]), int(row[1]), str(row[2]), int(count[0])))
        return out

    def items(self, collection: str) -> Iterator[VectorRow]:
        cid = self._cids()[collection]
        row = self.conn.execute(
            "SELECT metric FROM remem_vector_collections WHERE cid = %s", (cid,)
        ).fetchone()
        cosine = row is not None and row[0] == "cosine"
        with self.conn.cursor(name=f"remem_export_vectors_{cid}") as cur:
            cur.itersize = _BATCH
            cur.execute(
                f"SELECT id, document, metadata, embedding::real[], norm FROM remem_vectors_{cid} "
                "ORDER BY id"
            )
            for item_id, document, metadata, vector, norm in cur:
                vec = np.asarray(vector, dtype=np.float32)
                if cosine:  # stored unit-normalised beside the norm, as PgVectorStore.get reads
                    vec = vec * np.float32(norm)
                blob = vec.astype("<f4").tobytes()
                yield VectorRow(str(item_id), document, dict(metadata), blob)


@contextlib.contextmanager
def postgres_source(dsn: str) -> Iterator[Source]:
    """Read the memory in the PostgreSQL database ``dsn`` from one repeatable-read snapshot."""
    import psycopg

    try:
        conn = psycopg.connect(dsn)
    except psycopg.Error as exc:
        raise RecoveryError(
            f"cannot connect to PostgreSQL ({exc}); check the DSN and that the server runs"
        ) from exc
    try:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        conn.read_only = True
        with conn.transaction():
            yield _PostgresSource(conn)
    except psycopg.Error as exc:
        raise RecoveryError(f"reading the PostgreSQL memory failed ({exc}); retry") from exc
    finally:
        conn.close()
