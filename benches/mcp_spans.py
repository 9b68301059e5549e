"""Where an MCP ``recall`` over stdio spends its milliseconds, span by span (issue #20).

Run: ``python -m benches.mcp_spans DIR [--calls N] [--no-freeze] [--loop L]`` — builds
``bench_serve``'s 10k-memory world in ``DIR/memory`` once (kept for later runs), spawns ``remem
mcp`` on it under the SDK's own ``Client`` over stdio (this module is the child: ``--serve``
wraps the CLI), makes 20 warm-up and N timed ``recall`` calls one after another, and prints each
span's p50 and mean in ms. Marks are ``perf_counter_ns`` (CLOCK_MONOTONIC: one clock for both
processes), taken by wrappers around the SDK's and remem's functions; a span between two marks
of one server thread also gets that thread's CPU time (``thread_time_ns``), to tell work from
waiting:

    client → server line     the client's call_tool until the server's loop parses the line
    line → dispatch          the SDK's receive loop until its request handler starts
    dispatch → tool          the SDK's runner, middleware and Context until Tool.run
    tool → recall            argument validation until MemoryService.recall starts
    recall                   MemoryService.recall (the same call in-process recall times)
    result                   tool_result: the view as structured content and its JSON text
    serialize                the SDK's result shaping (dump, per-version check) to its end
    respond                  until the response message is handed to the stdout writer
    to writer thread         until the writer's worker thread starts writing
    write → client line      the pipe write until the client's reader has the line
    client after line        the client's parsing and output-schema check until call_tool returns

It also counts the server's garbage collections that started inside the timed calls, by
generation (``gc.callbacks``). ``--no-freeze`` serves without freezing the startup heap
(:mod:`remem.service.heap`), for the A/B; ``--loop`` is passed to ``remem mcp``.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SPANS = (
    ("client → server line", "cli_call0", "srv_line"),
    ("line → dispatch", "srv_line", "dispatch0"),
    ("dispatch → tool", "dispatch0", "tool0"),
    ("tool → recall", "tool0", "recall0"),
    ("recall", "recall0", "recall1"),
    ("result", "recall1", "result1"),
    ("serialize", "result1", "serialize1"),
    ("respond", "serialize1", "respond1"),
    ("to writer thread", "respond1", "write0"),
    ("write → client line", "write0", "cli_line"),
    ("client after line", "cli_line", "cli_call1"),
)
MARKS_ENV = "REMEM_MCP_SPANS_MARKS"
NO_FREEZE_ENV = "REMEM_MCP_SPANS_NO_FREEZE"

Marks = list[tuple[str, int]]
ThreadTimes = dict[str, tuple[int, int]]


class ServerMarks(Marks):
    """Marks that also note, by label, the marking thread's CPU time and identity."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[tuple[str, int, int]] = []

    def append(self, mark: tuple[str, int]) -> None:
        super().append(mark)
        self.threads.append((mark[0], time.thread_time_ns(), threading.get_ident()))


def _around(marks: Marks, owner: Any, name: str, label: str, *, is_async: bool) -> None:
    """Wrap ``owner.name`` to note ``label``0 on entry and ``label``1 on return."""
    fn: Callable[..., Any] = getattr(owner, name)

    if is_async:

        @functools.wraps(fn)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            marks.append((label + "0", time.perf_counter_ns()))
            result = await fn(*args, **kwargs)
            marks.append((label + "1", time.perf_counter_ns()))
            return result

        setattr(owner, name, timed_async)
        return

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        marks.append((label + "0", time.perf_counter_ns()))
        result = fn(*args, **kwargs)
        marks.append((label + "1", time.perf_counter_ns()))
        return result

    setattr(owner, name, timed)


def serve(argv: list[str]) -> int:
    """The child: ``remem mcp ARGV`` with the server's marks, written to $MARKS_ENV at exit."""
    import atexit

    import mcp.server.stdio as server_stdio
    import mcp_types
    from mcp.server.mcpserver.tools.base import Tool
    from mcp.server.runner import ServerRunner
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

    import remem.mcp_server.run as run
    import remem.mcp_server.tools as tools
    from remem.cli import main
    from remem.service import MemoryService

    marks = ServerMarks()
    collections: list[tuple[int, int, int]] = []
    started = [0]

    class Lines:
        def __init__(self, adapter: Any) -> None:
            self.adapter = adapter

        def validate_json(self, line: str, **kwargs: Any) -> Any:
            marks.append(("srv_line", time.perf_counter_ns()))
            return self.adapter.validate_json(line, **kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.adapter, name)

    class Stdout(server_stdio._UnownedTextWrapper):
        def write(self, text: str) -> int:
            marks.append(("write0", time.perf_counter_ns()))
            return super().write(text)

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter_ns()
        else:
            collections.append((info["generation"], started[0], time.perf_counter_ns()))

    mcp_types.jsonrpc_message_adapter = Lines(mcp_types.jsonrpc_message_adapter)  # type: ignore[assignment]
    server_stdio._UnownedTextWrapper = Stdout  # type: ignore[misc]
    _around(marks, JSONRPCDispatcher, "_handle_request", "dispatch", is_async=True)
    _around(marks, JSONRPCDispatcher, "_write_result", "respond", is_async=True)
    _around(marks, Tool, "run", "tool", is_async=True)
    _around(marks, ServerRunner, "_serialize", "serialize", is_async=False)
    _around(marks, MemoryService, "recall", "recall", is_async=True)
    _around(marks, tools, "tool_result", "result", is_async=False)
    if os.environ.get(NO_FREEZE_ENV) == "1":
        run.freeze_startup_heap = lambda: 0  # type: ignore[attr-defined]
    gc.callbacks.append(on_gc)

    def dump() -> None:
        with open(os.environ[MARKS_ENV], "w") as out:
            for (label, at), (_, cpu, thread) in zip(marks, marks.threads, strict=True):
                out.write(f"{label} {at} {cpu} {thread}\n")
            for generation, start, end in collections:
                out.write(f"gc{generation} {start} {end}\n")
            out.write(f"frozen {gc.get_freeze_count()} {len(gc.get_objects())}\n")

    atexit.register(dump)
    return main(["mcp", *argv])


