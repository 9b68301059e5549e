"""``remem restore SNAP --dir D [--force]``: put a verified snapshot back into a directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from remem.errors import RememError

EXAMPLES = """\
examples:
  remem restore ./backups/memory-2026-12-02 --dir ./memory-copy
  remem restore ./backups/memory-2026-12-02 --dir ./memory --force   # replaces ./memory
  remem restore ./backups/pg-2026-12-02 --dsn postgresql://me@db.example/remem --force

Every checksum is verified before --dir is touched; a non-empty --dir is refused without
--force, and with --force it is replaced only once the restored copy verifies.
"""


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "restore",
        help="restore a snapshot into a memory directory",
        description="Verify the snapshot SNAP (manifest, sha256 of every file) and restore it "
        "into --dir.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("snapshot", type=Path, metavar="SNAP", help="a `remem snapshot` directory")
    parser.add_argument(
        "--dir", type=Path, default=Path("./memory"), help="the memory directory (./memory)"
    )
    parser.add_argument("--force", action="store_true", help="replace what a non-empty --dir holds")
    parser.add_argument(
        "--dsn", help="restore a `remem snapshot --dsn` into the PostgreSQL memory at this DSN"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.recovery import restore, restore_postgres

    try:
        if args.dsn:
            pg = restore_postgres(args.snapshot, args.dsn, force=args.force)
            print(
                f"restored {args.snapshot} ({pg.created_at}, remem {pg.remem_version}) into "
                f"PostgreSQL: {sum(f.rows for f in pg.files):,} rows verified"
            )
            return 0
        manifest = restore(args.snapshot, args.dir, force=args.force)
    except RememError as exc:
        print(f"remem restore: error: {exc}", file=sys.stderr)
        return 1
    print(
        f"restored {args.snapshot} ({manifest.created_at}, remem {manifest.remem_version}) "
        f"into {args.dir}: {len(manifest.participants)} files verified"
    )
    return 0
