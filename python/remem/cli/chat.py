"""``remem chat``: talk to the companion in a terminal and look inside its memory.

The memory is the embedded default in ``--dir`` (default ``./memory``) or PostgreSQL
(``--backend postgres --dsn …``). The model is ``--brain PROVIDER:MODEL``, else the ``[brain]``
table of the config file (``--config FILE``, default ``remem.toml`` in the memory directory when
it exists), else the offline companion. Slash commands: :mod:`remem.cli.chat_commands`; the
terminal loop: :mod:`remem.cli.chat_terminal`. This module only parses options, so ``remem
--help`` stays cheap.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path
from typing import Any

HELP = "talk to the companion, see what it remembers"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "chat",
        help=HELP,
        description="An interactive companion with long-term memory. Type /help inside.",
    )
    p.add_argument("--dir", type=Path, help="the memory directory (default ./memory)")
    p.add_argument("--config", type=Path, help="a remem.toml (default: DIR/remem.toml if any)")
    p.add_argument("--brain", help="PROVIDER:MODEL, e.g. gemini:gemini-2.0-flash (default offline)")
    p.add_argument("--brain-url", help="another base URL for the brain's provider")
    p.add_argument("--session", help="continue this session id (default: a new session)")
    p.add_argument("--backend", choices=("embedded", "postgres"), help="where memory is stored")
    p.add_argument("--dsn", help="postgresql://… for --backend postgres")
    p.set_defaults(run=run)
    return p


def load_config(args: argparse.Namespace) -> Any:
    """The RuntimeConfig the options and the config file give (options win)."""
    from remem.runtime_config import RuntimeConfig

    overrides: dict[str, Any] = {}
    if args.dir is not None:
        overrides["path"] = args.dir
    if args.backend is not None:
        overrides["backend"] = args.backend
    if args.dsn is not None:
        overrides["dsn"] = args.dsn
    if args.brain is not None:
        overrides["brain"] = args.brain
        overrides["brain_url"] = args.brain_url  # the file's URL belongs to the file's brain
    elif args.brain_url is not None:
        overrides["brain_url"] = args.brain_url
    file = args.config
    if file is None:
        default = (args.dir if args.dir is not None else RuntimeConfig.path) / "remem.toml"
        file = default if default.is_file() else None
    if file is None:
        return RuntimeConfig(**overrides)
    return RuntimeConfig.from_toml(file, **overrides)


def memory_dir(args: argparse.Namespace) -> Path:
    """Where the memory (and the chat history) lives, read without loading remem's config
    machinery: ``--dir``, else the config file's ``path``, else ``./memory``. A config file
    that does not parse is reported when the memory opens (:func:`load_config`)."""
    if args.dir is not None:
        return Path(args.dir)
    file = args.config
    if file is None:
        file = Path("memory") / "remem.toml"
    try:
        path = tomllib.loads(Path(file).read_text(encoding="utf-8")).get("path")
    except (OSError, tomllib.TOMLDecodeError):
        path = None
    return Path(path) if isinstance(path, str) else Path("memory")


def run(args: argparse.Namespace) -> int:
    from remem.cli.chat_terminal import Terminal

    return Terminal(lambda: load_config(args), memory_dir(args), session_id=args.session).run()
