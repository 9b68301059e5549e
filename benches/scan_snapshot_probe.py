"""Open time of the scan tier's snapshot, format 1 (``.scan.npz``, read in full with its CRCs)
against format 2 (``remem.stores.hnsw.scan_file``: memory-mapped, header and sampled blocks
checked), and the first query on each loaded cache (issue #21).

Run: ``python -m benches.scan_snapshot_probe DIR N [--dim 384] [--repeats 3]`` — a synthetic
ScanCache of N random rows, saved both ways in DIR; prints the median seconds of the load alone
and of load + one 10-nearest query (which touches every int8 code and the rescored rows). The
files were just written, so both loads read from the page cache: the figure is the read/CRC/copy
work, not the disk's.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from remem.stores.hnsw import scan_file
from remem.stores.hnsw.scan import ScanCache


def _save_v1(path: Path, scan: ScanCache) -> None:
    matrix, labels, codes, scales, norms = scan.live_arrays()
    header = np.array([1, 0, len(labels)], dtype=np.int64)
    np.savez(
        path, header=header, matrix=matrix, labels=labels, codes=codes, scales=scales, norms=norms
    )


def _load_v1(path: Path, dim: int) -> ScanCache:
    with np.load(path, allow_pickle=False) as data:
        arrays = [data[name] for name in ("matrix", "labels", "codes", "scales", "norms")]
    return ScanCache.restore(*arrays, dimension=dim)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dir", type=Path)
    parser.add_argument("n", type=int)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((args.n, args.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    scan = ScanCache(vectors, np.arange(args.n, dtype=np.int64))
    query = vectors[:1] + np.float32(0.01)
    v1 = args.dir / "c1.scan.npz"
    _save_v1(v1, scan)
    scan_file.save_scan(args.dir, 2, scan, generation=0)

    def load_v1() -> ScanCache | None:
        return _load_v1(v1, args.dim)

    def load_v2() -> ScanCache | None:
        return scan_file.load_scan(args.dir, 2, args.dim, 0, args.n)

    loaders: dict[str, Callable[[], ScanCache | None]] = {
        "format 1 (npz)": load_v1,
        "format 2 (mmap)": load_v2,
    }
    size = {"format 1 (npz)": v1, "format 2 (mmap)": scan_file.scan_path(args.dir, 2)}
    for name, load in loaders.items():
        alone, with_query = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            cache = load()
            alone.append(time.perf_counter() - start)
            assert cache is not None
            cache.search(query, 10, None, 0)  # the int8 scan + rescoring
            with_query.append(time.perf_counter() - start)
            del cache
        mb = size[name].stat().st_size / 1e6
        print(
            f"{name}: {mb:.0f} MB, load {statistics.median(alone):.4f} s, "
            f"load + first query {statistics.median(with_query):.4f} s"
        )


if __name__ == "__main__":
    main()
