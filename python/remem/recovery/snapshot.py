"""``snapshot(directory, out)`` and ``restore(snapshot, directory)`` for the embedded default.

::

    from remem.recovery import restore, snapshot

    manifest = snapshot("./memory", "./backup-2026-12-02")   # the Runtime must be closed
    restore("./backup-2026-12-02", "./memory-copy")          # verified, then renamed into place

Contract:

* **Quiescence.** Both hold the directory's writer lock (:func:`~remem.recovery.participants.
  writer_lock`) for the whole operation and refuse with :class:`WritersActiveError` while a
  Runtime has it open — unless the snapshot is given that Runtime's held quiescence token
  (``quiesced=``; :func:`remem.maintenance.snapshot_live` does it): writers, extraction,
  compaction and access flushes are then stopped by the token, and the copy is of the live
  directory held still.
* **Consistency.** SQLite files are copied with the online backup API, DuckDB files after a
  ``CHECKPOINT`` with the lock held; every copy's row counts are checked against its source.
* **Completeness.** A snapshot is written to a hidden temporary directory beside ``out``; the
  manifest (row counts, sha256 of every file, embedding models, the namespaces and sessions
  present) is written last, every checksum
  is re-read, and only then is the directory renamed to ``out``. A process killed at any point
  leaves no ``out`` (only a ``.<name>.partial-*`` directory, removed by the next snapshot to
  ``out``) and the source as it was.
* **Restore** verifies the manifest and every checksum before touching ``directory``, refuses a
  non-empty ``directory`` without ``force`` (:class:`TargetNotEmptyError`), copies into a
  temporary directory beside it, verifies the copy, and moves it in with one rename — with
  ``force``, one atomic exchange (Linux ``renameat2(RENAME_EXCHANGE)``), so a kill at any point
  leaves ``directory`` whole, old or new (plus a ``.<name>.restore-*`` directory to delete).
  Where the exchange is unsupported it falls back to two renames; a kill between them leaves
  ``directory`` absent and its previous content whole in ``.<name>.old-*/<name>``.
* **Tokens name a memory.** A token given for another directory (``token.memory``) is refused
  with :class:`~remem.recovery.ForeignTokenError` before anything is read or written; a restore
  given any token of its target refuses (``WritersActiveError``: it would replace files the
  held Runtime has open).
* **Not covered**: a Runtime opened in *this* process while a snapshot runs shares DuckDB's
  instance instead of failing (DuckDB's lock is per process); other processes are kept out.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import sqlite3
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from remem.recovery.errors import RecoveryError, TargetNotEmptyError, WritersActiveError
from remem.recovery.manifest import (
    EmbeddingEntry,
    Manifest,
    ParticipantEntry,
    Scopes,
    sha256_file,
)
from remem.recovery.participants import (
    SQLITE_ROLES,
    copy_participant,
    participants,
    writer_lock,
)
from remem.recovery.quiescence import QuiescenceToken

__all__ = ["restore", "snapshot"]


def snapshot(
    directory: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    quiesced: QuiescenceToken | None = None,
) -> Manifest:
    """Write a verified snapshot of the closed memory in ``directory`` to ``out`` (must not
    exist); return its manifest. ``quiesced``: the held token of the Runtime of this process
    that has ``directory`` open (:func:`remem.maintenance.snapshot_live` passes it)."""
    source, target = Path(directory), Path(out)
    if quiesced is not None:
        quiesced.admit(source, "snapshot")
    if not (source / "memory.duckdb").is_file():
        raise RecoveryError(
            f"{str(source)!r} holds no embedded memory (no memory.duckdb); pass the directory "
            "given to Runtime.open"
        )
    if target.exists():
        raise TargetNotEmptyError(
            f"{str(target)!r} already exists; snapshot into a new path (snapshots are never "
            "overwritten)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_partials(target)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        with writer_lock(source, quiesced=quiesced) as conns:
            entries = []
            for part in participants(source):
                rows = copy_participant(part, source, work, conns)
                file = work / part.path
                entries.append(
                    ParticipantEntry(
                        name=part.name,
                        kind=part.kind,
                        path=part.path,
                        bytes=file.stat().st_size,
                        sha256=sha256_file(file),
                        rows=rows,
                    )
                )
            embeddings = _embeddings(conns.get("vectors/vectors.duckdb"))
            scopes = _scopes(work, conns)
        work.chmod(source.stat().st_mode & 0o777)
        _fsync_tree(work)
        manifest = Manifest(
            remem_version=_remem_version(),
            created_at=datetime.now(UTC).isoformat(),
            participants=tuple(entries),
            embeddings=embeddings,
            scopes=scopes,
        )
        manifest.write(work)
        Manifest.read(work).verify(work)
        work.rename(target)
        _fsync_dir(target.parent)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return manifest


def restore(
    snapshot_dir: str | os.PathLike[str],
    directory: str | os.PathLike[str],
    *,
    force: bool = False,
    quiesced: QuiescenceToken | None = None,
) -> Manifest:
    """Restore the snapshot in ``snapshot_dir`` into ``directory``; with ``force`` its current
    content is replaced (only once the restored copy is verified). Returns the manifest.

    ``quiesced``: a token is checked like everywhere (another memory's is
    :class:`ForeignTokenError`), but a restore never runs under a Runtime holding
    ``directory``, held still or not — it replaces the files that Runtime has open — so a token
    of ``directory`` is refused with :class:`WritersActiveError`: close the Runtime first."""
    snap, target = Path(snapshot_dir), Path(directory)
    if quiesced is not None:
        quiesced.admit(target, "restore into")
        raise WritersActiveError(
            f"writers active: a Runtime of this process has {str(target)!r} open (its "
            "quiescence token was given); a restore replaces the files it holds, so close it "
            "(`await rt.aclose()`) and restore without a token"
        )
    manifest = Manifest.read(snap)
    manifest.verify(snap)
    occupied = target.exists() and (not target.is_dir() or any(target.iterdir()))
    if occupied and not force:
        raise TargetNotEmptyError(
            f"{str(target)!r} is not empty; restore into an empty directory, or pass force=True "
            "(`--force`) to replace what it holds"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.restore-", dir=target.parent))
    try:
        for entry in manifest.participants:
            dst = work / entry.path
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(snap / entry.path, dst)
        work.chmod(snap.stat().st_mode & 0o777)
        _fsync_tree(work)
        manifest.verify(work)
        move_into_place(work, target, occupied=occupied)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return manifest


def move_into_place(work: Path, target: Path, *, occupied: bool) -> None:
    """Put the complete directory ``work`` (a sibling of ``target``) at ``target``.

    An ``occupied`` directory is swapped under its writer lock (a live Runtime on it refuses
    with :class:`WritersActiveError`), by one atomic exchange where the system has one, so a
    kill leaves ``target`` whole, old or new; its old content is then deleted. An occupied
    *file*, or an empty directory, is removed and ``work`` renamed. Shared by restore and
    import, so that both leave a target in the states the module docstring lists.
    """
    if occupied and target.is_dir():
        with writer_lock(target):
            if _exchange(work, target):
                old = work  # now holds what the target held
            else:
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
                target.rename(old / target.name)
                work.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        if occupied:
            target.unlink()
        elif target.exists():
            target.rmdir()
        work.rename(target)
    _fsync_dir(target.parent)


_SCOPE_COLUMNS = {"namespace": "namespaces", "session_id": "sessions"}


def _scopes(work: Path, conns: dict[str, duckdb.DuckDBPyConnection]) -> Scopes:
    """The namespaces and sessions present: every distinct ``namespace`` / ``session_id`` value
    of every table — the rule the portable export applies to the rows it writes. DuckDB is read
    through the held (checkpointed) connections, SQLite from the verified copies."""
    found: dict[str, set[str]] = {"namespaces": set(), "sessions": set()}
    for conn in conns.values():
        columns = conn.execute(
            "SELECT table_schema, table_name, column_name FROM information_schema.columns "
            "WHERE table_catalog = current_database() AND column_name IN "
            "('namespace', 'session_id')"
        ).fetchall()
        for schema, table, column in columns:
            values = conn.execute(f'SELECT DISTINCT "{column}" FROM "{schema}"."{table}"')
            found[_SCOPE_COLUMNS[column]] |= {v for (v,) in values.fetchall() if isinstance(v, str)}
    for name in SQLITE_ROLES:
        file = work / name
        if not file.is_file():
            continue
        db = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            tables = [
                r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
            for table in tables:
                for info in db.execute(f'PRAGMA table_info("{table}")').fetchall():
                    if info[1] in _SCOPE_COLUMNS:
                        cursor = db.execute(f'SELECT DISTINCT "{info[1]}" FROM "{table}"')
                        found[_SCOPE_COLUMNS[info[1]]] |= {
                            v for (v,) in cursor.fetchall() if isinstance(v, str)
                        }
        finally:
            db.close()
    return Scopes(tuple(sorted(found["namespaces"])), tuple(sorted(found["sessions"])))


def _embeddings(conn: duckdb.DuckDBPyConnection | None) -> tuple[EmbeddingEntry, ...]:
    if conn is None:
        return ()
    try:
        rows = conn.execute(
            "SELECT name, model_name, dimension FROM collections ORDER BY name"
        ).fetchall()
    except duckdb.CatalogException:  # a vector file from before the first collection
        return ()
    return tuple(EmbeddingEntry(str(n), str(m), int(d)) for n, m, d in rows)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap the paths ``a`` and ``b`` atomically; False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux, or a libc before glibc 2.28
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # a file system without it
        return False
    raise OSError(err, os.strerror(err), str(b))


def _remove_partials(target: Path) -> None:
    """Remove what a killed snapshot to ``target`` left behind (never marked complete)."""
    for leftover in target.parent.glob(f".{target.name}.partial-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _remem_version() -> str:
    from remem._native import __version__

    return str(__version__)


def _fsync_tree(root: Path) -> None:
    for path in sorted(root.rglob("*"), reverse=True):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        else:
            _fsync_dir(path)
    _fsync_dir(root)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
