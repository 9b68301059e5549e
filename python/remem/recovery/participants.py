"""The participants of an embedded memory directory and how each is copied consistently.

=========================  ==============================  ========================================
file                       participant                     copied with
=========================  ==============================  ========================================
``transcript.db``          transcripts                     SQLite's online backup API
``episodic.db``            full-text index (FTS5)          SQLite's online backup API
``writebehind.db``         write-behind journal            SQLite's online backup API
``memory.duckdb``          records, graph and blocks       DuckDB ``CHECKPOINT``, then a byte copy
``vectors/vectors.duckdb`` vectors                         DuckDB ``CHECKPOINT``, then a byte copy
``vectors/*`` (others)     vector index sidecars           byte copy (only a live store writes)
``*.journal``              move / lifecycle journals       byte copy (idem)
=========================  ==============================  ========================================

Quiescence: :func:`writer_lock` holds DuckDB's file lock on every ``*.duckdb`` participant — the
lock every :class:`~remem.Runtime` takes when it opens the directory — for the whole copy, so a
live Runtime in another process makes it fail with :class:`WritersActiveError`, and a Runtime
that starts meanwhile fails to open. A Runtime open in *this* process is found by first opening
each file read-only, which DuckDB refuses beside a read-write instance. Nothing is drained:
pending write-behind entries are copied as they are and replayed when the restored directory is
opened. A leftover DuckDB WAL (a crash) is checkpointed into its file first — the recovery the
next ``Runtime.open`` would run anyway.

A Runtime of this process that is held still by its quiescence token (``rt.quiesce()``) is
copied live: given the unreleased token *of this directory* (another memory's token is refused,
:meth:`~remem.recovery.quiescence.QuiescenceToken.admit`), :func:`writer_lock` skips the
read-only probe and shares the Runtime's DuckDB instance (one per file and process) to
CHECKPOINT it; the token guarantees nothing writes meanwhile (see
:mod:`remem.maintenance.backup`).
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from remem.recovery.errors import RecoveryError, WritersActiveError
from remem.recovery.quiescence import QuiescenceToken

SQLITE_ROLES = {
    "transcript.db": "transcripts",
    "episodic.db": "full-text index",
    "writebehind.db": "write-behind journal",
}
DUCKDB_ROLES = {
    "memory.duckdb": "records, graph and blocks",
    "vectors/vectors.duckdb": "vectors",
}
_SKIPPED_SUFFIXES = ("-wal", "-shm", "-journal", ".wal", ".tmp")
"""Side files of a database engine: their content reaches the copy through the engine."""

_held: set[str] = set()
_held_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Participant:
    path: str
    """Relative to the directory, ``/``-separated."""
    name: str
    kind: str
    """``sqlite``, ``duckdb`` or ``file``."""


def participants(directory: Path) -> list[Participant]:
    """The files of the memory in ``directory``, sorted by path."""
    found: list[Participant] = []
    for file in sorted(p for p in directory.rglob("*") if p.is_file()):
        rel = file.relative_to(directory).as_posix()
        if rel.endswith(_SKIPPED_SUFFIXES) or rel == "manifest.json":
            continue
        if rel in SQLITE_ROLES:
            found.append(Participant(rel, SQLITE_ROLES[rel], "sqlite"))
        elif rel in DUCKDB_ROLES:
            found.append(Participant(rel, DUCKDB_ROLES[rel], "duckdb"))
        elif rel.startswith("vectors/"):
            found.append(Participant(rel, "vector index", "file"))
        else:
            found.append(
                Participant(rel, "journal" if rel.endswith(".journal") else "file", "file")
            )
    return found


def _refused(directory: Path, exc: BaseException) -> WritersActiveError:
    return WritersActiveError(
        f"writers active: {str(directory)!r} is open by a Runtime or another process ({exc}); "
        "close it (`await rt.aclose()`), or from the process that runs it use "
        "remem.maintenance.snapshot_live / export_live, and retry"
    )


@contextlib.contextmanager
def writer_lock(
    directory: Path, *, quiesced: QuiescenceToken | None = None
) -> Iterator[dict[str, duckdb.DuckDBPyConnection]]:
    """Hold the directory's writer lock: one read-write DuckDB connection per ``*.duckdb``
    participant, each CHECKPOINTed. Yields ``{relative path: connection}``.

    ``quiesced`` is the token of the Runtime of this process that has ``directory`` open (module
    docstring); without one, that Runtime is refused with :class:`WritersActiveError`."""
    if quiesced is not None:  # a token of another memory, or a released one, proves nothing
        quiesced.admit(directory, "copy")
    key = str(directory.resolve())
    with _held_lock:
        if key in _held:
            raise WritersActiveError(
                f"writers active: a snapshot or restore of {str(directory)!r} is already running "
                "in this process; wait for it"
            )
        _held.add(key)
    conns: dict[str, duckdb.DuckDBPyConnection] = {}
    try:
        for rel in DUCKDB_ROLES:
            file = directory / rel
            if not file.exists():
                continue
            try:  # refused beside a read-write instance in this process or a lock elsewhere
                if quiesced is None:
                    duckdb.connect(str(file), read_only=True).close()
                conn = duckdb.connect(str(file))
            except duckdb.Error as exc:
                raise _refused(directory, exc) from exc
            conns[rel] = conn
            conn.execute("CHECKPOINT")
        yield conns
    finally:
        for conn in conns.values():
            conn.close()
        with _held_lock:
            _held.discard(key)


def copy_participant(
    part: Participant,
    source: Path,
    target: Path,
    conns: dict[str, duckdb.DuckDBPyConnection],
) -> dict[str, int]:
    """Copy one participant from ``source`` to ``target``; return the copy's row counts
    after checking they equal the source's (RecoveryError otherwise)."""
    src, dst = source / part.path, target / part.path
    dst.parent.mkdir(parents=True, exist_ok=True)
    if part.kind == "sqlite":
        return _copy_sqlite(src, dst)
    shutil.copyfile(src, dst)
    if part.kind == "file":
        return {}
    expected = _duckdb_rows(conns[part.path])
    copy = duckdb.connect(str(dst), read_only=True)
    try:
        rows = _duckdb_rows(copy)
    finally:
        copy.close()
    _same_rows(part, expected, rows)
    return rows


