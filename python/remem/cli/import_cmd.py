"""``remem import PATH --dir DIR [--force]``: load a portable export into a memory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from remem.errors import RememError

EXAMPLES = """\
examples:
  remem import ./memory.export --dir ./memory-copy
  remem import ./memory.export --dir postgresql://me@db.example/remem
  remem import ./memory.export --dir ./memory --force        # replaces ./memory

The manifest and every sha256 are verified before --dir is touched; a non-empty --dir is
refused without --force. An export without vectors is re-embedded with --embedding-provider,
which must produce the model the manifest names.
"""


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "import",
        help="load a `remem export` into a memory",
        description="Verify the export PATH and import it into --dir (a directory or a "
        "postgresql:// DSN).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("export", type=Path, metavar="PATH", help="a `remem export` directory")
    parser.add_argument(
        "--dir",
        default="./memory",
        metavar="DIR",
        help="the memory directory or postgresql:// DSN (./memory)",
    )
    parser.add_argument("--force", action="store_true", help="replace what a non-empty --dir holds")
    parser.add_argument(
        "--embedding-provider",
        choices=("hashing", "minilm"),
        default="hashing",
        help="the embedder that re-embeds an export without vectors (hashing)",
    )
    parser.add_argument(
        "--embedding-dimension", type=int, default=384, help="the hashing dimension (384)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.recovery import import_memory, read_export
    from remem.runtime import provider_embedder

    try:
        embedder = None
        if not read_export(args.export).vectors:
            embedder = provider_embedder(args.embedding_provider, args.embedding_dimension)
        manifest = import_memory(args.export, args.dir, force=args.force, embedder=embedder)
    except RememError as exc:
        print(f"remem import: error: {exc}", file=sys.stderr)
        return 1
    total = sum(f.rows for f in manifest.files)
    how = "with its vectors" if manifest.vectors else f"re-embedded ({args.embedding_provider})"
    print(
        f"imported {args.export} ({manifest.source}, {manifest.created_at}, remem "
        f"{manifest.remem_version}) into {args.dir}: {total:,} rows, {how}"
    )
    return 0
