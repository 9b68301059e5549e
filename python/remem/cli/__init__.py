"""The ``remem`` command line. Subcommands live one per module and use only the public API."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from remem.cli.bench import add_parser as add_bench_parser
from remem.cli.demo import add_parser as add_demo_parser
from remem.cli.eval import add_parser as add_eval_parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="remem", description="Long-term memory for LLM agents and companions."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command")
    add_demo_parser(sub)
    add_eval_parser(sub)
    add_bench_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from remem import __version__

        print(__version__)
        return 0
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    code: int = args.run(args)
    return code
