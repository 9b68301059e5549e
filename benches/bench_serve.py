"""Serving memory: REST recall over loopback vs in-process recall, MCP recall over stdio, and
the bounded load test — all in one run on one 10k-memory directory.

* ``in_process``: :meth:`MemoryService.recall` in this process (the floor: no transport).
* ``rest``: ``POST /v1/recall`` against a live ``remem serve`` on 127.0.0.1 (httpx, keep-alive).
* ``mcp_stdio``: the ``recall`` tool through the MCP SDK's client over a spawned ``remem mcp``.
* ``rest_asyncio`` / ``mcp_uvloop`` (only with ``REMEM_BENCH_SERVE_AB_LOOP=1``): the same two
  on the other event loop (``--loop``; remem.service.event_loop), for the A/B below.

The three are measured query by query in one loop, their order rotating, so load from other
jobs on the machine hits them alike; each has its own copy of the same 10k-memory directory
(a server owns its directory) and all three must return the same number of hits.

* ``load``: 8 concurrent clients × ``OPS`` mixed operations (recall 40 %, remember 30 %,
  record_turn 20 %, get_context 10 %) against the live REST server; then the server is stopped
  with SIGTERM and the directory reopened in-process: every acknowledged memory and turn must be
  there (zero lost writes), and no request may have failed (zero errors).

Targets (issue 20): REST p50 ≤ in-process p50 + 2 ms; MCP stdio p50 ≤ 10 ms. ``extra_info`` has
every p50/p99 and the correctness flags; the printed table is what the docs quote.

Measured (hashing embedder, 10k memories, 400 interleaved recalls per path, a 2-core machine
shared with other jobs at load average 13-21; ``REMEM_BENCH_SERVE_SAMPLES=400 pytest
benches/bench_serve.py -s -p no:randomly``), p50 / p99 ms, three runs:

    run   in-process      REST            REST - in-process   MCP stdio
    1     34.6 / 394      42.9 / 272      8.3                 32.6 / 315   (a test suite beside)
    2     17.9 / 318      19.3 / 207      1.5                 25.5 / 162
    3      5.9 / 259       7.7 / 276      1.8                 12.2 / 359

Runs 1 and 2 also timed a blocking httpx client called inside the loop (REST - in-process
+10.5 and +7.8 ms: it stalls the loop the other clients share); it was dropped, the async client
above is the one kept.

Load (each run): 8 × 1,000 ops, 0 errors, 0 lost writes (2,333 memories + 1,572 turns), p50 /
p99 140 / 1,058 ms (run 2), 131 / 1,044 ms (run 3). Where the MCP time goes (run-3-like load,
perf_counter_ns splits in the child, process_time in the client): the recall itself, ~1.3 ms in
the SDK's server (argument validation, result conversion, JSON-RPC framing), ~2.5 ms of client
CPU (of it ~1 ms validating the structured result against the tool's output schema with
jsonschema), the rest waiting for the scheduler between the two processes. A stdio transport on
the event loop's own pipes instead of the SDK's thread per line measured no gain (A/B,
interleaved) and was not kept.

Flat output schemas and one-pass tool results (remem.mcp_server.structured; issue 20), A/B in
one session, each tree in its own copy, run alternately twice (``REMEM_BENCH_SERVE_OPS=100
REMEM_BENCH_SERVE_SAMPLES=400 pytest benches/bench_serve.py -s --benchmark-disable -p
no:randomly``; load average ~1-3, the first "after" run beside a test run), p50 ms:

    run        in-process   REST    MCP stdio   MCP - in-process
    before 1   7.22         10.09   12.99       5.77
    after 1    9.30         13.32   12.87       3.57   (tests beside)
    before 2   8.02         10.85   13.76       5.74
    after 2    7.51         10.37   12.06       4.55

Offline, on 100 real 10-hit recall results (process_time, best of 7): the SDK client's
jsonschema check costs 2.7 ms against pydantic's schema and 1.5 ms against the flat one (of
which inlining the $refs saves 0.6, nullable type lists 0.5, dropped titles 0.06). The server's
conversion was ~0.28 ms (two dumps, an indented text block); it is now one dump and one compact
encoding. REST was not changed: an in-process cProfile of POST /v1/recall (httpx ASGITransport)
puts FastAPI's own work at ~0.8 ms (under cProfile) of a 7 ms request (body 0.13, response
validation + pydantic's direct JSON dump 0.08); the remaining ~2.8 ms over in-process is
uvicorn, the loopback HTTP exchange, the httpx client and the wait between two processes.

Where a round trip goes (issue 20, 10k memories, hashing embedder; perf_counter spans in a
server launched with this tree, process_time in the client, cProfile for the split; load
average ~0.1-2). REST (asyncio loop, httptools; 9.1 ms p50): the recall inside the server 6.3
ms; the ASGI app around it 1.3 ms more, of which FastAPI's own CPU ~0.35 ms (the app called
directly, no socket: 5.76 vs 5.42 ms; request validation, the response model's validation and
JSON dump 0.07 ms — so orjson or a pre-serialised response could not save 0.1 ms), the rest
waiting for the body (httpx writes a POST's head and body separately; uvicorn starts the app on
the head); 1.5 ms outside the app — the httpx client (GET /health takes 1.2 ms p50 with 0.9 ms
of client CPU; a recall costs the client 1.7 ms of CPU) and the loopback exchange. MCP stdio:
the SDK's server adds ~1.3 ms (cProfile) around the tool, every message crosses a worker
thread three times (stdin line, stdout write, flush), and the SDK's client spends 2.4 ms of CPU
per call (JSON-RPC, pydantic, the output-schema check). Why in-process recall is 5-8 ms here
but ~3.5 ms in bench_controller: the world, not the serving — ``MemoryService.recall`` (4.84
ms p50), the controller's recall with the namespace (4.79) and without (5.44) cost the same on
this directory; its template shares "likes … and lives in" with every memory and each name,
thing and city with 1,000, so ~59 candidates per query reach the eligibility read (decoding
those rows is ~2 ms of a 5.9 ms cProfiled recall; full text alone 2.9-3.9 ms, vector alone
2.7-3.0, graph 0.4), and in this bench two server processes share the two cores with it.

uvloop (``remem serve`` on it by default when installed; remem.service.event_loop). Interleaved
A/B: ``REMEM_BENCH_SERVE_AB_LOOP=1`` adds ``rest_asyncio`` (a second ``remem serve --loop
asyncio``) and ``mcp_uvloop`` (``remem mcp --loop uvloop``) to the loop above, each on its own
copy. With ``REMEM_BENCH_SERVE_AB_LOOP=1 REMEM_BENCH_SERVE_OPS=100
REMEM_BENCH_SERVE_SAMPLES=400 pytest benches/bench_serve.py -s --benchmark-disable -p
no:randomly`` (load average 7.6), p50 ms above in-process recall (7.81): REST 3.02 (asyncio) →
2.01 (uvloop), MCP stdio 6.03 (uvloop) vs 5.94 (asyncio). Three earlier runs of the same
interleaved A/B from a scratch script (load 5.7-8): REST 3.51 → 2.46, 2.86 → 1.16, 4.67 →
1.78; MCP stdio 5.23 → 5.12, 5.83 → 7.87, 5.80 → 9.37 (asyncio → uvloop) — so ``remem mcp``
stays on asyncio. httptools against h11 (both on
uvloop, load 13): 3.37 vs 3.61 ms above. Not kept: one socket write for the response's head and
body (a patch of uvicorn's send): -0.2 ms (asyncio), +0.06 and -0.4 ms (uvloop) — within the
noise, and it would patch uvicorn's internals. This bench, before → after, alternating, the
same session (``REMEM_BENCH_SERVE_OPS=100 REMEM_BENCH_SERVE_SAMPLES=400 pytest
benches/bench_serve.py -s --benchmark-disable -p no:randomly``; other jobs at load average
3.6-12, so the absolute figures swing), p50 ms:

    run        load   in-process   REST    REST - in-process   MCP stdio
    before 1   8.1    8.12         16.06    7.94               15.04
    after 1    3.6    7.08          9.47    2.39               10.75   (MCP on uvloop)
    before 2   4.9    8.07         11.69    3.62               12.85
    before 3   11.0   10.64        16.84    6.20               25.62
    after 2    11.7   12.06        15.97    3.92               20.66   (MCP on uvloop)
    after 3    9.6    7.97         11.37    3.40               16.33   (MCP on uvloop)
    before 4   8.6    8.10         11.73    3.63               14.29
    after 4    4.2    7.59         10.47    2.88               12.51
    before 5   6.1    7.99         11.44    3.45               14.61
    after 5    8.4    9.08         13.95    4.87               16.51

(load: the 1-minute average as each run ended.) Median REST - in-process 3.63 → 3.40 ms: run
one after another the runs mostly measure the machine's load; side by side (the A/B above)
uvloop takes 1.0-2.9 ms off, and REST - in-process met its target (≤ 2) in two of four A/B runs
(1.16, 1.78; 2.01 and 2.46 in the others). MCP stdio (target ≤ 10 ms) is not met: the recall
itself takes 7-8 ms here and the SDK ~4 ms more.

Where the MCP milliseconds go, span by span (issue 20, session 13; ``python -m
benches.mcp_spans DIR --calls 300``: ``perf_counter_ns`` marks in both processes around the
SDK's and remem's functions, and the marking thread's CPU time when both ends of a span are on
one server thread; 300 sequential recalls at 10k memories, load average 4.0), p50 ms, thread CPU
in brackets: client call → the server's loop has the line 0.91; the SDK's receive loop until its
handler starts 0.60 [0.59]; its runner, middleware and Context until Tool.run 0.39 [0.39];
argument validation 0.05; the recall 10.44 [5.63 on the loop thread]; tool_result 0.17 [0.15];
the SDK's result shaping 0.25 [0.24]; until the response reaches the stdout writer 0.33 [0.32];
until the writer's worker thread writes 0.36; the pipe until the client has the line 0.32; the
client's parsing and output-schema check 2.49 — 5.9 ms around the recall (the sum of the p50s;
the p50 of call − recall per call is 8.8, call 19.7). The SDK's server spans are CPU, not
waiting: anyio's and the SDK's layers per message (loop iterations, worker-thread submissions,
pydantic models, middleware), no single hot spot remem can take out. uvloop under the same
spans (``--loop``, alternating, two runs each): call − recall 6.23 / 6.33 ms (asyncio) vs 6.83 /
7.38 (uvloop) — ``remem mcp`` stays on asyncio.

What a result's shape costs (``python -m benches.mcp_result_cost DIR``: 100 captured 10-hit
responses of 10.3 kB, process time per result, best of 7), ms: the server's encoding 0.066 with
the JSON text block, 0.041 with a short text; the client's parse of the line 0.107 vs 0.098 —
so the text that repeats the structured content (what the MCP spec asks of a tool with
structured output, and what a client without structured-content support shows its model)
costs ~0.03 ms a call and stays. The client's output-schema check: 1.096 against the published
(flat) schema, 1.091 / 1.081 declaring draft-07 / draft-04 (not worth leaving 2020-12), 0.976
without the fields left at an empty default (``valid_from`` null, ``metadata`` {}), 0.810 with
hits flattened (the memory's fields beside score, sources and explanation, without its
namespace). Neither shape change was made: each changes what MCP clients read for ≤ 0.3 ms of
a ~15 ms call, and the check's cost is per validated node (163 for 10 hits), which only fewer
fields lower.

What did change: ``remem mcp`` freezes its startup heap (remem.service.heap). Over 300 recalls
the server ran one full collection (131k objects from startup, 163k in all) inside a call —
128.8 and 174.7 ms (``python -m benches.mcp_spans DIR --no-freeze``, two runs); frozen, none ran
(two runs; the ~44 young collections, ~17 ms in all, are unchanged). p50 is unchanged: this
bench, before → after alternating (``REMEM_BENCH_SERVE_OPS=100 REMEM_BENCH_SERVE_SAMPLES=400
pytest benches/bench_serve.py -s --benchmark-disable -p no:randomly``, before from a detached
worktree of the parent commit), p50 / p99 ms:

    run        load   in-process    MCP stdio      MCP - in-process
    before 1   4.8    11.04 / 89.0   19.11 / 87.4   8.07
    after 1    3.4     8.67 / 52.4   14.50 / 56.6   5.83
    before 2   4.8     9.27 / 76.1   14.37 / 70.6   5.10
    after 2    5.8     8.85 / 58.3   14.61 / 65.5   5.76

(400 calls rarely hold the one stalled call, and the machine's load sets p99.) MCP stdio p50 ≤
10 ms is not met: ~5-6 ms of the call is the SDK's two ends (above), so the recall itself would
have to take ≤ 4-5 ms here.

On a quiet machine (session 15; a fresh 2-core machine with nothing else running, load average
0.5-2.3; ``REMEM_BENCH_SERVE_SAMPLES=400 pytest benches/bench_serve.py -s -p no:randomly``, three
runs one after another, the issue's sizes), p50 / p99 ms:

    run   in-process     REST           REST - in-process   MCP stdio      load (8 × 1,000)
    1     3.72 / 25.9    5.07 / 26.9    1.34                6.07 / 28.0    30.2 / 115
    2     3.87 / 24.8    5.40 / 26.6    1.53                6.29 / 27.9    31.9 / 109
    3     3.47 / 24.2    4.77 / 24.4    1.30                5.66 / 27.0    32.7 / 109

Both targets are met there (REST ≤ in-process + 2 ms, MCP stdio ≤ 10 ms), each run with 0 errors
and 0 lost writes. MCP's cost above in-process recall is ~2.2-2.4 ms when the two processes
never wait for a core, against the 4-8 ms of the loaded runs above: most of what those runs
measured around the recall was the scheduler, not the SDK.

Run: pytest benches/bench_serve.py -s -p no:randomly
     REMEM_BENCH_SERVE_N=10000 REMEM_BENCH_SERVE_OPS=1000 (the defaults: the issue's sizes)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import signal
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from tests.live_server import child_env, free_port, live_server

from remem.service import MemoryService

N = int(os.environ.get("REMEM_BENCH_SERVE_N", "10000"))
OPS = int(os.environ.get("REMEM_BENCH_SERVE_OPS", "1000"))
CLIENTS = 8
SAMPLES = int(os.environ.get("REMEM_BENCH_SERVE_SAMPLES", "200"))
# The event-loop A/B: a second REST server on asyncio's loop and a second MCP server on uvloop,
# beside the defaults (remem serve on uvloop when installed, remem mcp on asyncio).
AB_LOOP = os.environ.get("REMEM_BENCH_SERVE_AB_LOOP") == "1"
PATHS = ("in_process", "rest", "mcp_stdio") + (("rest_asyncio", "mcp_uvloop") if AB_LOOP else ())
NAMES = ("Ana", "Bob", "Chen", "Dara", "Eli", "Farah", "Goro", "Hana", "Ivo", "Jun")
THINGS = ("tea", "jazz", "hiking", "chess", "sushi", "cats", "opera", "cycling", "tango", "rye")
CITIES = ("Lisbon", "Paris", "Osaka", "Lima", "Oslo", "Accra", "Quito", "Hanoi", "Perth", "Riga")


def fact(i: int) -> str:
    return (
        f"{NAMES[i % 10]} {i} likes {THINGS[(i // 10) % 10]} and lives in "
        f"{CITIES[(i // 100) % 10]} (note {i})"
    )


def queries(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        f"what does {rng.choice(NAMES)} like in {rng.choice(CITIES)}? {rng.choice(THINGS)}"
        for _ in range(n)
    ]


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return statistics.median(ordered) * 1000, p99 * 1000


async def build(path: Path) -> None:
    async with MemoryService.open(path, embedding_provider="hashing") as service:
        controller = service.runtime.controller
        for start in range(0, N, 1000):
            await controller.remember_many([fact(i) for i in range(start, min(N, start + 1000))])


def mcp_params(path: Path, *loop: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "remem", "mcp", "--dir", str(path), "--embeddings", "hashing", *loop],
        env=child_env(),
    )


async def interleaved(
    local: Path, base: str, mcp_dir: Path, ab: tuple[str, Path] | None = None
) -> dict[str, list[float]]:
    """Recall latencies of the three paths, measured query by query in one loop (the order
    rotates each query) so that load from other jobs on the machine hits all of them alike.

    Each path has its own copy of the same 10k-memory directory: a server owns its directory,
    so the in-process service cannot share the REST server's. ``ab``: the asyncio REST
    server's URL and the uvloop MCP server's directory (REMEM_BENCH_SERVE_AB_LOOP)."""
    times: dict[str, list[float]] = {name: [] for name in PATHS}
    async with contextlib.AsyncExitStack() as stack:
        service = await stack.enter_async_context(
            MemoryService.open(local, embedding_provider="hashing")
        )
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=base, timeout=60))
        mcp = await stack.enter_async_context(Client(mcp_params(mcp_dir)))

        async def via_service(q: str) -> int:
            return len((await service.recall(q)).hits)

        def rest(client: httpx.AsyncClient) -> Callable[[str], Awaitable[int]]:
            async def via_rest(q: str) -> int:
                answer = await client.post("/v1/recall", json={"query": q})
                assert answer.status_code == 200, answer.text
                return len(answer.json()["hits"])

            return via_rest

        def tool(client: Client) -> Callable[[str], Awaitable[int]]:
            async def via_mcp(q: str) -> int:
                result = await client.call_tool("recall", {"query": q})
                assert not result.is_error, result.content
                assert result.structured_content is not None
                return len(result.structured_content["hits"])

            return via_mcp

        calls = [via_service, rest(http), tool(mcp)]
        if ab is not None:
            other = httpx.AsyncClient(base_url=ab[0], timeout=60)
            calls.append(rest(await stack.enter_async_context(other)))
            uvloop_mcp = Client(mcp_params(ab[1], "--loop", "uvloop"))
            calls.append(tool(await stack.enter_async_context(uvloop_mcp)))
        paths = list(zip(PATHS, calls, strict=True))
        for q in queries(20, seed=1):  # warm-up: caches, connections, first-call imports
            for _, call in paths:
                await call(q)
        for i, q in enumerate(queries(SAMPLES)):
            counts = []
            shift = i % len(paths)
            for name, call in paths[shift:] + paths[:shift]:
                t = time.perf_counter_ns()
                counts.append(await call(q))
                times[name].append((time.perf_counter_ns() - t) / 1e9)
            # the same directory contents answer the same query the same way on every path
            assert counts[0] > 0
            assert len(set(counts)) == 1, (q, counts)
    return times


async def load(base: str) -> dict[str, Any]:
    """8 clients × OPS mixed operations; returns latencies, errors and acknowledged writes."""
    times: list[float] = []
    errors: list[str] = []
    memories: list[str] = []
    turns: dict[str, int] = {}

    async def client(c: int) -> None:
        rng = random.Random(c)
        session = f"load-{c}"
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            for i in range(OPS):
                roll = rng.random()
                if roll < 0.4:
                    call = http.post("/v1/recall", json={"query": queries(1, seed=c * OPS + i)[0]})
                elif roll < 0.7:
                    call = http.post("/v1/memories", json={"text": f"client {c} op {i} fact"})
                elif roll < 0.9:
                    call = http.post(
                        "/v1/turns",
                        json={"session_id": session, "user_message": f"turn {i} of {c}"},
                    )
                else:
                    call = http.post("/v1/context", json={"query": "what do I like?"})
                t = time.perf_counter()
                answer = await call
                times.append(time.perf_counter() - t)
                if answer.status_code >= 300:
                    errors.append(f"{answer.status_code} {answer.text[:200]}")
                elif 0.4 <= roll < 0.7:
                    memories.append(answer.json()["id"])
                elif 0.7 <= roll < 0.9:
                    turns[session] = turns.get(session, 0) + 1

    started = time.perf_counter()
    await asyncio.gather(*(client(c) for c in range(CLIENTS)))
    elapsed = time.perf_counter() - started
    return {"times": times, "errors": errors, "memories": memories, "turns": turns, "s": elapsed}


async def lost_writes(path: Path, memories: list[str], turns: dict[str, int]) -> int:
    async with MemoryService.open(path, embedding_provider="hashing") as service:
        found = await (await service.runtime.controller.settled()).records.get(memories)
        lost = len(memories) - len(found)
        for session, count in turns.items():
            page = await service.get_transcript(session)
            lost += count - len(page.turns)
    return lost


def test_serve(benchmark: Any, tmp_path: Path) -> None:
    path = tmp_path / "memory"
    asyncio.run(build(path))
    local, mcp_dir = tmp_path / "local", tmp_path / "mcp"
    shutil.copytree(path, local)
    shutil.copytree(path, mcp_dir)
    port = free_port()
    args = ["serve", "--dir", str(path), "--embeddings", "hashing", "--port", str(port)]
    with contextlib.ExitStack() as ab_servers, live_server(args, port) as process:
        ab = None
        if AB_LOOP:
            ab_port, ab_rest, ab_mcp = free_port(), tmp_path / "rest_asyncio", tmp_path / "mcp_uv"
            shutil.copytree(path, ab_rest)
            shutil.copytree(path, ab_mcp)
            ab_args = ["serve", "--dir", str(ab_rest), "--embeddings", "hashing"]
            ab_args += ["--port", str(ab_port), "--loop", "asyncio"]
            ab_servers.enter_context(live_server(ab_args, ab_port))
            ab = (f"http://127.0.0.1:{ab_port}", ab_mcp)
        recalls = asyncio.run(interleaved(local, f"http://127.0.0.1:{port}", mcp_dir, ab))
        loaded = asyncio.run(load(f"http://127.0.0.1:{port}"))
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)
    lost = asyncio.run(lost_writes(path, loaded["memories"], loaded["turns"]))

    figures = {name: percentiles(samples) for name, samples in recalls.items()}
    figures["load"] = percentiles(loaded["times"])
    rest_over = figures["rest"][0] - figures["in_process"][0]
    print(f"\nserve at {N:,} memories (p50 / p99 ms, {SAMPLES} recalls each, interleaved)")
    for name, (p50, p99) in figures.items():
        print(f"  {name:<12} {p50:8.2f} {p99:8.2f}")
    print(
        f"  load: {CLIENTS} clients × {OPS} ops in {loaded['s']:.1f} s, "
        f"{len(loaded['errors'])} errors, {lost} lost writes of "
        f"{len(loaded['memories'])} memories + {sum(loaded['turns'].values())} turns"
    )
    print(f"  REST - in-process p50: {rest_over:.2f} ms (target ≤ 2)")
    print(f"  MCP stdio p50: {figures['mcp_stdio'][0]:.2f} ms (target ≤ 10)")
    for name, (p50, p99) in figures.items():
        benchmark.extra_info[f"{name}_p50_ms"] = round(p50, 3)
        benchmark.extra_info[f"{name}_p99_ms"] = round(p99, 3)
    benchmark.extra_info["rest_over_in_process_p50_ms"] = round(rest_over, 3)
    benchmark.extra_info["load_errors"] = len(loaded["errors"])
    benchmark.extra_info["lost_writes"] = lost
    benchmark.extra_info["correct"] = not loaded["errors"] and lost == 0
    assert loaded["errors"] == [], loaded["errors"][:5]
    assert lost == 0
    benchmark.pedantic(lambda: None, rounds=1)  # the figures above are the benchmark
