"""A child process to SIGKILL at a random point of an operation, and what checks a source after.

The child (a ``python -m MODULE ARG…`` worker) imports everything, prints ``ready``, waits for a
line on stdin, runs the operation and prints ``done`` — so a kill lands inside the operation,
not in the imports."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.recovery.memory_dirs import file_digests


class Worker:
    def __init__(self, module: str, *args: str | Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *map(str, args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "ready"

    def go(self) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def finish(self) -> float:
        """Run the operation to its end; return how long it took."""
        start = self.go()
        assert self.proc.stdout is not None
        lines = []  # what the operation printed (a CLI command does), then "done"
        while (line := self.proc.stdout.readline()) and line.strip() != "done":
            lines.append(line)
        assert line.strip() == "done", "".join(lines)
        elapsed = time.monotonic() - start
        assert self.proc.wait(timeout=60) == 0
        return elapsed

    def kill_after(self, delay: float) -> None:
        self.go()
        time.sleep(delay)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)


def side_files_only(path: Path, expected: dict[str, str]) -> None:
    """``path`` holds the files of ``expected`` with their digests, plus at most the empty
    -wal/-shm side files SQLite leaves (the next open removes them)."""
    now = file_digests(path)
    assert {k: now[k] for k in expected} == expected
    extra = set(now) - set(expected)
    assert all(name.endswith(("-wal", "-shm")) for name in extra), extra
    assert all((path / name).stat().st_size == 0 for name in extra if name.endswith("-wal"))
