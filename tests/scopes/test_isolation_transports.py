"""The isolation contract over real transports: ``remem serve`` (uvicorn on 127.0.0.1, driven by
httpx) and ``remem mcp --transport http`` (streamable HTTP, driven by the MCP SDK's client).

Scope A writes one secret word through every write operation the transport has (a memory, a
turn, a core block entry); then every read operation runs as B — recall, context with and
without a session, core blocks, sessions and the transcripts of every session B lists, A's
session named by B, forget and core edits of A's data named by B (refusals must not echo the
secret) and, for MCP, the core resources — and the secret must appear in no response. The same
reads as A must show it, so a read that could never see the secret fails instead of passing.

Each server is a child process over a memory of its own (embedded files, or a PostgreSQL
database) opened as a multi-scope runtime (``scopes = "multi"``); scope names carry ``:``,
``/``, a quote and a space, as they reach URLs, JSON bodies and SQL.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent, TextResourceContents

from tests.live_server import free_port, live_server

A = "user:alice/agent:planner"
B = "it's bob"
A_MCP = "tenant-a"  # MCP resource URIs put the namespace in a path segment
B_MCP = "tenant-b"
QUERY = "what is the vault word and the door code"
"""What each scope asks: it names the secret's context, never the secret itself."""


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def config(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A TOML file for the server: a multi-scope runtime on the parametrised backend."""
    lines = [
        f"path = {json.dumps(str(tmp_path / 'memory'))}",
        'scopes = "multi"',
        "[embeddings]",
        'provider = "hashing"',
    ]
    if request.param == "postgres":
        dsn = request.getfixturevalue("pg_dsn")
        lines[1:1] = ['backend = "postgres"', f"dsn = {json.dumps(dsn)}"]
    path = tmp_path / "remem.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def secret_word() -> str:
    tag = uuid.uuid4().hex[:10]
    return "Zq" + "".join(chr(ord("a") + int(ch, 16)) for ch in tag)


def leaks(responses: dict[str, str], secret: str) -> dict[str, int]:
    return {name: text.count(secret) for name, text in responses.items() if secret in text}


# -- REST ---------------------------------------------------------------------------------------


@pytest.fixture
def rest(config: Path, tmp_path: Path) -> Iterator[httpx.Client]:
    port = free_port()
    args = ["serve", "--config", str(config), "--dir", str(tmp_path / "memory")]
    with (
        live_server([*args, "--port", str(port)], port),
        httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client,
    ):
        yield client


def rest_reads(http: httpx.Client, ns: str, own: str, other: str, a_id: str) -> dict[str, str]:
    """Every REST read as ``ns`` (``own``: a session of ns; ``other``: A's session)."""
    q = {"namespace": ns}
    out = {
        "recall": http.post("/v1/recall", json={"query": QUERY, "k": 50, **q}).text,
        "context": http.post("/v1/context", json={"query": QUERY, **q}).text,
        "context in own session": http.post(
            "/v1/context", json={"query": QUERY, "session_id": own, **q}
        ).text,
        "core": http.get("/v1/core", params=q).text,
        "sessions": http.get("/v1/sessions", params=q).text,
        "A's session": http.get(f"/v1/sessions/{other}/turns", params=q).text,
    }
    for s in http.get("/v1/sessions", params=q).json()["sessions"]:
        sid = s["session_id"]
        out[f"turns of {sid}"] = http.get(f"/v1/sessions/{sid}/turns", params=q).text
    if ns == B:  # B naming A's data: refused, and the refusal must not show it
        forget = http.post("/v1/forget", json={"ids": [a_id], **q})
        assert forget.status_code == 404
        out["forget A's id"] = forget.text
        out["core replace"] = http.post(
            "/v1/core/user/replace", json={"old_text": "vault", "new_text": "mine", **q}
        ).text
        out["core remove"] = http.post("/v1/core/user/remove", json={"old_text": "vault", **q}).text
    return out


def test_rest_shows_b_nothing_of_what_a_wrote(rest: httpx.Client) -> None:
    secret = secret_word()
    sa, sb = f"sa-{uuid.uuid4().hex[:8]}", f"sb-{uuid.uuid4().hex[:8]}"
    stored = rest.post("/v1/memories", json={"text": f"the vault word is {secret}", "namespace": A})
    assert stored.status_code == 201, stored.text
    turn = {"session_id": sa, "user_message": f"the door code is {secret}", "namespace": A}
    assert rest.post("/v1/turns", json={**turn, "assistant_message": "noted"}).status_code == 201
    added = rest.post("/v1/core/user/add", json={"text": f"Vault word: {secret}", "namespace": A})
    assert added.status_code == 200, added.text
    b_turn = {"session_id": sb, "user_message": "I like tulips", "namespace": B}
    assert rest.post("/v1/turns", json={**b_turn, "assistant_message": "ok"}).status_code == 201
    # B may not continue A's session (the refusal names the session, not its turns).
    into_a = rest.post("/v1/turns", json={**b_turn, "session_id": sa})
    assert into_a.status_code == 422, into_a.text
    assert "belongs to namespace" in into_a.text

    as_b = rest_reads(rest, B, sb, sa, stored.json()["id"])
    as_b["B writing into A's session"] = into_a.text
    assert leaks(as_b, secret) == {}
    as_a = rest_reads(rest, A, sa, sa, stored.json()["id"])
    for seen in ("recall", "context", "context in own session", "core", f"turns of {sa}"):
        assert secret in as_a[seen], seen
    assert secret in rest.post("/v1/recall", json={"query": QUERY, "namespace": A}).text
    # The unscoped default namespace sees none of it either.
    assert secret not in rest.post("/v1/recall", json={"query": QUERY}).text


# -- MCP over streamable HTTP -------------------------------------------------------------------


def tool_text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent)) + json.dumps(
        result.structured_content or {}
    )


