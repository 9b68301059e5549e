"""The scan tier's snapshot: a collection's :class:`~remem.stores.hnsw.scan.ScanCache` saved
beside the DuckDB file, so opening a store does not rebuild it.

Why: a collection below ``scan_threshold`` is answered from memory, and that memory was rebuilt
on the first query after every open — one columnar read of every vector from DuckDB, the metric
preparation and the int8 quantization (the first recall after opening a 100k store paid it in
full). The snapshot holds the arrays the cache searches (metric-prepared float32 rows, their
labels, int8 codes, scales and norms), so loading it gives a cache bit-identical to the rebuilt
one: the same rows, codes and scores.

File for collection ``cid``: ``c<cid>.scan.npz`` (uncompressed; numpy's zip members carry a
CRC that is checked on read), with the DuckDB *generation* and item count it reflects stored
inside it. It is written to a temporary file, fsynced, then ``os.replace``-d, so a crash leaves
the old snapshot or none. :func:`load_scan` gives None — and the store rebuilds from DuckDB —
when the file is missing, unreadable, or its generation or count disagree with DuckDB's (a write
since the snapshot, e.g. by a session that never queried the collection). Collections under
:data:`MIN_ROWS` are not snapshotted.
"""

from __future__ import annotations

import contextlib
import logging
import os
import zipfile
from pathlib import Path

import numpy as np

from remem.stores.hnsw.scan import ScanCache

_FORMAT = 1
MIN_ROWS = 4096
"""Smaller caches are not saved: rebuilding one from DuckDB takes milliseconds, less than the
fsyncs of writing it."""
log = logging.getLogger(__name__)


def scan_path(directory: Path, cid: int) -> Path:
    return directory / f"c{cid}.scan.npz"


def save_scan(directory: Path, cid: int, scan: ScanCache, generation: int) -> None:
    """Write ``scan`` (reflecting DuckDB ``generation``) atomically: temp file, fsync, replace."""
    path = scan_path(directory, cid)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    matrix, labels, codes, scales, norms = scan.live_arrays()
    try:
        with tmp.open("wb") as fh:
            np.savez(
                fh,
                header=np.array([_FORMAT, generation, len(labels)], dtype=np.int64),
                matrix=matrix,
                labels=labels,
                codes=codes,
                scales=scales,
                norms=norms,
            )
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load_scan(
    directory: Path, cid: int, dimension: int, generation: int, count: int
) -> ScanCache | None:
    """The saved cache if it reflects DuckDB's ``generation`` and ``count``, else None."""
    path = scan_path(directory, cid)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            header = data["header"]
            if header.tolist() != [_FORMAT, generation, count]:
                return None
            arrays = [data[name] for name in ("matrix", "labels", "codes", "scales", "norms")]
        return ScanCache.restore(*arrays, dimension=dimension)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        log.warning("ignored the unreadable scan snapshot %s (%s); rebuilding it", path, exc)
        return None


def remove_scan(directory: Path, cid: int) -> None:
    scan_path(directory, cid).unlink(missing_ok=True)


def discard_temp_scans(directory: Path) -> None:
    """Remove temp files a crashed writer left behind."""
    for path in directory.glob("c*.scan.npz.tmp-*"):
        with contextlib.suppress(OSError):
            path.unlink()
