"""``remem migrate [--execute]``: schema versions of every component; apply pending steps."""

from __future__ import annotations

import argparse
from typing import Any

from remem.cli.memory_options import add_command, load_config, run_guarded

EXAMPLES = """\
examples:
  remem migrate --dir ./memory                       # list each component's version and steps
  remem migrate --dir ./memory --execute             # apply the pending steps
  remem migrate --backend postgres --dsn postgresql://localhost/remem

The preview opens nothing read-write. Take a snapshot first (`remem snapshot`): a migrated memory
cannot be opened by an older remem.
"""


def add_parser(sub: Any) -> None:
    parser = add_command(
        sub,
        "migrate",
        help="preview (or --execute) schema migrations",
        description="Show the stored schema version of every component (SQLite, DuckDB, "
        "vectors, or the PostgreSQL tables) and the steps that would bring it to this "
        "remem's; --execute applies them.",
        epilog=EXAMPLES,
    )
    parser.add_argument("--execute", action="store_true", help="apply the pending steps")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from remem.maintenance import apply_migrations, schema_plan

    async def body() -> int:
        config = load_config(args)
        plan = schema_plan(config)
        print(plan.describe())
        if args.execute and plan.steps:
            await apply_migrations(config)
            print(f"applied {plan.steps} step(s); every component is current")
        return 0

    return run_guarded("migrate", body)
