"""A child process for the kill tests (``python -m tests.recovery.recovery_worker OPERATION SRC
DST``, OPERATION one of snapshot, restore, restore-force). It imports everything, prints
``ready``, waits for a line on stdin, runs the operation and prints ``done`` — so a parent's kill
lands inside the operation, not in the imports."""

from __future__ import annotations

import sys

from remem.recovery import restore, snapshot


def main() -> None:
    operation, src, dst = sys.argv[1:4]
    print("ready", flush=True)
    sys.stdin.readline()
    if operation == "snapshot":
        snapshot(src, dst)
    else:
        restore(src, dst, force=operation == "restore-force")
    print("done", flush=True)


if __name__ == "__main__":
    main()