def _copy_sqlite(src: Path, dst: Path) -> dict[str, int]:
    try:
        # Read-write so that closing the last connection removes the -wal/-shm it created; the
        # backup only reads.
        source = sqlite3.connect(src)
    except sqlite3.Error as exc:
        raise RecoveryError(f"cannot open {src} for the backup ({exc})") from exc
    try:
        copy = sqlite3.connect(dst)
        try:
            source.backup(copy)
            # The copy must stand alone: no WAL beside it, so its bytes are the whole state.
            copy.execute("PRAGMA journal_mode = DELETE")
            rows = sqlite_rows(copy)
        finally:
            copy.close()
        expected = sqlite_rows(source)
    except sqlite3.Error as exc:
        raise RecoveryError(f"the SQLite backup of {src} failed ({exc}); retry") from exc
    finally:
        source.close()
    _same_rows(Participant(src.name, src.name, "sqlite"), expected, rows)
    return rows


def sqlite_rows(conn: sqlite3.Connection) -> dict[str, int]:
    """Row count of every table of ``conn`` (FTS5 virtual and shadow tables included)."""
    names = [
        r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1")
    ]
    return {n: int(conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0]) for n in names}


def _duckdb_rows(conn: duckdb.DuckDBPyConnection) -> dict[str, int]:
    tables = conn.execute(
        "SELECT table_schema, table_name FROM information_schema.tables "
        "WHERE table_type = 'BASE TABLE' AND table_catalog = current_database() ORDER BY 1, 2"
    ).fetchall()
    counts: dict[str, int] = {}
    for schema, name in tables:
        row = conn.execute(f'SELECT count(*) FROM "{schema}"."{name}"').fetchone()
        counts[name if schema == "main" else f"{schema}.{name}"] = int(row[0]) if row else 0
    return counts


def _same_rows(part: Participant, expected: dict[str, int], rows: dict[str, int]) -> None:
    if rows != expected:
        raise RecoveryError(
            f"the copy of {part.path} does not match its source (rows {rows} vs {expected}); "
            "nothing was marked complete — retry with the directory closed"
        )
