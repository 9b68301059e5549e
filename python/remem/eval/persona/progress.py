"""A dependency-free progress bar on stderr (redrawn in place on a terminal, one line otherwise).

bar = ProgressBar(total=120, label="full")
for _ in range(120):
    bar.advance()
bar.close()
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    def __init__(
        self, total: int, label: str, *, stream: TextIO | None = None, width: int = 28
    ) -> None:
        self.total = max(1, total)
        self.label = label
        self.done = 0
        self._stream = stream if stream is not None else sys.stderr
        self._width = width
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._started = time.perf_counter()
        self._last = 0.0
        self.note = ""

    def advance(self, steps: int = 1, note: str = "") -> None:
        self.done = min(self.total, self.done + steps)
        if note:
            self.note = note
        now = time.perf_counter()
        # Redraw at most ~20 times a second: a bar must not slow the run it measures.
        if self._tty and (now - self._last > 0.05 or self.done == self.total):
            self._last = now
            self._stream.write("\r" + self._line())
            self._stream.flush()

    def close(self) -> None:
        self._stream.write(("\r" if self._tty else "") + self._line() + "\n")
        self._stream.flush()

    def _line(self) -> str:
        filled = round(self._width * self.done / self.total)
        bar = "#" * filled + "." * (self._width - filled)
        elapsed = time.perf_counter() - self._started
        note = f" {self.note}" if self.note else ""
        return f"{self.label:<14} [{bar}] {self.done:>4}/{self.total} {elapsed:5.1f}s{note}"
