"""The server's event loop: uvloop when installed (auto), asyncio on request, typed errors."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import sys

import pytest

from remem.cli import build_parser
from remem.errors import ConfigError
from remem.service.event_loop import LOOPS, loop_factory, run_server

HAVE_UVLOOP = importlib.util.find_spec("uvloop") is not None


async def loop_module(answer: int) -> tuple[str, int]:
    await asyncio.sleep(0)
    await asyncio.to_thread(lambda: None)  # a worker-thread hop, as every store call makes
    return type(asyncio.get_running_loop()).__module__.split(".")[0], answer


def test_auto_runs_on_uvloop_when_installed_and_asyncio_on_request() -> None:
    assert run_server(loop_module(7)) == ("uvloop" if HAVE_UVLOOP else "asyncio", 7)
    assert run_server(loop_module(8), loop="asyncio") == ("asyncio", 8)
    assert loop_factory("asyncio") is None
    if HAVE_UVLOOP:
        assert run_server(loop_module(9), loop="uvloop") == ("uvloop", 9)


def test_a_missing_uvloop_falls_back_under_auto_and_is_refused_when_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop now raises ImportError
    assert loop_factory("auto") is None
    assert run_server(loop_module(1)) == ("asyncio", 1)
    with pytest.raises(ConfigError, match="uvloop is not installed; pip install uvloop"):
        loop_factory("uvloop")


def test_an_unknown_loop_is_a_config_error_and_the_coroutine_is_closed_not_left_pending() -> None:
    assert LOOPS == ("auto", "asyncio", "uvloop")
    main = loop_module(2)
    with pytest.raises(ConfigError, match="loop must be one of auto, asyncio, uvloop"):
        run_server(main, loop="trio")
    assert (
        inspect.getcoroutinestate(main) == inspect.CORO_CLOSED
    )  # closed: no "coroutine was never awaited" warning later


def test_remem_serve_defaults_to_auto_and_remem_mcp_to_asyncio() -> None:
    assert build_parser("serve").parse_args(["serve"]).loop == "auto"
    assert build_parser("mcp").parse_args(["mcp"]).loop == "asyncio"
    chosen = build_parser("mcp").parse_args(["mcp", "--loop", "uvloop"])
    assert chosen.loop == "uvloop"
    with pytest.raises(SystemExit):  # argparse names the choices on stderr
        build_parser("serve").parse_args(["serve", "--loop", "trio"])
