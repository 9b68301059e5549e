"""The scan tier's snapshot: a collection's :class:`~remem.stores.hnsw.scan.ScanCache` saved
beside the DuckDB file, so opening a store does not rebuild it.

Why: a collection below ``scan_threshold`` is answered from memory, and that memory was rebuilt
on the first query after every open — one columnar read of every vector from DuckDB, the metric
preparation and the int8 quantization (the first recall after opening a 100k store paid it in
full). The snapshot holds the arrays the cache searches (metric-prepared float32 rows, their
labels, int8 codes, scales and norms), so loading it gives a cache bit-identical to the rebuilt
one: the same rows, codes and scores.

File for collection ``cid``: ``c<cid>.scan`` (format 2), memory-mapped rather than read:

* bytes 0-7 the magic ``REMSCAN2``, 8-11 the header's length, 12-15 the header's CRC32, then
  the header (JSON: format, DuckDB *generation*, item count, dimension, the file's size, each
  array's name/dtype/shape/offset, and the CRC32 of sampled blocks), then the raw arrays, each
  at a 64-byte aligned offset. :func:`load_scan` maps them read-only (``np.memmap``), so opening
  costs the header plus the samples, and the pages of the float32 matrix (4/5 of the file) are
  read only when a query rescores their rows.
* Integrity at open: the header's CRC, the format, generation and count against DuckDB's, the
  exact file size (a truncated file fails it), and the CRC32 of :data:`SAMPLES` blocks of
  :data:`BLOCK` bytes spread evenly over the data, first and last included; a data region of at
  most :data:`FULL_CHECK_BYTES` is checked in full. The header also holds the CRC32 of the whole
  data region, which :func:`verify_scan` checks (never done at open).
  Why sampling is safe: the writer writes a temp name, fsyncs it, ``os.replace``-s it and fsyncs
  the directory, and nothing ever writes the final name in place — so a torn or half-written
  file never carries the name, and what the checks guard against is a file damaged afterwards
  (truncation, a foreign file, a zeroed region), which size and samples catch. A bit flip
  outside the samples of a large file goes unnoticed at open (the score of one row is off);
  :func:`verify_scan` finds it.

:func:`load_scan` gives None — and the store rebuilds from DuckDB, logging why — when the file
is missing, fails a check, or its generation or count disagree with DuckDB's (a write since
the snapshot, e.g. by a session that never queried the collection). A format-1 ``.scan.npz``
left by an older remem is never read: it is removed at open (:func:`discard_temp_scans`) and
rebuilt. Collections under :data:`MIN_ROWS` are not snapshotted.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from remem.stores.hnsw.scan import ScanCache

_FORMAT = 2
_MAGIC = b"REMSCAN2"
_PREFIX = struct.Struct("<8sII")  # magic, header length, header CRC32
_ALIGN = 64
_NAMES = ("matrix", "labels", "codes", "scales", "norms")
BLOCK = 64 * 1024
SAMPLES = 32
FULL_CHECK_BYTES = 4 * 1024 * 1024
"""Data regions up to this size are CRC-checked in full at open (a few milliseconds)."""
MIN_ROWS = 4096
"""Smaller caches are not saved: rebuilding one from DuckDB takes milliseconds, less than the
fsyncs of writing it."""
log = logging.getLogger(__name__)


class _DamagedError(ValueError):
    """The snapshot fails a check (the message says which)."""


def scan_path(directory: Path, cid: int) -> Path:
    return directory / f"c{cid}.scan"


def _legacy_path(directory: Path, cid: int) -> Path:
    return directory / f"c{cid}.scan.npz"


def _aligned(offset: int) -> int:
    return -(-offset // _ALIGN) * _ALIGN


def _blocks(start: int, end: int) -> list[tuple[int, int]]:
    """(offset, length) of the sampled blocks of the data region [start, end)."""
    size = end - start
    if size <= FULL_CHECK_BYTES:
        return [(start, size)]
    last = end - BLOCK
    step = (last - start) / (SAMPLES - 1)
    return [(start + round(i * step), BLOCK) for i in range(SAMPLES)]


def _crc_of(fd: int, offset: int, length: int) -> int:
    crc, done = 0, 0
    while done < length:
        chunk = os.pread(fd, min(length - done, 1 << 22), offset + done)
        if not chunk:
            raise _DamagedError(f"the file ends before byte {offset + done}")
        crc = zlib.crc32(chunk, crc)
        done += len(chunk)
    return crc


def save_scan(directory: Path, cid: int, scan: ScanCache, generation: int) -> None:
    """Write ``scan`` (reflecting DuckDB ``generation``) atomically: temp file, fsync, replace."""
    path = scan_path(directory, cid)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    arrays = [np.ascontiguousarray(a) for a in scan.live_arrays()]
    matrix = arrays[0]
    layout: list[dict[str, Any]] = []
    # The header's length depends on the offsets, which depend on its length: reserve a bound.
    offset = _aligned(_PREFIX.size + 4096 + 96 * SAMPLES)
    data_start = offset
    for name, array in zip(_NAMES, arrays, strict=True):
        layout.append(
            {"name": name, "dtype": array.dtype.str, "shape": list(array.shape), "offset": offset}
        )
        offset = _aligned(offset + array.nbytes)
    size = offset
    try:
        with tmp.open("w+b") as fh:
            fh.truncate(size)
            full = 0
            position = data_start
            for entry, array in zip(layout, arrays, strict=True):
                if entry["offset"] > position:  # alignment padding is zeros, in the CRC too
                    full = zlib.crc32(bytes(entry["offset"] - position), full)
                fh.seek(entry["offset"])
                raw = array.data.cast("B")
                fh.write(raw)
                full = zlib.crc32(raw, full)
                position = entry["offset"] + array.nbytes
            full = zlib.crc32(bytes(size - position), full)
            fh.flush()
            fd = fh.fileno()
            header = {
                "format": _FORMAT,
                "generation": generation,
                "count": len(arrays[1]),
                "dimension": int(matrix.shape[1]) if matrix.ndim == 2 else 0,
                "size": size,
                "arrays": layout,
                "data_crc": full,
                "samples": [[o, n, _crc_of(fd, o, n)] for o, n in _blocks(data_start, size)],
            }
            blob = json.dumps(header, separators=(",", ":")).encode()
            if _PREFIX.size + len(blob) > data_start:
                raise ValueError("the scan snapshot's header outgrew its reserved space")
            fh.seek(0)
            fh.write(_PREFIX.pack(_MAGIC, len(blob), zlib.crc32(blob)) + blob)
            fh.flush()
            os.fsync(fd)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _header(fd: int) -> dict[str, Any]:
    prefix = os.pread(fd, _PREFIX.size, 0)
    if len(prefix) != _PREFIX.size:
        raise _DamagedError("the file is shorter than its prefix")
    magic, length, crc = _PREFIX.unpack(prefix)
    if magic != _MAGIC:
        raise _DamagedError(f"unknown magic {magic!r} (not a format-{_FORMAT} scan snapshot)")
    blob = os.pread(fd, length, _PREFIX.size)
    if len(blob) != length or zlib.crc32(blob) != crc:
        raise _DamagedError("the header's CRC does not match")
    header: dict[str, Any] = json.loads(blob)
    if header.get("format") != _FORMAT:
        raise _DamagedError(f"format {header.get('format')!r}, this remem reads {_FORMAT}")
    return header


def load_scan(
    directory: Path, cid: int, dimension: int, generation: int, count: int
) -> ScanCache | None:
    """The saved cache, memory-mapped read-only, if the file passes the checks at open (see the
    module docstring) and reflects DuckDB's ``generation`` and ``count``; else None."""
    path = scan_path(directory, cid)
    if not path.exists():
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            header = _header(fd)
            if (header["generation"], header["count"]) != (generation, count):
                return None  # stale: a write since the snapshot; not damage
            if os.fstat(fd).st_size != header["size"]:
                raise _DamagedError(
                    f"{os.fstat(fd).st_size} bytes, the header says {header['size']}"
                )
            for offset, length, crc in header["samples"]:
                if _crc_of(fd, offset, length) != crc:
                    raise _DamagedError(f"the block at byte {offset} fails its CRC")
        finally:
            os.close(fd)
        arrays: list[NDArray[Any]] = []
        for entry, name in zip(header["arrays"], _NAMES, strict=True):
            if entry["name"] != name:
                raise _DamagedError(f"array {entry['name']!r} where {name!r} was expected")
            shape = tuple(int(s) for s in entry["shape"])
            if 0 in shape:
                arrays.append(np.empty(shape, dtype=np.dtype(entry["dtype"])))
                continue
            arrays.append(
                np.memmap(
                    path,
                    dtype=np.dtype(entry["dtype"]),
                    mode="r",
                    offset=entry["offset"],
                    shape=shape,
                )
            )
        return ScanCache.restore(*arrays, dimension=dimension)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignored the unreadable scan snapshot %s (%s); rebuilding it", path, exc)
        return None


def verify_scan(path: Path) -> None:
    """Check the whole data region's CRC (reads every byte); :class:`ValueError` if it fails."""
    fd = os.open(path, os.O_RDONLY)
    try:
        header = _header(fd)
        start = min(int(entry["offset"]) for entry in header["arrays"])
        if _crc_of(fd, start, header["size"] - start) != header["data_crc"]:
            raise _DamagedError(f"{path}: the data region fails its CRC")
    finally:
        os.close(fd)


def remove_scan(directory: Path, cid: int) -> None:
    scan_path(directory, cid).unlink(missing_ok=True)
    _legacy_path(directory, cid).unlink(missing_ok=True)


def discard_temp_scans(directory: Path) -> None:
    """Remove temp files a crashed writer left behind, and format-1 ``.scan.npz`` snapshots
    (never read since format 2: the cache is rebuilt once and saved in the new format)."""
    for pattern in ("c*.scan.tmp-*", "c*.scan.npz.tmp-*", "c*.scan.npz"):
        for path in directory.glob(pattern):
            with contextlib.suppress(OSError):
                path.unlink()
