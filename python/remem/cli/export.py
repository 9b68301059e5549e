"""``remem export DIR --out PATH [--vectors]``: a portable JSON Lines copy of a memory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from remem.errors import RememError

EXAMPLES = """\
examples:
  remem export ./memory --out ./memory.export --vectors
  remem export postgresql://me@db.example/remem --out ./memory.export --vectors
  remem import ./memory.export --dir postgresql://me@db.example/other

DIR is a memory directory (closed: a live Runtime is refused with "writers active") or a
postgresql:// DSN (read in one repeatable-read transaction). PATH must not exist; it appears
only once every file and its sha256 is written (manifest.json). Without --vectors the import
re-embeds the memories with the model the manifest names.
"""


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "export",
        help="a portable JSON Lines export of a memory",
        description="Export the memory at DIR (a directory or a postgresql:// DSN) as JSON Lines "
        "with a manifest: memories with lifecycle and provenance, supersession chains, turns, "
        "entities and relationships, blocks with history, day summaries, and optionally vectors.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", metavar="DIR", help="a memory directory or a postgresql:// DSN")
    parser.add_argument(
        "--out", type=Path, required=True, metavar="PATH", help="the export directory to create"
    )
    parser.add_argument(
        "--vectors", action="store_true", help="include the embeddings (else import re-embeds)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.recovery import export_memory

    try:
        manifest = export_memory(args.source, args.out, vectors=args.vectors)
    except RememError as exc:
        print(f"remem export: error: {exc}", file=sys.stderr)
        return 1
    total = sum(f.rows for f in manifest.files)
    print(
        f"exported {manifest.source} memory to {args.out}: {len(manifest.files)} files, "
        f"{total:,} rows{' (with vectors)' if manifest.vectors else ''}, verified"
    )
    for entry in manifest.files:
        print(f"  {entry.path:<36} {entry.rows:>9,} rows  {entry.bytes:>12,} B")
    print(f"  namespaces: {', '.join(manifest.scopes.namespaces) or '-'}")
    return 0
