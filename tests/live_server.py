"""A remem server as a child process on 127.0.0.1, for the MCP and REST tests.

The child gets this interpreter and this checkout's ``PYTHONPATH`` (the SDK's stdio client
would otherwise pass a minimal environment), binds a port picked free here, and is stopped with
SIGTERM — the signal a service manager sends — so the tests see its graceful shutdown.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import remem

STARTUP_TIMEOUT = 60.0


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment, with the checkout under test first on PYTHONPATH."""
    root = str(Path(remem.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    env.update(extra or {})
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for_port(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode() if process.stderr else ""
            raise AssertionError(f"the server exited with {process.returncode}: {err}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError(f"the server did not listen on {port} within {STARTUP_TIMEOUT} s")


@contextmanager
def live_server(
    args: Sequence[str], port: int, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m remem ARGS`` listening on ``port``; SIGTERM and wait on exit."""
    process = subprocess.Popen(
        [sys.executable, "-m", "remem", *args],
        env=child_env(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_port(process, port)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stderr:
            process.stderr.close()