async def mcp_reads(client: Client, ns: str, own: str, other: str, a_id: str) -> dict[str, str]:
    """Every MCP read as ``ns``: the tools, then the core resources."""

    async def call(tool: str, arguments: dict[str, Any]) -> str:
        return tool_text(await client.call_tool(tool, {**arguments, "namespace": ns}))

    out = {
        "recall": await call("recall", {"query": QUERY, "k": 50}),
        "get_context": await call("get_context", {"query": QUERY}),
        "get_context in own session": await call(
            "get_context", {"query": QUERY, "session_id": own}
        ),
        "list_sessions": await call("list_sessions", {}),
        "A's session": await call("get_transcript", {"session_id": other}),
    }
    listed = await client.call_tool("list_sessions", {"namespace": ns})
    sessions: Any = listed.structured_content or {}
    for s in sessions["sessions"]:
        out[f"get_transcript {s['session_id']}"] = await call(
            "get_transcript", {"session_id": s["session_id"]}
        )
    resource = await client.read_resource(f"remem://namespaces/{ns}/core/user")
    out["core resource"] = "".join(
        c.text for c in resource.contents if isinstance(c, TextResourceContents)
    )
    if ns == B_MCP:
        out["forget A's id"] = await call("forget", {"ids": [a_id]})
        out["core_memory_replace"] = await call(
            "core_memory_replace", {"block": "user", "old_text": "vault", "new_text": "mine"}
        )
        out["core_memory_remove"] = await call(
            "core_memory_remove", {"block": "user", "old_text": "vault"}
        )
        default = await client.read_resource("remem://core")
        out["default core resource"] = "".join(
            c.text for c in default.contents if isinstance(c, TextResourceContents)
        )
    return out


async def test_mcp_shows_b_nothing_of_what_a_wrote(config: Path, tmp_path: Path) -> None:
    port = free_port()
    args = ["mcp", "--config", str(config), "--dir", str(tmp_path / "memory")]
    secret = secret_word()
    sa, sb = f"sa-{uuid.uuid4().hex[:8]}", f"sb-{uuid.uuid4().hex[:8]}"
    with live_server([*args, "--transport", "http", "--port", str(port)], port):
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            stored = await client.call_tool(
                "remember", {"text": f"the vault word is {secret}", "namespace": A_MCP}
            )
            assert not stored.is_error, stored.content
            a_id = (stored.structured_content or {})["id"]
            turn = {"session_id": sa, "user_message": f"the door code is {secret}"}
            await client.call_tool("record_turn", {**turn, "namespace": A_MCP})
            await client.call_tool(
                "core_memory_add",
                {"block": "user", "text": f"Vault word: {secret}", "namespace": A_MCP},
            )
            b_turn = {"session_id": sb, "user_message": "I like tulips", "namespace": B_MCP}
            assert not (await client.call_tool("record_turn", b_turn)).is_error
            into_a = await client.call_tool("record_turn", {**b_turn, "session_id": sa})
            assert into_a.is_error
            assert "belongs to namespace" in tool_text(into_a)

            as_b = await mcp_reads(client, B_MCP, sb, sa, a_id)
            as_b["B writing into A's session"] = tool_text(into_a)
            assert leaks(as_b, secret) == {}
            as_a = await mcp_reads(client, A_MCP, sa, sa, a_id)
            for seen in (
                "recall",
                "get_context",
                "get_context in own session",
                f"get_transcript {sa}",
                "core resource",
            ):
                assert secret in as_a[seen], seen
