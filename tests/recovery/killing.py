"""A child process to SIGKILL at a random point of an operation, and what checks a source after.

The child (a ``python -m MODULE ARG…`` worker) imports everything, prints ``ready``, waits for a
line on stdin, runs the operation and prints ``done`` — so a kill lands inside the operation,
not in the imports."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
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


class Kills:
    """Random kill delays over an operation's timed duration that adapt to the machine.

    A delay is drawn in ``[0, window)``, ``window`` starting at the timed run's duration. When a
    kill lands after the operation ended (the run was faster than the timed one: a loaded
    machine makes single timings swing), the window shrinks, and further kills are drawn until
    at least half of ``kills`` landed inside the operation (at most ``4 * kills`` tries). Every
    try's outcome is still checked by the caller, so a kill after the end is a check too."""

    def __init__(self, duration: float, *, kills: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.window = duration
        self.kills = kills
        self.inside = 0
        self.tried = 0

    def delays(self) -> Iterator[float]:
        while self.tried < self.kills or (
            self.inside < self.kills // 2 and self.tried < 4 * self.kills
        ):
            self.tried += 1
            yield self.rng.uniform(0.0, self.window)

    def landed(self, inside: bool) -> None:
        """Record where the last kill landed: inside the operation, or after its end."""
        if inside:
            self.inside += 1
        else:
            self.window *= 0.7

    def check(self, operation: str) -> None:
        print(f"{operation}: {self.inside}/{self.tried} kills inside (window {self.window:.3f} s)")
        assert self.inside >= self.kills // 2, (
            f"only {self.inside} of {self.tried} kills landed inside the {operation}"
        )


def side_files_only(path: Path, expected: dict[str, str]) -> None:
    """``path`` holds the files of ``expected`` with their digests, plus at most the empty
    -wal/-shm side files SQLite leaves (the next open removes them)."""
    now = file_digests(path)
    assert {k: now[k] for k in expected} == expected
    extra = set(now) - set(expected)
    assert all(name.endswith(("-wal", "-shm")) for name in extra), extra
    assert all((path / name).stat().st_size == 0 for name in extra if name.endswith("-wal"))
