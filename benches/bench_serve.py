"""Serving memory: REST recall over loopback vs in-process recall, MCP recall over stdio, and
the bounded load test — all in one run on one 10k-memory directory.

* ``in_process``: :meth:`MemoryService.recall` in this process (the floor: no transport).
* ``rest``: ``POST /v1/recall`` against a live ``remem serve`` on 127.0.0.1 (httpx, keep-alive).
* ``mcp_stdio``: the ``recall`` tool through the MCP SDK's client over a spawned ``remem mcp``.
* ``load``: 8 concurrent clients × ``OPS`` mixed operations (recall 40 %, remember 30 %,
  record_turn 20 %, get_context 10 %) against the live REST server; then the server is stopped
  with SIGTERM and the directory reopened in-process: every acknowledged memory and turn must be
  there (zero lost writes), and no request may have failed (zero errors).

Targets (issue 20): REST p50 ≤ in-process p50 + 2 ms; MCP stdio p50 ≤ 10 ms. ``extra_info`` has
every p50/p99 and the correctness flags; the printed table is what the docs quote.

Measured once (hashing embedder; a 2-core machine at load average ~15 from other jobs, so the
latencies are noise-dominated and say nothing about the targets): p50 / p99 ms —
in-process 76.0 / 521, REST 55.1 / 705, MCP stdio 65.4 / 664; load 8 × 1,000 ops in 734 s,
p50 512 / p99 2,789 ms, 0 errors, 0 lost writes (2,333 memories + 1,572 turns acknowledged).

Run: pytest benches/bench_serve.py -s -p no:randomly
     REMEM_BENCH_SERVE_N=10000 REMEM_BENCH_SERVE_OPS=1000 (the defaults: the issue's sizes)
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import statistics
import sys
import time
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
SAMPLES = 200
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


async def in_process(path: Path) -> list[float]:
    times: list[float] = []
    async with MemoryService.open(path, embedding_provider="hashing") as service:
        for q in queries(20, seed=1):  # warm-up
            await service.recall(q)
        for q in queries(SAMPLES):
            t = time.perf_counter()
            result = await service.recall(q)
            times.append(time.perf_counter() - t)
            assert result.hits
    return times


def rest(base: str) -> list[float]:
    times: list[float] = []
    with httpx.Client(base_url=base, timeout=60) as http:
        for q in queries(20, seed=1):
            http.post("/v1/recall", json={"query": q}).raise_for_status()
        for q in queries(SAMPLES):
            t = time.perf_counter()
            answer = http.post("/v1/recall", json={"query": q})
            times.append(time.perf_counter() - t)
            assert answer.status_code == 200
            assert answer.json()["hits"]
    return times


async def mcp_stdio(path: Path) -> list[float]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "remem", "mcp", "--dir", str(path), "--embeddings", "hashing"],
        env=child_env(),
    )
    times: list[float] = []
    async with Client(params) as client:
        for q in queries(20, seed=1):
            await client.call_tool("recall", {"query": q})
        for q in queries(SAMPLES):
            t = time.perf_counter()
            result = await client.call_tool("recall", {"query": q})
            times.append(time.perf_counter() - t)
            assert not result.is_error
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
    local = asyncio.run(in_process(path))
    port = free_port()
    args = ["serve", "--dir", str(path), "--embeddings", "hashing", "--port", str(port)]
    with live_server(args, port) as process:
        remote = rest(f"http://127.0.0.1:{port}")
        loaded = asyncio.run(load(f"http://127.0.0.1:{port}"))
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)
    mcp = asyncio.run(mcp_stdio(path))
    lost = asyncio.run(lost_writes(path, loaded["memories"], loaded["turns"]))

    figures = {
        "in_process": percentiles(local),
        "rest": percentiles(remote),
        "mcp_stdio": percentiles(mcp),
        "load": percentiles(loaded["times"]),
    }
    print(f"\nserve at {N:,} memories (p50 / p99 ms, {SAMPLES} recalls each)")
    for name, (p50, p99) in figures.items():
        print(f"  {name:<11} {p50:8.2f} {p99:8.2f}")
    print(
        f"  load: {CLIENTS} clients × {OPS} ops in {loaded['s']:.1f} s, "
        f"{len(loaded['errors'])} errors, {lost} lost writes of "
        f"{len(loaded['memories'])} memories + {sum(loaded['turns'].values())} turns"
    )
    print(f"  REST - in-process p50: {figures['rest'][0] - figures['in_process'][0]:.2f} ms")
    for name, (p50, p99) in figures.items():
        benchmark.extra_info[f"{name}_p50_ms"] = round(p50, 3)
        benchmark.extra_info[f"{name}_p99_ms"] = round(p99, 3)
    benchmark.extra_info["load_errors"] = len(loaded["errors"])
    benchmark.extra_info["lost_writes"] = lost
    benchmark.extra_info["correct"] = not loaded["errors"] and lost == 0
    assert loaded["errors"] == [], loaded["errors"][:5]
    assert lost == 0
    benchmark.pedantic(lambda: None, rounds=1)  # the figures above are the benchmark
