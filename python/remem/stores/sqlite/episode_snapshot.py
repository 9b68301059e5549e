"""The episodic index's snapshot: an :class:`~remem.stores.sqlite.episode_index.EpisodeIndex`
saved beside its SQLite file, so opening a store catches up only the rows written since.

Why: the in-memory index was rebuilt on the first search after every open — every row read back
and tokenised again (~3 s at 100k notes), which the first recall after opening a store paid in
full. ``episodic_items`` is insert-only (rows immutable, nothing deleted, ``seq`` growing), so an
index of the rows up to some ``seq`` stays a correct *prefix* of the table forever: loading it and
indexing ``seq > last`` gives exactly the index a rebuild would.

File: ``<database>.index.npz`` (uncompressed; numpy's zip members carry a CRC checked on read),
written at close when the index holds rows the saved one does not: temp file, fsync, then
``os.replace`` and a directory fsync, so a crash at any point leaves the old snapshot or none —
both valid prefixes. :func:`load_episodes` gives None (the caller rebuilds from SQLite) when the
file is missing, of another format, unreadable or inconsistent
(:func:`~remem.stores.term_index.arrays.index_from_arrays`), or does not describe this file's
rows: :data:`SAMPLES` of its rows, evenly spaced and the last one included, must carry the
same id, time and search text (a digest) at the same ``seq``, and the file's search identity
(:mod:`.search_identity`: which normalisation built ``search_text``) must be the one the
snapshot was built with — a re-index rewrites every row.
Indexes under :data:`MIN_ROWS` rows are not saved.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from remem.stores.sqlite.search_identity import stored_identity
from remem.stores.term_index import TermIndex
from remem.stores.term_index.arrays import (
    Arrays,
    SavedIndexError,
    index_arrays,
    index_from_arrays,
    join_strings,
    split_strings,
)

_FORMAT = 1
SAMPLES = 16
"""Rows (evenly spaced, the last included) whose digest the snapshot keeps to recognise its file."""
MIN_ROWS = 2048
"""Smaller indexes are not saved: rebuilding one takes tens of milliseconds, about what the
fsyncs of writing it cost."""
log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class SavedEpisodes:
    """What a snapshot restores: the term index and the per-row columns of
    :class:`~remem.stores.sqlite.episode_index.EpisodeIndex`, all in seq order."""

    terms: TermIndex
    seqs: NDArray[np.int64]
    created_us: NDArray[np.int64]
    sessions: NDArray[np.int32]
    session_names: list[str]  # code i is session_names[i]
    scopes: NDArray[np.int32]
    scope_names: list[str]

    @property
    def last_seq(self) -> int:
        return int(self.seqs[-1]) if len(self.seqs) else 0


def snapshot_path(database: Path) -> Path:
    return database.with_name(f"{database.name}.index.npz")


def save_episodes(conn: sqlite3.Connection, database: Path, saved: SavedEpisodes) -> bool:
    """Write ``saved`` atomically beside ``database`` (temp file, fsync, replace); False when
    there is nothing worth saving (fewer than :data:`MIN_ROWS` rows, a NUL in a name)."""
    n = len(saved.seqs)
    if n < MIN_ROWS:
        return False
    samples = saved.seqs[np.unique(np.linspace(0, n - 1, SAMPLES).astype(np.int64))]
    digests = _digests(conn, samples)
    arrays = index_arrays(saved.terms)
    sessions = join_strings(saved.session_names)
    scopes = join_strings(saved.scope_names)
    identity = join_strings([stored_identity(conn) or ""])
    if arrays is None or sessions is None or scopes is None or identity is None:
        return False
    path = snapshot_path(database)
    # Ends in ``.tmp``: a directory snapshot (remem.recovery.participants) skips it.
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        arrays.update(
            header=np.array([_FORMAT, saved.last_seq, n], dtype=np.int64),
            names=np.array([len(saved.session_names), len(saved.scope_names)], np.int64),
            identity=identity,
            sample_seqs=samples,
            sample_digests=digests,
            seqs=saved.seqs,
            created_us=saved.created_us,
            sessions=saved.sessions,
            session_names=sessions,
            scopes=saved.scopes,
            scope_names=scopes,
        )
        with tmp.open("wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def load_episodes(conn: sqlite3.Connection, database: Path) -> SavedEpisodes | None:
    """The saved index if it is a consistent prefix of ``conn``'s rows (see the module
    docstring), else None."""
    path = snapshot_path(database)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays: Arrays = {name: data[name] for name in data.files}
        return _checked(conn, arrays)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, SavedIndexError) as exc:
        log.warning("ignored the unusable episodic index snapshot %s (%s); rebuilding", path, exc)
        return None


def _checked(conn: sqlite3.Connection, arrays: Arrays) -> SavedEpisodes | None:
    header = arrays["header"].tolist()
    if len(header) != 3 or header[0] != _FORMAT:
        return None  # another format: not an error, just not ours to read
    _, last_seq, n = header
    (identity,) = split_strings(arrays["identity"], 1)
    samples, digests = arrays["sample_seqs"], arrays["sample_digests"]
    if samples.dtype != np.int64 or samples.ndim != 1 or not samples.size:
        raise SavedIndexError("the sampled rows are missing")
    if int(samples[-1]) != last_seq or not np.array_equal(_digests(conn, samples), digests):
        return None  # the rows it indexed are not this file's
    if (stored_identity(conn) or "") != identity:
        return None  # re-indexed since: every search_text may have changed
    names = arrays["names"].tolist()
    saved = SavedEpisodes(
        terms=index_from_arrays(arrays),
        seqs=arrays["seqs"],
        created_us=arrays["created_us"],
        sessions=arrays["sessions"],
        session_names=split_strings(arrays["session_names"], names[0]),
        scopes=arrays["scopes"],
        scope_names=split_strings(arrays["scope_names"], names[1]),
    )
    _check_columns(saved, n, last_seq)
    if not np.isin(samples, saved.seqs).all():
        raise SavedIndexError("a sampled row is not in the seq column")
    return saved


def _digests(conn: sqlite3.Connection, seqs: NDArray[np.int64]) -> NDArray[np.int64]:
    """Per seq, a 63-bit digest of the row's id, time and search text (-1: no such row)."""
    wanted = seqs.tolist()
    marks = ", ".join("?" * len(wanted))
    rows = conn.execute(
        f"SELECT seq, id, created_at_us, search_text FROM episodic_items WHERE seq IN ({marks})",
        wanted,
    ).fetchall()
    found = {}
    for seq, row_id, created, text in rows:
        raw = f"{row_id}\x00{created}\x00{text}".encode("utf-8", "surrogatepass")
        found[seq] = int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "big") >> 1
    return np.array([found.get(seq, -1) for seq in wanted], dtype=np.int64)


def _check_columns(saved: SavedEpisodes, n: int, last_seq: int) -> None:
    columns = (
        (saved.seqs, np.int64),
        (saved.created_us, np.int64),
        (saved.sessions, np.int32),
        (saved.scopes, np.int32),
    )
    for column, dtype in columns:
        if column.dtype != dtype or column.shape != (n,):
            raise SavedIndexError(f"a column has dtype {column.dtype} and shape {column.shape}")
    if len(saved.terms) != n or saved.last_seq != last_seq:
        raise SavedIndexError(f"the index holds {len(saved.terms)} rows, the columns {n}")
    if np.any(np.diff(saved.seqs) <= 0):
        raise SavedIndexError("the seq column is not increasing or disagrees with the header")
    for codes, names in ((saved.sessions, saved.session_names), (saved.scopes, saved.scope_names)):
        if int(codes.min()) < -1 or int(codes.max()) >= len(names):
            raise SavedIndexError("a session or scope code names nothing")


def discard_temp_snapshots(database: Path) -> None:
    """Remove temp files a crashed writer left behind."""
    for path in database.parent.glob(f"{database.name}.index.npz.*.tmp"):
        with contextlib.suppress(OSError):
            path.unlink()
