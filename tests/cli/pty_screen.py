"""Screen: drive a program through a real pseudo-terminal (stdlib ``pty.fork``) as a person
does — type keys, read what the terminal shows, with timeouts — for the ``remem chat`` tests.

The child gets the pty as its controlling terminal, so a typed Ctrl-C (``\\x03``) is a real
SIGINT from the line discipline and Ctrl-D (``\\x04``) a real end of input.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|[\x01\x02]")
SGR = re.compile(r"\x1b\[[0-9;]*m")


class Screen:
    """A child process on a pty: :meth:`send` keys, :meth:`expect` text, :meth:`wait` exit."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: exec at once (nothing else is safe after fork)
            os.execve(argv[0], list(argv), dict(env))
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.raw = ""  # everything the terminal showed, escape codes included
        self._seen = 0  # where the next expect starts looking (in plain text)
        self.status: int | None = None

    @property
    def text(self) -> str:
        """What was shown so far, without escape codes and carriage returns."""
        return ANSI.sub("", self.raw).replace("\r", "")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not chunk:
            return False
        self.raw += self._decoder.decode(chunk)
        return True

    def expect(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) shows after the previous match; return the match."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.text, self._seen)
            if match is not None:
                self._seen = match.end()
                return match
            left = deadline - time.monotonic()
            if left <= 0 or (not self._read(min(left, 0.2)) and self._exited()):
                match = regex.search(self.text, self._seen)
                if match is not None:
                    self._seen = match.end()
                    return match
                tail = self.text[self._seen :][-1500:]
                raise AssertionError(f"{pattern!r} not shown within {timeout} s; after: {tail!r}")

    def prompt(self, timeout: float = 30.0) -> None:
        """Wait for the next ``you>`` prompt."""
        self.expect(r"you> ", timeout)

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def line(self, text: str) -> None:
        """Type ``text`` and Enter."""
        self.send(text + "\r")

    def _exited(self) -> bool:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status is not None

    def wait(self, timeout: float = 30.0) -> int:
        """Read until the child exits; its exit code."""
        deadline = time.monotonic() + timeout
        while not self._exited():
            if time.monotonic() > deadline:
                raise AssertionError(f"still running after {timeout} s: {self.text[-800:]!r}")
            self._read(0.1)
        while self._read(0.05):
            pass
        assert self.status is not None
        return self.status

    def close(self) -> None:
        if not self._exited():
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def chat_env(**extra: str) -> dict[str, str]:
    """The environment a chat child runs in: this checkout first on the path, no colour
    unless the test asks, no API keys but the ones given."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and k not in ("NO_COLOR", "REMEM_OPENAI_COMPATIBLE_URL")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), str(ROOT)])
    env["TERM"] = "xterm-256color"
    env["HOME"] = env.get("HOME", "/tmp")
    env.update(extra)
    return env


@contextlib.contextmanager
def chat(*args: str, **env: str) -> Iterator[Screen]:
    """``remem chat ARGS`` on a pty; killed if the test leaves it running."""
    screen = Screen([sys.executable, "-m", "remem", "chat", *args], chat_env(**env))
    try:
        yield screen
    finally:
        screen.close()
