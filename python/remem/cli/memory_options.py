"""The options every maintenance subcommand shares: which memory, and how to open it.

``--dir`` (default ``./memory``), ``--config FILE`` (default ``DIR/remem.toml`` when it exists),
``--backend embedded|postgres`` and ``--dsn``; options win over the file. Parsers are built with
``allow_abbrev=False`` so a mutation needs its option spelled exactly (``--exec`` is refused).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def add_command(sub: Any, name: str, *, help: str, description: str, epilog: str) -> Any:
    parser = sub.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument("--dir", type=Path, help="the memory directory (default ./memory)")
    parser.add_argument("--config", type=Path, help="a remem.toml (default: DIR/remem.toml if any)")
    parser.add_argument(
        "--backend", choices=("embedded", "postgres"), help="where memory is stored"
    )
    parser.add_argument("--dsn", help="postgresql://… for --backend postgres")
    parser.add_argument(
        "--embedding-provider",
        choices=("auto", "hashing", "minilm"),
        help="the embedder the memory was built with (default: the config's, else auto)",
    )
    return parser


def load_config(args: argparse.Namespace) -> Any:
    """The RuntimeConfig the options and the config file give (options win)."""
    from remem.runtime_config import RuntimeConfig

    overrides: dict[str, Any] = {}
    for option, field in (
        ("dir", "path"),
        ("backend", "backend"),
        ("dsn", "dsn"),
        ("embedding_provider", "embedding_provider"),
    ):
        value = getattr(args, option, None)
        if value is not None:
            overrides[field] = value
    file = args.config
    if file is None:
        default = (args.dir if args.dir is not None else RuntimeConfig.path) / "remem.toml"
        file = default if default.is_file() else None
    if file is None:
        return RuntimeConfig(**overrides)
    return RuntimeConfig.from_toml(file, **overrides)


def run_guarded(command: str, body: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run ``body``; a RememError becomes one ``remem COMMAND: error: …`` line and exit 1."""
    from remem.errors import RememError

    try:
        return asyncio.run(body())
    except RememError as exc:
        print(f"remem {command}: error: {exc}", file=sys.stderr)
        return 1


async def with_runtime(args: argparse.Namespace, fn: Callable[[Any], Awaitable[T]]) -> T:
    """Open the memory ``args`` name, call ``fn(runtime)``, close it (drained)."""
    from remem.runtime import Runtime

    async with Runtime(load_config(args)) as rt:
        return await fn(rt)
