"""``remem serve`` as a live uvicorn process on 127.0.0.1, driven by httpx: the operations,
validation (bad JSON, wrong types, oversized bodies, unknown scopes: 4xx, never 500), the
OpenAPI schema, health and readiness, the bearer token, and a graceful shutdown that drains."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from remem.service import MemoryService
from tests.live_server import child_env, free_port, live_server

HASHING = ["--embeddings", "hashing"]
TOKEN = "a-test-token-of-some-length"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    directory = tmp_path_factory.mktemp("rest") / "memory"
    port = free_port()
    args = ["serve", "--dir", str(directory), *HASHING, "--port", str(port)]
    with live_server([*args, "--namespaces", "default,ana,bob"], port):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def http(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=60) as client:
        yield client


def test_probes_and_openapi(http: httpx.Client) -> None:
    assert http.get("/health").json() == {"status": "ok"}
    assert http.get("/ready").json()["status"] == "ready"
    schema = http.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert {"/v1/memories", "/v1/recall", "/v1/forget", "/v1/turns", "/v1/context"} <= paths
    assert {"/v1/core", "/v1/sessions", "/v1/sessions/{session_id}/turns"} <= paths
    recall = schema["components"]["schemas"]["RecallRequest"]
    assert recall["additionalProperties"] is False
    assert recall["properties"]["query"]["description"]


def test_remember_recall_forget_scoped(http: httpx.Client) -> None:
    stored = http.post("/v1/memories", json={"text": "Ana lives in Lisbon", "namespace": "ana"})
    assert stored.status_code == 201
    http.post("/v1/memories", json={"text": "Bob's vault code is 4321", "namespace": "bob"})
    leak = http.post("/v1/recall", json={"query": "Bob vault code", "namespace": "ana"}).json()
    assert leak["hits"] == []
    hits = http.post("/v1/recall", json={"query": "who lives in Lisbon?", "namespace": "ana"})
    assert [h["memory"]["text"] for h in hits.json()["hits"]] == ["Ana lives in Lisbon"]
    memory_id = stored.json()["id"]
    wrong = http.post("/v1/forget", json={"ids": [memory_id], "namespace": "bob"})
    assert wrong.status_code == 404
    assert wrong.json()["error"] == "NotFoundError"
    gone = http.post("/v1/forget", json={"ids": [memory_id], "namespace": "ana"})
    assert gone.json() == {"namespace": "ana", "forgotten": 1}
    assert (
        http.post("/v1/recall", json={"query": "Lisbon", "namespace": "ana"}).json()["hits"] == []
    )


def test_turns_transcripts_context_and_core_blocks(http: httpx.Client) -> None:
    turn = http.post(
        "/v1/turns",
        json={
            "session_id": "s-rest",
            "user_message": "I adopted a cat",
            "assistant_message": "!",
            "namespace": "ana",
        },
    )
    assert turn.status_code == 201
    sessions = http.get("/v1/sessions", params={"namespace": "ana"}).json()["sessions"]
    assert "s-rest" in [s["session_id"] for s in sessions]
    assert "s-rest" not in [s["session_id"] for s in http.get("/v1/sessions").json()["sessions"]]
    page = http.get("/v1/sessions/s-rest/turns", params={"limit": 5, "namespace": "ana"}).json()
    assert page["turns"][0]["user_message"] == "I adopted a cat"
    assert http.get("/v1/sessions/s-rest/turns", params={"namespace": "bob"}).status_code == 404
    assert http.get("/v1/sessions/none-such/turns").status_code == 404
    added = http.post("/v1/core/user/add", json={"text": "Name: Ana", "namespace": "ana"})
    assert added.json()["block"]["entries"] == ["Name: Ana"]
    full = http.post("/v1/core/user/add", json={"text": "x" * 3000, "namespace": "ana"})
    assert full.status_code == 409
    assert full.json()["error"] == "BlockFullError"
    assert "Name: Ana" in full.json()["message"]
    ctx = http.post(
        "/v1/context",
        json={"query": "what pet?", "namespace": "ana", "session_id": "s-rest", "budget": 300},
    ).json()
    assert "Name: Ana" in ctx["text"]
    assert "I adopted a cat" in ctx["text"]
    assert ctx["tokens"] <= 300
    blocks = http.get("/v1/core", params={"namespace": "ana"}).json()
    assert [b["label"] for b in blocks] == ["user", "self"]


def test_recorded_turns_become_facts_and_an_old_value_is_marked_earlier(
    http: httpx.Client,
) -> None:
    """``remem serve`` extracts recorded turns (``[server] extract = "rules"``, the default):
    a new value supersedes the old one, and the context marks the old statement earlier."""
    for session, said in (("s-move-1", "I live in Lisbon."), ("s-move-2", "I moved to Porto.")):
        body = {"session_id": session, "user_message": said, "namespace": "bob"}
        assert http.post("/v1/turns", json={**body, "assistant_message": "ok"}).status_code == 201
    query = {"query": "where do I live? Lisbon or Porto", "namespace": "bob", "budget": 600}
    text = ""
    for _ in range(100):  # extraction runs in the background, right after each turn
        text = http.post("/v1/context", json=query).json()["text"]
        if "earlier: city now Porto" in text:
            break
    assert "earlier: city now Porto" in text, text
    assert "The user lives in Porto. (current; before: Lisbon" in text
    dropped = http.post("/v1/context", json={**query, "earlier_values": "drop"}).json()["text"]
    assert "I live in Lisbon" not in dropped
    assert "The user lives in Porto. (current)" in dropped


@pytest.mark.parametrize(
    ("path", "body", "status", "error"),
    [
        ("/v1/recall", b'{"query": ', 422, "ValidationError"),
        ("/v1/recall", b"[1, 2]", 422, "ValidationError"),
        ("/v1/recall", b"query=x", 422, "ValidationError"),
        ("/v1/recall", b'{"query": "x", "k": "5"}', 422, "ValidationError"),
        ("/v1/recall", b'{"query": "x", "extra": 1}', 422, "ValidationError"),
        ("/v1/recall", b'{"query": "x", "k": 0}', 422, "InvalidArgumentError"),
        ("/v1/recall", b'{"query": "x", "namespace": "carol"}', 404, "UnknownScopeError"),
        ("/v1/recall", b'{"query": "x", "namespace": ""}', 422, "InvalidArgumentError"),
        ("/v1/memories", b'{"text": "a\\u0000b"}', 422, "InvalidArgumentError"),
        ("/v1/memories", b'{"text": "\\ud800"}', 422, "InvalidArgumentError"),
        ("/v1/memories", b'{"text": "x", "kind": "poem"}', 422, "InvalidArgumentError"),
        ("/v1/context", b'{"query": "x", "budget": 5}', 422, "BudgetError"),
        ("/v1/context", b'{"query": "x", "earlier_values": "hide"}', 422, "ValidationError"),
        ("/v1/core/nope/add", b'{"text": "x"}', 422, "InvalidArgumentError"),
        ("/v1/forget", b'{"ids": []}', 422, "InvalidArgumentError"),
    ],
)
def test_bad_requests_are_4xx_never_500(
    http: httpx.Client, path: str, body: bytes, status: int, error: str
) -> None:
    answer = http.post(path, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == status, answer.text
    assert answer.json()["error"] == error
    assert answer.json()["detail"]


def test_oversized_bodies_are_413_declared_or_streamed(http: httpx.Client) -> None:
    big = b'{"text": "' + b"x" * (2 << 20) + b'"}'
    declared = http.post("/v1/memories", content=big, headers={"content-type": "application/json"})
    assert declared.status_code == 413

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(big), 65536):
            yield big[i : i + 65536]

    streamed = http.post(
        "/v1/memories", content=chunks(), headers={"content-type": "application/json"}
    )
    assert streamed.status_code == 413
    assert http.get("/health").status_code == 200


async def test_clients_hanging_up_mid_request_lose_nothing_acknowledged(base_url: str) -> None:
    """Writers that disconnect at random moments (before, during or after the server's work):
    every write that was answered 201 is recallable, the rest are whole or absent, and the
    server goes on answering."""
    rng = random.Random(20)
    acknowledged: dict[str, str] = {}
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:

        async def write(i: int) -> None:
            text = f"hangup marker zq{i}x is stored"
            answer = await client.post("/v1/memories", json={"text": text, "namespace": "bob"})
            assert answer.status_code == 201, answer.text
            acknowledged[answer.json()["id"]] = f"zq{i}x"

        tasks = [asyncio.create_task(write(i)) for i in range(24)]
        await asyncio.sleep(0)
        for task in tasks[::2]:  # every other client hangs up after a random delay
            asyncio.get_running_loop().call_later(rng.uniform(0, 0.05), task.cancel)
        await asyncio.gather(*tasks, return_exceptions=True)
        assert acknowledged, "no write was answered at all"
        for memory_id, marker in acknowledged.items():
            hits = await client.post("/v1/recall", json={"query": marker, "namespace": "bob"})
            assert memory_id in [h["memory"]["id"] for h in hits.json()["hits"]], marker
        # a client that sends half a body and hangs up stores nothing and breaks nothing
        body = json.dumps({"text": "half sent zqhalfx", "namespace": "bob"}).encode()
        host = urlsplit(base_url)
        assert host.port is not None
        head = (
            f"POST /v1/memories HTTP/1.1\r\nHost: {host.hostname}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        with socket.create_connection(("127.0.0.1", host.port)) as raw:
            raw.sendall(head.encode() + body[: len(body) // 2])
        assert (await client.get("/ready")).status_code == 200
        half = await client.post("/v1/recall", json={"query": "zqhalfx", "namespace": "bob"})
        assert "zqhalfx" not in json.dumps(half.json()["hits"])


def test_a_public_address_needs_a_token_and_a_token_is_enforced(tmp_path: Path) -> None:
    public = ["--host", "0.0.0.0", "--port", str(free_port())]
    refused = subprocess.run(
        [sys.executable, "-m", "remem", "serve", "--dir", str(tmp_path / "m"), *HASHING, *public],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1
    assert "bearer token" in refused.stderr
    port = free_port()
    # on asyncio's own loop (the other tests run on the default, uvloop when installed)
    args = [
        "serve",
        "--dir",
        str(tmp_path / "m"),
        *HASHING,
        "--port",
        str(port),
        "--loop",
        "asyncio",
    ]
    with (
        live_server(args, port, env={"REMEM_SERVER_TOKEN": TOKEN}),
        httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client,
    ):
        assert client.get("/health").status_code == 200
        assert client.get("/ready").status_code == 200
        denied = client.post("/v1/recall", json={"query": "x"})
        assert denied.status_code == 401
        wrong = client.post(
            "/v1/recall", json={"query": "x"}, headers={"authorization": "Bearer nope"}
        )
        assert wrong.status_code == 401
        allowed = client.post(
            "/v1/recall", json={"query": "x"}, headers={"authorization": f"Bearer {TOKEN}"}
        )
        assert allowed.status_code == 200


async def test_shutdown_drains_every_acknowledged_write(tmp_path: Path) -> None:
    directory = tmp_path / "m"
    port = free_port()
    args = ["serve", "--dir", str(directory), *HASHING, "--port", str(port)]
    acknowledged: list[str] = []
    with live_server(args, port) as process:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:

            async def write(i: int) -> None:
                answer = await client.post("/v1/memories", json={"text": f"fact number {i}"})
                if answer.status_code == 201:
                    acknowledged.append(answer.json()["id"])

            first = [asyncio.create_task(write(i)) for i in range(40)]
            await asyncio.gather(*first[:10])
            abandoned = first[30:]  # clients that hang up mid-request
            for task in abandoned:
                task.cancel()
            process.send_signal(signal.SIGTERM)  # while the rest are in flight
            await asyncio.gather(*first[10:30], return_exceptions=True)
            await asyncio.gather(*abandoned, return_exceptions=True)
        # uvicorn re-raises the signal once it has shut down gracefully (the conventional status)
        assert await asyncio.to_thread(process.wait, 60) in (0, -signal.SIGTERM)
        assert process.stderr is not None
        assert b"Traceback" not in process.stderr.read()
    assert len(acknowledged) >= 10
    async with MemoryService.open(directory, embedding_provider="hashing") as service:
        for memory_id in acknowledged:
            await service.forget([memory_id])  # NotFoundError if the write was lost
