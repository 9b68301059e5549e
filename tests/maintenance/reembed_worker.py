"""A child process for the re-embed kill tests (``python -m tests.maintenance.reembed_worker
ARG…``, the arguments of ``remem``). It imports everything, prints ``ready``, waits for a line
on stdin, runs the command and prints ``done`` — so a parent's kill lands inside the re-embed,
not in the imports."""

from __future__ import annotations

import sys

import remem.maintenance  # noqa: F401  (imported before "ready")
from remem.cli import main as cli_main
from remem.cli.reembed import run  # noqa: F401


def main() -> None:
    print("ready", flush=True)
    sys.stdin.readline()
    code = cli_main(sys.argv[1:])
    print("done" if code == 0 else f"failed {code}", flush=True)


if __name__ == "__main__":
    main()
