"""``remem lifecycle [--execute]``: preview the lifecycle moves; apply them with --execute."""

from __future__ import annotations

import argparse
from typing import Any

from remem.cli.memory_options import add_command, run_guarded, with_runtime

EXAMPLES = """\
examples:
  remem lifecycle --dir ./memory             # which memories would be promoted, decayed, deleted
  remem lifecycle --dir ./memory --execute   # apply that plan (only the exact option --execute)

Not a fix for missing recall: it moves memories between stages by the decay and promotion rules.
"""


def add_parser(sub: Any) -> None:
    parser = add_command(
        sub,
        "lifecycle",
        help="preview (or --execute) lifecycle moves",
        description="Preview the lifecycle plan for now (every record scored; nothing "
        "changes); --execute applies exactly that plan, crash-safely.",
        epilog=EXAMPLES,
    )
    parser.add_argument("--execute", action="store_true", help="apply the plan")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.maintenance import run_lifecycle

    async def body(rt: Any) -> int:
        print(await run_lifecycle(rt, execute=args.execute))
        return 0

    return run_guarded("lifecycle", lambda: with_runtime(args, body))
