"""The options ``remem mcp`` and ``remem serve`` share, and the settings they build."""

from __future__ import annotations

import argparse
from pathlib import Path

from remem.service.event_loop import LOOPS, LoopName
from remem.service.settings import ServerSettings

__all__ = ["add_server_options", "settings_from"]


def add_server_options(
    parser: argparse.ArgumentParser, *, port: int, loop: LoopName = "auto"
) -> None:
    """The shared options; ``loop`` is the default of ``--loop`` (remem.service.event_loop)."""
    parser.add_argument(
        "--dir", type=Path, default=None, help="the memory directory (default ./memory)"
    )
    parser.add_argument(
        "--config", type=Path, default=None, help="a remem TOML file (with a [server] section)"
    )
    parser.add_argument(
        "--embeddings",
        choices=("auto", "hashing", "minilm"),
        default=None,
        help="the embedding provider for a new directory (default: auto)",
    )
    parser.add_argument(
        "--namespace", default=None, help="the namespace of a request that names none"
    )
    parser.add_argument(
        "--namespaces",
        default=None,
        help="comma-separated namespaces to serve; any other is refused (default: any)",
    )
    parser.add_argument("--host", default=None, help="the address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help=f"the port (default {port})")
    parser.add_argument(
        "--loop",
        choices=LOOPS,
        default=loop,
        help=f"the event loop: auto (uvloop when installed), asyncio or uvloop (default {loop})",
    )


def settings_from(args: argparse.Namespace, *, default_port: int) -> ServerSettings:
    """ConfigError for a bad value (a non-loopback host without a token among them)."""
    served = None
    if args.namespaces is not None:
        served = tuple(n.strip() for n in args.namespaces.split(",") if n.strip())
    return ServerSettings.load(
        path=args.dir if args.dir is not None else (None if args.config else Path("./memory")),
        config_file=args.config,
        host=args.host,
        port=args.port,
        namespace=args.namespace,
        namespaces=served,
        embeddings=args.embeddings,
        default_port=default_port,
    )
