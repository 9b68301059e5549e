"""The ``remem`` command line. Subcommands live one per module and use only the public API.

A subcommand's module (and so what it imports: the stores, the evaluation harness, numpy) is
loaded only when that subcommand runs, so ``remem --help`` and ``remem --version`` answer at
Python's start-up cost. :data:`COMMANDS` names each module and its one-line help; the module's
``add_parser(sub)`` adds the full parser.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("remem.cli.demo", "a short tour of the native kernels"),
    "eval": ("remem.cli.eval", "the persona time-lapse memory evaluation"),
    "bench": ("remem.cli.bench", "retrieval benchmarks on your data (LoCoMo)"),
    "chat": ("remem.cli.chat", "talk to the companion, see what it remembers"),
    "snapshot": ("remem.cli.snapshot", "a verified snapshot of a closed memory directory"),
    "restore": ("remem.cli.restore", "restore a snapshot into a memory directory"),
    "mcp": ("remem.cli.mcp", "serve memory to MCP clients (stdio or HTTP)"),
    "serve": ("remem.cli.serve", "serve memory as a REST API (FastAPI)"),
    "reorganize": ("remem.cli.reorganize", "preview (or --execute) consolidation + lifecycle"),
    "lifecycle": ("remem.cli.lifecycle", "preview (or --execute) lifecycle moves"),
    "migrate": ("remem.cli.migrate", "preview (or --execute) schema migrations"),
    "reset": ("remem.cli.reset", "start over with an empty memory (asks, or --yes)"),
    "reembed": ("remem.cli.reembed", "re-embed every memory with another model, validated"),
    "export": ("remem.cli.export", "a portable JSON Lines export of a memory"),
    "import": ("remem.cli.import_cmd", "load a `remem export` into a memory"),
}
"""Subcommand → (module with ``add_parser``, help shown by ``remem --help``)."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only ``command``'s module is imported (every subcommand is listed)."""
    parser = argparse.ArgumentParser(
        prog="remem", description="Long-term memory for LLM agents and companions."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}")
    for name, (module, help_text) in COMMANDS.items():
        if name == command:
            importlib.import_module(module).add_parser(sub)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: its first argument that is not an option."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command(args_in))
    args = parser.parse_args(args_in)
    if args.version:
        from remem import __version__

        print(__version__)
        return 0
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    code: int = args.run(args)
    return code
