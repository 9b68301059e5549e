"""One hnswlib index per collection, saved atomically beside the DuckDB file.

Files for collection ``cid``: ``c<cid>.hnsw`` (the hnswlib index) and ``c<cid>.hnsw.json`` (its
sidecar: the DuckDB *generation* the index reflects, the item count and a blake2b checksum of the
index file). Both are written to a temporary file, fsynced, then ``os.replace``-d; the sidecar
last, so a crash between the two leaves a checksum that no longer matches → rebuilt.

:func:`load_index` returns the index together with why it could not be used (``"missing"``,
``"stale"`` — generation or count disagree with DuckDB —, ``"corrupt"`` — checksum mismatch or
hnswlib refuses it); the store then rebuilds from the vectors kept in DuckDB.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import hnswlib
import numpy as np
from numpy.typing import NDArray

from remem.errors import ConfigError

if TYPE_CHECKING:
    from remem.stores.hnsw.tables import CollectionRow

LoadProblem = Literal["missing", "stale", "corrupt"]
_FORMAT = 1
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IndexParams:
    """hnswlib build parameters (``m``, ``ef_construction``) and the minimum query ``ef``.

    hnswlib does not save ``ef`` with the index (it is 10 after ``load_index``), so the store sets
    ``max(ef_search, k * overfetch)`` before every query. ``ef_search`` is the recall/latency
    dial: measured recall@10 (with the store's 2x over-fetch and exact rescoring), random
    unit vectors, M=16, ef_construction=200 — 5k x 64: ef 64 → 0.90, ef 128 → >= 0.95;
    100k x 384 (isotropic noise, the worst case for any graph index): ef 64 → 0.09, 256 → 0.27,
    1024 → 0.64, 2048 → 0.83 at ~10x the latency of ef 256 — there an exact scan is the better
    tool. ``m``/``ef_construction`` apply to indexes built from now on (a rebuild re-reads them).
    """

    m: int = 16
    ef_construction: int = 200
    ef_search: int = 128

    def __post_init__(self) -> None:
        if self.m < 2 or self.ef_construction < self.m or self.ef_search < 1:
            raise ConfigError("IndexParams needs m >= 2, ef_construction >= m and ef_search >= 1")


def paths(directory: Path, cid: int) -> tuple[Path, Path]:
    return directory / f"c{cid}.hnsw", directory / f"c{cid}.hnsw.json"


def new_index(dimension: int, capacity: int, params: IndexParams) -> Any:
    index = hnswlib.Index(space="ip", dim=dimension)
    index.init_index(
        max_elements=max(capacity, 16),
        M=params.m,
        ef_construction=params.ef_construction,
        random_seed=100,
        allow_replace_deleted=True,
    )
    index.set_ef(params.ef_search)
    index.set_num_threads(1)
    return index


def add_to_index(index: Any, vectors: NDArray[np.float32], labels: NDArray[np.int64]) -> None:
    """Add rows, growing the index geometrically when it is full (deleted slots are reused)."""
    if len(labels) == 0:
        return
    needed = index.element_count + len(labels)
    if needed > index.max_elements:
        index.resize_index(max(needed, 2 * index.max_elements))
    threads = -1 if len(labels) >= 256 else 1  # thread start-up costs more than small batches
    index.add_items(vectors, labels, num_threads=threads, replace_deleted=True)


def build_index(
    dimension: int, vectors: NDArray[np.float32], labels: NDArray[np.int64], params: IndexParams
) -> Any:
    index = new_index(dimension, max(len(labels) * 5 // 4, 16), params)
    if len(labels):
        index.add_items(vectors, labels, num_threads=-1)
    return index


def _checksum(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _replace(tmp: Path, final: Path) -> None:
    with tmp.open("rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, final)


def save_index(directory: Path, cid: int, index: Any, generation: int, count: int) -> None:
    """Write the index and its sidecar atomically (temp file, fsync, os.replace)."""
    index_path, meta_path = paths(directory, cid)
    tmp = index_path.with_name(f"{index_path.name}.tmp-{os.getpid()}")
    try:
        index.save_index(str(tmp))
        _replace(tmp, index_path)
    finally:
        tmp.unlink(missing_ok=True)
    meta = {
        "format": _FORMAT,
        "generation": generation,
        "count": count,
        "checksum": _checksum(index_path),
    }
    meta_tmp = meta_path.with_name(f"{meta_path.name}.tmp-{os.getpid()}")
    try:
        meta_tmp.write_text(json.dumps(meta))
        _replace(meta_tmp, meta_path)
    finally:
        meta_tmp.unlink(missing_ok=True)
    _fsync_dir(directory)


def remove_index(directory: Path, cid: int) -> None:
    for path in paths(directory, cid):
        path.unlink(missing_ok=True)


def load_index(
    directory: Path, cid: int, dimension: int, generation: int, count: int, params: IndexParams
) -> tuple[Any | None, LoadProblem | None]:
    """The saved index if it matches DuckDB's ``generation`` and ``count``, else why not."""
    index_path, meta_path = paths(directory, cid)
    if not index_path.exists() or not meta_path.exists():
        return None, "missing"
    try:
        meta = json.loads(meta_path.read_text())
        saved_generation, saved_count = int(meta["generation"]), int(meta["count"])
        checksum = str(meta["checksum"])
    except (ValueError, KeyError, TypeError, OSError):
        return None, "corrupt"
    if saved_generation != generation or saved_count != count:
        return None, "stale"
    if _checksum(index_path) != checksum:
        return None, "corrupt"
    index = hnswlib.Index(space="ip", dim=dimension)
    try:
        index.load_index(str(index_path), allow_replace_deleted=True)
    except (RuntimeError, ValueError, MemoryError):
        return None, "corrupt"
    if index.dim != dimension:
        return None, "corrupt"
    index.set_ef(params.ef_search)
    index.set_num_threads(1)
    return index, None


def load_or_build(
    directory: Path,
    row: CollectionRow,
    count: int,
    params: IndexParams,
    read: Callable[[], tuple[NDArray[np.float32], NDArray[np.int64]]],
    *,
    expected: bool,
) -> tuple[Any, str]:
    """The collection's saved index, or one built from ``read()`` (its metric-prepared vectors
    and labels), with its status: ``"loaded"``, ``"new"`` (no file, none ``expected``) or
    ``"rebuilt:<problem>"`` (logged as a warning)."""
    dim = row.info.dimension
    index, problem = load_index(directory, row.cid, dim, row.generation, count, params)
    if index is not None:
        return index, "loaded"
    vectors, labels = read()
    index = build_index(dim, vectors, labels, params)
    if problem == "missing" and not expected:
        return index, "new"
    log.warning("rebuilt the %s hnswlib index of %r", problem, row.info.name)
    return index, f"rebuilt:{problem}"


def discard_temp_files(directory: Path) -> None:
    """Remove temp files a crashed writer left behind."""
    for path in directory.glob("c*.hnsw*.tmp-*"):
        with contextlib.suppress(OSError):
            path.unlink()
