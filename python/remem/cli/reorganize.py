"""``remem reorganize [--execute]``: a coordinated consolidation + lifecycle pass."""

from __future__ import annotations

import argparse
from typing import Any

from remem.cli.memory_options import add_command, run_guarded, with_runtime

EXAMPLES = """\
examples:
  remem reorganize --dir ./memory             # preview: checks, merges, supersessions, moves
  remem reorganize --dir ./memory --execute   # apply it (only the exact option --execute)

Preflight checks (each can refuse --execute, which then changes nothing):
  extraction-drained, no-background-failures, embedding-model, no-reembed-in-progress, timezone.
Not a fix for missing recall: it rewrites derived memory (never transcripts).
"""


def add_parser(sub: Any) -> None:
    parser = add_command(
        sub,
        "reorganize",
        help="preview (or --execute) consolidation + lifecycle",
        description="Quiesce the memory, run the preflight checks, and preview the entity "
        "merges, fact and relationship supersessions, day summaries and lifecycle moves a "
        "reorganisation would make; --execute applies them.",
        epilog=EXAMPLES,
    )
    parser.add_argument("--execute", action="store_true", help="apply the reorganisation")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.maintenance import execute_reorganize, preview_reorganize

    async def body(rt: Any) -> int:
        plan = await preview_reorganize(rt)
        print(plan.describe())
        if args.execute:
            print((await execute_reorganize(rt, plan)).describe())
        return 0

    return run_guarded("reorganize", lambda: with_runtime(args, body))