async def measure(directory: Path, calls: int, freeze: bool, loop: str | None) -> None:
    import mcp.client.stdio as client_stdio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from tests.live_server import child_env

    from benches.bench_serve import build, queries

    memory = directory / "memory"
    if not memory.exists():
        await build(memory)
    marks_file = directory / "marks.txt"
    marks: Marks = []
    parse_line = client_stdio._parse_line

    def noted(line: str) -> Any:
        marks.append(("cli_line", time.perf_counter_ns()))
        return parse_line(line)

    client_stdio._parse_line = noted
    env = child_env({MARKS_ENV: str(marks_file), NO_FREEZE_ENV: "0" if freeze else "1"})
    args = ["-m", "benches.mcp_spans", "--serve", "--dir", str(memory), "--embeddings", "hashing"]
    args += ["--loop", loop] if loop else []
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    async with Client(params) as client:
        for q in queries(20, seed=1):
            await client.call_tool("recall", {"query": q})
        windows = []
        for q in queries(calls):
            start = time.perf_counter_ns()
            marks.append(("cli_call0", start))
            await client.call_tool("recall", {"query": q})
            end = time.perf_counter_ns()
            marks.append(("cli_call1", end))
            windows.append((start, end))
    server: Marks = []
    heap = ""
    threads: list[ThreadTimes] = []
    gcs: list[tuple[str, int, int]] = []
    for line in marks_file.read_text().splitlines():
        label, *times = line.split()
        if label == "frozen":
            heap = f"{int(times[0]):,} frozen, {int(times[1]):,} tracked at exit"
        elif label.startswith("gc"):
            gcs.append((label, int(times[0]), int(times[1])))
        else:
            server.append((label, int(times[0])))
            if label == "srv_line":
                threads.append({})
            if threads and label not in threads[-1]:
                threads[-1][label] = (int(times[1]), int(times[2]))
    warm = len(threads) - len(windows)  # the warm-up calls' lines come first
    merged = sorted(marks + server, key=lambda m: m[1])
    report(merged, threads[warm:], gcs, windows, freeze, loop)
    print(f"  server heap: {heap}")


def report(
    marks: Marks,
    threads: list[ThreadTimes],
    gcs: list[tuple[str, int, int]],
    windows: list[tuple[int, int]],
    freeze: bool,
    loop: str | None,
) -> None:
    per_call: list[dict[str, int]] = []
    for label, at in marks:
        if label == "cli_call0":
            per_call.append({})
        if per_call and label not in per_call[-1]:
            per_call[-1][label] = at
    print(
        f"MCP recall over stdio, {len(per_call)} calls, startup heap frozen: {freeze}, "
        f"loop: {loop or 'default'}"
    )
    print(f"  {'span':<24} {'p50':>7} {'mean':>7} {'thread CPU p50':>15}  (ms)")
    for name, start, end in SPANS:
        spans = [(c[end] - c[start]) / 1e6 for c in per_call if start in c and end in c]
        cpu = [
            (t[end][0] - t[start][0]) / 1e6
            for t in threads
            if start in t and end in t and t[start][1] == t[end][1]
        ]
        on_thread = f"{statistics.median(cpu):15.3f}" if len(cpu) * 2 > len(spans) else ""
        print(
            f"  {name:<24} {statistics.median(spans):7.3f} {statistics.mean(spans):7.3f}"
            f"{' ' + on_thread if on_thread else ''}"
        )
    totals = [(c["cli_call1"] - c["cli_call0"]) / 1e6 for c in per_call]
    around = [
        t - (c["recall1"] - c["recall0"]) / 1e6 for t, c in zip(totals, per_call, strict=True)
    ]
    print(f"  {'call':<24} {statistics.median(totals):7.3f} {statistics.mean(totals):7.3f}")
    print(
        f"  {'call - recall':<24} {statistics.median(around):7.3f} {statistics.mean(around):7.3f}"
    )
    inside = [g for g in gcs if any(a <= g[1] <= b for a, b in windows)]
    for generation in ("gc0", "gc1", "gc2"):
        ran = [(end - start) / 1e6 for label, start, end in inside if label == generation]
        longest = max(ran, default=0.0)
        print(
            f"  server {generation} collections in the calls: {len(ran)}, "
            f"{sum(ran):.1f} ms in all, longest {longest:.1f} ms"
        )


def main() -> None:
    if "--serve" in sys.argv:
        argv = [a for a in sys.argv[1:] if a != "--serve"]
        raise SystemExit(serve(argv))
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--no-freeze", action="store_true")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default=None)
    args = parser.parse_args()
    args.directory.mkdir(parents=True, exist_ok=True)
    asyncio.run(measure(args.directory, args.calls, not args.no_freeze, args.loop))


if __name__ == "__main__":
    main()
