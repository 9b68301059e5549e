"""The event loop a server process runs on: asyncio's own, or uvloop when it is installed.

    run_server(serve(settings), loop="auto")   # what `remem serve` does

A REST request crosses the loop many times — socket reads and writes, and each store call's hop
to its worker thread and back (``call_soon_threadsafe``) — and uvloop makes each crossing
cheaper: in interleaved A/Bs at 10k memories a REST recall came back 1.0-2.9 ms sooner
(``benches/bench_serve.py``'s docstring). ``remem serve`` defaults to ``"auto"``; ``remem mcp``
to ``"asyncio"``, since over stdio uvloop measured no gain. uvloop is in the ``server`` extra (not
on Windows, where it does not exist); without it ``"auto"`` falls back to asyncio silently,
``"uvloop"`` insists (ConfigError when it is missing) and ``"asyncio"`` never uses it.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

from remem.errors import ConfigError, shown

__all__ = ["LOOPS", "LoopName", "loop_factory", "run_server"]

T = TypeVar("T")

LoopName = Literal["auto", "asyncio", "uvloop"]
LOOPS: tuple[LoopName, ...] = ("auto", "asyncio", "uvloop")
"""The accepted ``loop`` values (``--loop`` of ``remem serve`` and ``remem mcp``)."""


def loop_factory(loop: str = "auto") -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes the event loop for ``loop`` (None: asyncio's default loop).

    ConfigError for a name not in :data:`LOOPS`, and for ``"uvloop"`` when it is not installed.
    """
    if loop not in LOOPS:
        raise ConfigError(f"loop must be one of {', '.join(LOOPS)}, got {shown(loop)}")
    if loop == "asyncio":
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError as exc:
        if loop == "auto":
            return None
        raise ConfigError(
            "loop 'uvloop' was asked for but uvloop is not installed; "
            "pip install uvloop, or use --loop auto"
        ) from exc
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run_server(main: Coroutine[Any, Any, T], *, loop: str = "auto") -> T:
    """Run ``main`` to completion on a new event loop of kind ``loop`` (like ``asyncio.run``).

    ConfigError as :func:`loop_factory` (``main`` is then closed without running)."""
    try:
        factory = loop_factory(loop)
    except ConfigError:
        main.close()
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
