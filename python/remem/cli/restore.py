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
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.recovery import restore

    try:
        manifest = restore(args.snapshot, args.dir, force=args.force)
    except RememError as exc:
        print(f"remem restore: error: {exc}", file=sys.stderr)
        return 1
    print(
        f"restored {args.snapshot} ({manifest.created_at}, remem {manifest.remem_version}) "
        f"into {args.dir}: {len(manifest.participants)} files verified"
    )
    return 0
