"""``remem snapshot --dir D OUT``: a verified, consistent copy of a closed memory directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from remem.errors import RememError

EXAMPLES = """\
examples:
  remem snapshot --dir ./memory ./backups/memory-2026-12-02
  remem restore ./backups/memory-2026-12-02 --dir ./memory-copy
  remem snapshot --dsn postgresql://me@db.example/remem ./backups/pg-2026-12-02

The memory must be closed (no Runtime open on it): a live one is refused with "writers active"
(from the process that runs it, remem.maintenance.snapshot_live quiesces it and copies it live).
OUT must not exist; it appears only once every copy and checksum is verified (manifest.json).
"""


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "snapshot",
        help="a verified snapshot of a closed memory directory",
        description="Copy the embedded memory in --dir to OUT consistently (SQLite backup API, "
        "DuckDB checkpoint + copy), with a manifest of row counts and sha256 checksums.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("out", type=Path, metavar="OUT", help="the snapshot directory to create")
    parser.add_argument(
        "--dir", type=Path, default=Path("./memory"), help="the memory directory (./memory)"
    )
    parser.add_argument(
        "--dsn",
        help="snapshot the PostgreSQL memory at this postgresql:// DSN instead of --dir "
        "(one repeatable-read transaction)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.recovery import snapshot, snapshot_postgres

    try:
        if args.dsn:
            pg = snapshot_postgres(args.dsn, args.out)
            rows = sum(f.rows for f in pg.files)
            print(
                f"snapshot {args.out}: PostgreSQL, {len(pg.files)} files, {rows:,} rows, verified"
            )
            return 0
        manifest = snapshot(args.dir, args.out)
    except RememError as exc:
        print(f"remem snapshot: error: {exc}", file=sys.stderr)
        return 1
    total = sum(p.bytes for p in manifest.participants)
    print(f"snapshot {args.out}: {len(manifest.participants)} files, {total:,} bytes, verified")
    for part in manifest.participants:
        rows = sum(part.rows.values())
        print(f"  {part.path:<24} {part.name:<26} {part.bytes:>12,} B  {rows:>9,} rows")
    return 0
