"""``remem reembed --model M [--confirm]``: re-embed every memory into a new generation."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from remem.cli.memory_options import add_command, load_config, run_guarded

EXAMPLES = """\
examples:
  remem reembed --dir ./memory --model minilm             # snapshot, build, validate, switch
  remem reembed --dir ./memory --model minilm --confirm   # later: drop the old generation
  remem reembed --dir ./memory --model hashing --dimension 256

Killed or interrupted? Run the same command again: it resumes (reembed.json in the directory
records where it is). Until the switch, recall reads the old generation; after it, the old
generation is kept (and the snapshot <dir>.before-reembed-<time>) until --confirm.
Not a fix for missing recall: it changes which model every vector comes from.
"""


def add_parser(sub: Any) -> None:
    parser = add_command(
        sub,
        "reembed",
        help="re-embed every memory with another model, validated",
        description="An explicit migration to another embedding model: a snapshot, every "
        "memory embedded into a new collection generation (with a progress bar), validated "
        "(counts, dimension, a sample of recalls), switched atomically; the old generation "
        "is kept until --confirm.",
        epilog=EXAMPLES,
    )
    parser.add_argument(
        "--model", required=True, choices=("hashing", "minilm"), help="the new model"
    )
    parser.add_argument("--dimension", type=int, help="the hashing embedder's dimension (384)")
    parser.add_argument(
        "--confirm", action="store_true", help="drop the previous generation (after a switch)"
    )
    parser.add_argument("--batch", type=int, default=256, help="memories embedded per batch (256)")
    parser.set_defaults(run=run)


class ProgressBar:
    """A one-line bar on a terminal (redrawn), a line every 10% elsewhere."""

    def __init__(self, stream: Any = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._shown = -1

    def __call__(self, done: int, total: int) -> None:
        share = done / total if total else 1.0
        if self.tty:
            filled = int(share * self.width)
            bar = "#" * filled + "-" * (self.width - filled)
            end = "\n" if done >= total else ""
            self.stream.write(f"\rre-embedding [{bar}] {done}/{total}{end}")
        elif int(share * 10) > self._shown:
            self._shown = int(share * 10)
            self.stream.write(f"re-embedding {done}/{total} ({share:.0%})\n")
        self.stream.flush()


def run(args: argparse.Namespace) -> int:
    from remem.maintenance import confirm_reembed, embedder_for, reembed

    async def body() -> int:
        config = load_config(args)
        if args.confirm:
            print(await confirm_reembed(config, embedder_for(args.model, args.dimension)))
            return 0
        result = await reembed(
            config, args.model, dimension=args.dimension, progress=ProgressBar(), batch=args.batch
        )
        print(result.describe())
        return 0

    return run_guarded("reembed", body)
