"""``remem reset [--yes]``: start over with an empty memory (asks first)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from remem.cli.memory_options import add_command, load_config, run_guarded

EXAMPLES = """\
examples:
  remem reset --dir ./memory         # asks; the old directory is kept as ./memory.reset-<time>
  remem reset --dir ./memory --yes   # no question (scripts)
  remem reset --backend postgres --dsn postgresql://localhost/remem --yes   # drops the tables

Not a fix for missing recall: it forgets everything, transcripts included.
"""


def add_parser(sub: Any) -> None:
    parser = add_command(
        sub,
        "reset",
        help="start over with an empty memory (asks, or --yes)",
        description="Move the embedded memory directory aside (kept), or drop every remem "
        "table of the PostgreSQL database. The memory must be closed.",
        epilog=EXAMPLES,
    )
    parser.add_argument("--yes", action="store_true", help="do not ask")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.maintenance import describe_reset, reset_memory

    async def body() -> int:
        config = load_config(args)
        if not args.yes and not _confirmed(describe_reset(config)):
            return 1
        print(reset_memory(config))
        return 0

    return run_guarded("reset", body)


def _confirmed(question: str) -> bool:
    if not sys.stdin.isatty():
        print(f"remem reset: error: {question} Not a terminal: pass --yes", file=sys.stderr)
        return False
    if input(f"{question} [y/N] ").strip().lower() in ("y", "yes"):
        return True
    print("not reset")
    return False
