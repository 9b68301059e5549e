"""``export_memory`` / ``import_memory``: a portable JSON Lines copy of a memory, either backend.

::

    from remem.recovery import export_memory, import_memory

    export_memory("./memory", "./memory.export", vectors=True)      # the Runtime must be closed
    import_memory("./memory.export", "postgresql://me@db/remem")    # embedded → PostgreSQL
    import_memory("./memory.export", "./memory-copy")               # … or back

Layout of an export directory::

    manifest.json                 format, remem version, source backend, scopes, collections,
                                  every file with its rows and sha256 (written last)
    tables/<table>.jsonl          one JSON object per row (see remem.recovery.portable_tables)
    vectors/<collection>.jsonl    {"id", "document", "metadata", "vector": base64 float32 LE}

Contract:

* **Consistency.** The embedded source is read under its writer lock (a live Runtime is refused
  with :class:`WritersActiveError`, unless its held quiescence token is passed as ``quiesced``:
  :func:`remem.maintenance.export_live`; a token of another memory is refused with
  :class:`~remem.recovery.ForeignTokenError`); PostgreSQL in one repeatable-read transaction.
* **Completeness.** The export is written to a hidden ``.<name>.partial-*`` directory, the
  manifest last, every checksum re-read, then the directory is renamed to ``out``.
* **Import** reads the manifest and verifies every checksum before touching the target, refuses
  a non-empty target without ``force`` (:class:`TargetNotEmptyError`). An embedded target is
  built beside the directory and renamed (with ``force``: exchanged) into place once complete;
  a PostgreSQL target gets every table and every vector collection in one transaction. So a
  kill at any point leaves the target as it was (plus, for a directory, a ``.<name>.import-*``
  leftover the next import removes), and the same command run again starts over.
* **Vectors.** With ``vectors=True`` the embeddings travel and an import recalls exactly as the
  source did. Without, an import re-embeds the staged memories with ``embedder`` (which must be
  the model the manifest names, else :class:`IncompatibleSnapshotError`).
* **Identity.** Rows are compared as portable values: JSON columns as parsed values (PostgreSQL's
  ``jsonb`` keeps no key order), times as microseconds.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from remem.embeddings import EmbeddingService
from remem.models import CollectionInfo
from remem.recovery.errors import (
    IncompatibleSnapshotError,
    ManifestInvalidError,
    RecoveryError,
    TargetNotEmptyError,
)
from remem.recovery.export_manifest import (
    ExportCollection,
    ExportFile,
    ExportManifest,
)
from remem.recovery.manifest import Scopes
from remem.recovery.portable_sources import (
    Source,
    VectorRow,
    embedded_source,
    is_dsn,
    postgres_source,
)
from remem.recovery.portable_tables import TABLES, PortableTable
from remem.recovery.portable_targets import (
    batches_of,
    create_embedded_schema,
    create_postgres_schema,
    insert_embedded,
    insert_postgres,
    postgres_holds_data,
    reembed,
    refuse_unknown_metric,
    write_vectors,
)
from remem.recovery.quiescence import QuiescenceToken
from remem.recovery.snapshot import _fsync_dir, _fsync_tree, _remem_version, move_into_place

if TYPE_CHECKING:
    from remem.stores.postgres.vector import LoadBatch

__all__ = ["export_memory", "import_memory", "read_export"]

Location = str | os.PathLike[str]


def export_memory(
    source: Location,
    out: Location,
    *,
    vectors: bool = False,
    quiesced: QuiescenceToken | None = None,
) -> ExportManifest:
    """Export the memory at ``source`` (a directory, or a ``postgresql://`` DSN) to the new
    directory ``out``; return its manifest. ``quiesced``: the held token of the Runtime of this
    process that has ``source`` open (:func:`remem.maintenance.export_live` passes it); a
    token of another memory is refused with :class:`ForeignTokenError`."""
    if quiesced is not None:
        quiesced.admit(source, "export")
    target = Path(out)
    if target.exists():
        raise TargetNotEmptyError(
            f"{str(target)!r} already exists; export into a new path (exports are never "
            "overwritten)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    for leftover in target.parent.glob(f".{target.name}.partial-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        opened = (
            postgres_source(str(source))
            if is_dsn(source)
            else embedded_source(Path(source), quiesced=quiesced)
        )
        with opened as src:
            manifest = _write_export(src, work, vectors=vectors)
        _fsync_tree(work)
        manifest.write(work)
        ExportManifest.read(work).verify(work)
        work.rename(target)
        _fsync_dir(target.parent)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return manifest


def _write_export(src: Source, work: Path, *, vectors: bool) -> ExportManifest:
    files: list[ExportFile] = []
    namespaces: set[str] = set()
    sessions: set[str] = set()
    (work / "tables").mkdir()
    for table in TABLES:
        rel = f"tables/{table.name}.jsonl"
        rows = _write_lines(work / rel, _scoped(src.rows(table), namespaces, sessions))
        files.append(_file_entry(work, rel, rows))
    collections: list[ExportCollection] = []
    for col in src.collections():
        path = None
        if vectors:
            (work / "vectors").mkdir(exist_ok=True)
            path = f"vectors/{col.name}.jsonl"
            count = _write_lines(work / path, (_vector_line(r) for r in src.items(col.name)))
            files.append(_file_entry(work, path, count))
        collections.append(
            ExportCollection(col.name, col.model, col.dimension, col.metric, col.items, path)
        )
    return ExportManifest(
        remem_version=_remem_version(),
        created_at=datetime.now(UTC).isoformat(),
        source=src.backend,
        vectors=vectors,
        files=tuple(files),
        collections=tuple(collections),
        scopes=Scopes(tuple(sorted(namespaces)), tuple(sorted(sessions))),
    )


def _scoped(
    rows: Iterator[dict[str, Any]], namespaces: set[str], sessions: set[str]
) -> Iterator[dict[str, Any]]:
    for row in rows:
        if isinstance(row.get("namespace"), str):
            namespaces.add(row["namespace"])
        if isinstance(row.get("session_id"), str):
            sessions.add(row["session_id"])
        yield row


def _vector_line(row: VectorRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "document": row.document,
        "metadata": row.metadata,
        "vector": base64.b64encode(row.vector).decode("ascii"),
    }


def _write_lines(path: Path, rows: Iterator[dict[str, Any]]) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True, allow_nan=False))
            fh.write("\n")
            count += 1
    return count


def _file_entry(work: Path, rel: str, rows: int) -> ExportFile:
    digest = hashlib.sha256((work / rel).read_bytes()).hexdigest()
    return ExportFile(rel, rows, (work / rel).stat().st_size, digest)


# -- reading an export ----------------------------------------------------------------------------


def read_export(path: Location) -> ExportManifest:
    """The manifest of the export at ``path``, after every checksum was verified."""
    directory = Path(path)
    manifest = ExportManifest.read(directory)
    manifest.verify(directory)
    for table in TABLES:
        manifest.file(f"tables/{table.name}.jsonl")
    for col in manifest.collections:
        refuse_unknown_metric(col.metric)
        if manifest.vectors and col.path is None:
            raise ManifestInvalidError(
                f"the export at {str(directory)!r} says it holds vectors but lists no file for "
                f"collection {col.name!r}; it is damaged, use another"
            )
    return manifest


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ManifestInvalidError(
                    f"{path}:{number} is not JSON ({exc}); the export is damaged, use another"
                ) from exc
            if not isinstance(row, dict):
                raise ManifestInvalidError(f"{path}:{number} is not a JSON object")
            yield row


def _table_rows(directory: Path, table: PortableTable) -> Iterator[dict[str, Any]]:
    expected = set(table.names)
    # A column added since (``absent`` set) may be missing from an older export's rows.
    required = {c.name for c in table.columns if c.absent is None}
    for row in _lines(directory / "tables" / f"{table.name}.jsonl"):
        if not required <= set(row) <= expected:
            raise ManifestInvalidError(
                f"a row of tables/{table.name}.jsonl has columns {sorted(row)}, not "
                f"{sorted(expected)}; the export is damaged or from another remem"
            )
        yield row


def _vector_rows(directory: Path, col: ExportCollection) -> Iterator[VectorRow]:
    assert col.path is not None
    for row in _lines(directory / col.path):
        try:
            blob = base64.b64decode(row["vector"], validate=True)
            item = VectorRow(str(row["id"]), row["document"], dict(row["metadata"]), blob)
        except (KeyError, TypeError, ValueError) as exc:
            raise ManifestInvalidError(
                f"an item of {col.path} is malformed ({exc!r}); the export is damaged"
            ) from exc
        if len(blob) != 4 * col.dimension:
            raise ManifestInvalidError(
                f"item {item.id!r} of {col.path} has {len(blob) // 4} dimensions, the "
                f"collection {col.dimension}; the export is damaged"
            )
        yield item


# -- importing ------------------------------------------------------------------------------------


def import_memory(
    path: Location,
    target: Location,
    *,
    force: bool = False,
    embedder: EmbeddingService | None = None,
) -> ExportManifest:
    """Import the export at ``path`` into ``target`` (a directory, or a ``postgresql://`` DSN),
    which must be empty unless ``force``. ``embedder`` re-embeds an export without vectors."""
    directory = Path(path)
    manifest = read_export(directory)
    if not manifest.vectors:
        _check_embedder(manifest, embedder)
    if is_dsn(target):
        asyncio.run(_import_postgres(directory, manifest, str(target), force, embedder))
    else:
        _import_embedded(directory, manifest, Path(target), force, embedder)
    return manifest


def _check_embedder(manifest: ExportManifest, embedder: EmbeddingService | None) -> None:
    if embedder is None:
        raise IncompatibleSnapshotError(
            "the export holds no vectors; pass the embedder to re-embed with (`--embedding-"
            "provider`), or export again with vectors (`--vectors`)"
        )
    for col in manifest.collections:
        if (col.model, col.dimension) != (embedder.model_name, embedder.dimension):
            raise IncompatibleSnapshotError(
                f"collection {col.name!r} was embedded with {col.model!r} (dimension "
                f"{col.dimension}), not {embedder.model_name!r} ({embedder.dimension}); "
                "re-embed with that model, or export again with `--vectors`"
            )


def _occupied(target: Path) -> bool:
    return target.exists() and (not target.is_dir() or any(target.iterdir()))


def _import_embedded(
    directory: Path,
    manifest: ExportManifest,
    target: Path,
    force: bool,
    embedder: EmbeddingService | None,
) -> None:
    occupied = _occupied(target)
    if occupied and not force:
        raise TargetNotEmptyError(
            f"{str(target)!r} is not empty; import into an empty directory, or pass force=True "
            "(`--force`) to replace what it holds"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    for leftover in target.parent.glob(f".{target.name}.import-*"):  # of a killed import
        shutil.rmtree(leftover, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.import-", dir=target.parent))
    try:
        asyncio.run(create_embedded_schema(work))
        insert_embedded(work, lambda t: _table_rows(directory, t))
        asyncio.run(_embedded_vectors(directory, manifest, work, embedder))
        work.chmod(0o755)
        _fsync_tree(work)
        move_into_place(work, target, occupied=occupied)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


async def _embedded_vectors(
    directory: Path,
    manifest: ExportManifest,
    work: Path,
    embedder: EmbeddingService | None,
) -> None:
    from remem.stores.hnsw import HnswVectorStore

    store = HnswVectorStore(work / "vectors")
    await store.open()
    try:
        await _fill_vectors(directory, manifest, store, embedder)
    finally:
        await store.aclose()


async def _fill_vectors(
    directory: Path, manifest: ExportManifest, store: Any, embedder: EmbeddingService | None
) -> None:
    by_name = {c.name: c for c in manifest.collections}
    if manifest.vectors:
        await write_vectors(
            store,
            [(c.name, c.model, c.dimension, c.metric) for c in manifest.collections],
            lambda name: _vector_rows(directory, by_name[name]),
        )
        return
    assert embedder is not None
    memories = next(t for t in TABLES if t.name == "memories")
    await reembed(store, embedder, _table_rows(directory, memories))


async def _import_postgres(
    directory: Path,
    manifest: ExportManifest,
    dsn: str,
    force: bool,
    embedder: EmbeddingService | None,
) -> None:
    """Every table and every vector collection in ONE transaction: a kill or an error at any
    point leaves the database as it was (the same command then runs again from the start)."""
    import psycopg

    from remem.stores.postgres.vector import PgVectorStore

    shown = dsn.rsplit("@", 1)[-1]
    # Re-embedding happens before the transaction, so that it holds no lock meanwhile.
    collections = await _collections_to_load(directory, manifest, embedder)
    try:
        conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
    except psycopg.Error as exc:
        raise RecoveryError(
            f"cannot connect to PostgreSQL ({exc}); check the DSN and that the server runs"
        ) from exc
    try:
        await create_postgres_schema(conn)
        if await postgres_holds_data(conn) and not force:
            raise TargetNotEmptyError(
                f"the PostgreSQL memory at {shown} is not empty; import into an empty "
                "database, or pass force=True (`--force`) to replace what it holds"
            )
        store = PgVectorStore(dsn)  # only its in-transaction writers: no pool is opened
        async with conn.transaction():
            await insert_postgres(
                conn, lambda t: _table_rows(directory, t), force=force, target=shown
            )
            await store.drop_all_in(conn)
            for info, rows in collections:
                await store.load_in(conn, info, _load_batches(rows(), info.dimension))
    except psycopg.Error as exc:
        raise RecoveryError(f"the import into PostgreSQL failed ({exc}); nothing was kept") from exc
    finally:
        await conn.close()


VectorRows = Callable[[], Iterator[VectorRow]]


async def _collections_to_load(
    directory: Path, manifest: ExportManifest, embedder: EmbeddingService | None
) -> list[tuple[CollectionInfo, VectorRows]]:
    """Each collection to create, with its items: read from the export, or (an export without
    vectors) re-embedded into a staging in-memory store first."""
    from remem.models import Metric

    if manifest.vectors:
        return [
            (
                CollectionInfo(
                    name=c.name, model_name=c.model, dimension=c.dimension, metric=Metric(c.metric)
                ),
                functools.partial(_vector_rows, directory, c),
            )
            for c in manifest.collections
        ]
    from remem.stores.memory.vector import MemoryVectorStore

    staging = MemoryVectorStore()
    await _fill_vectors(directory, manifest, staging, embedder)
    memories = next(t for t in TABLES if t.name == "memories")
    ids = [str(r["id"]) for r in _table_rows(directory, memories)]
    out: list[tuple[CollectionInfo, VectorRows]] = []
    for info in await staging.list_collections():
        items = await staging.get(info.name, ids)
        rows = [
            VectorRow(i.id, i.document, dict(i.metadata), np.asarray(i.vector, "<f4").tobytes())
            for i in items
        ]
        out.append((info, functools.partial(iter, rows)))
    return out


def _load_batches(rows: Iterator[VectorRow], dimension: int) -> Iterator[LoadBatch]:
    for batch in batches_of(rows):
        matrix = np.frombuffer(b"".join(r.vector for r in batch), dtype="<f4")
        yield (
            [r.id for r in batch],
            matrix.reshape(len(batch), dimension).astype(np.float32),
            [r.document for r in batch],
            [r.metadata for r in batch],
        )
