"""A child process for the export/import kill tests (``python -m tests.recovery.cli_worker
ARG…``, the arguments of ``remem``): prints ``ready``, waits for a line on stdin, runs the
command and prints ``done`` (see tests.recovery.killing)."""

from __future__ import annotations

import sys

import psycopg  # noqa: F401  (imported before "ready", as the rest)

import remem.recovery  # noqa: F401
from remem.cli import main as cli_main
from remem.cli.export import run as _export  # noqa: F401
from remem.cli.import_cmd import run as _import  # noqa: F401
from remem.stores.hnsw import HnswVectorStore  # noqa: F401
from remem.stores.postgres.vector import PgVectorStore  # noqa: F401


def main() -> None:
    print("ready", flush=True)
    sys.stdin.readline()
    code = cli_main(sys.argv[1:])
    print("done" if code == 0 else f"failed {code}", flush=True)


if __name__ == "__main__":
    main()
