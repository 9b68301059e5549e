"""``remem mcp`` driven by the official MCP SDK client: over stdio (the client spawns
``python -m remem mcp --dir …``) and over streamable HTTP against a live server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ReadResourceResult, TextContent, TextResourceContents

from remem.mcp_server import TOOL_NAMES
from tests.live_server import child_env, free_port, live_server

HASHING = ["--embeddings", "hashing"]


def stdio(directory: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "remem", "mcp", "--dir", str(directory), *HASHING, *extra],
        env=child_env(),
    )


def scoped(tmp_path: Path) -> Client:
    """A client of a stdio server serving default, ana and bob. Entered in the test itself:
    the SDK's task groups must be entered and left by one task (a fixture's are not)."""
    return Client(stdio(tmp_path / "memory", "--namespaces", "default,ana,bob"))


def text_of(result: CallToolResult) -> str:
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


def resource_text(result: ReadResourceResult) -> str:
    content = result.contents[0]
    assert isinstance(content, TextResourceContents)
    return content.text


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def test_every_tool_is_listed_with_a_schema_written_for_models(tmp_path: Path) -> None:
    async with scoped(tmp_path) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert sorted(tools) == sorted(TOOL_NAMES)
        for tool in tools.values():
            assert tool.description
            assert len(tool.description) > 30
            for name, prop in tool.input_schema.get("properties", {}).items():
                assert prop.get("description"), f"{tool.name}.{name} has no description"
            assert tool.output_schema is not None
        assert tools["recall"].input_schema["required"] == ["query"]


async def test_remember_recall_forget_round_trip_scoped(tmp_path: Path) -> None:
    async with scoped(tmp_path) as client:
        ana = structured(
            await client.call_tool("remember", {"text": "Ana lives in Lisbon", "namespace": "ana"})
        )
        await client.call_tool("remember", {"text": "Bob lives in Paris", "namespace": "bob"})
        hits = structured(
            await client.call_tool("recall", {"query": "who lives in Paris?", "namespace": "ana"})
        )["hits"]
        assert [h["memory"]["text"] for h in hits] == ["Ana lives in Lisbon"]
        assert hits[0]["explanation"]
        gone = structured(
            await client.call_tool("forget", {"ids": [ana["id"]], "namespace": "ana"})
        )
        assert gone["forgotten"] == 1
        after = structured(
            await client.call_tool("recall", {"query": "Lisbon", "namespace": "ana"})
        )
        assert after["hits"] == []


async def test_errors_come_back_as_tool_errors_that_say_what_to_fix(tmp_path: Path) -> None:
    async with scoped(tmp_path) as client:
        unknown = await client.call_tool("recall", {"query": "x", "namespace": "carol"})
        assert unknown.is_error
        assert "UnknownScopeError" in text_of(unknown)
        assert "not served" in text_of(unknown)
        empty = await client.call_tool("recall", {"query": "  "})
        assert empty.is_error
        assert "non-empty" in text_of(empty)
        wrong_type = await client.call_tool("recall", {"query": 5})
        assert wrong_type.is_error
        missing = await client.call_tool("forget", {"ids": ["mem-nope"], "namespace": "ana"})
        assert missing.is_error
        assert "NotFoundError" in text_of(missing)


async def test_turns_sessions_transcript_and_context(tmp_path: Path) -> None:
    async with scoped(tmp_path) as client:
        await client.call_tool("core_memory_add", {"block": "user", "text": "Name: Ana"})
        turn = structured(
            await client.call_tool(
                "record_turn",
                {
                    "session_id": "s1",
                    "user_message": "I adopted a cat",
                    "assistant_message": "Nice",
                },
            )
        )
        assert turn["turn_number"] == 1
        sessions = structured(await client.call_tool("list_sessions", {}))["sessions"]
        assert [s["session_id"] for s in sessions] == ["s1"]
        turns = structured(await client.call_tool("get_transcript", {"session_id": "s1"}))["turns"]
        assert turns[0]["user_message"] == "I adopted a cat"
        ctx = structured(
            await client.call_tool(
                "get_context", {"query": "what pet do I have?", "session_id": "s1", "budget": 300}
            )
        )
        assert "Name: Ana" in ctx["text"]
        assert "I adopted a cat" in ctx["text"]
        assert ctx["tokens"] <= 300
        assert "budget 300" in ctx["explanation"]


async def test_recorded_turns_become_facts_and_the_old_value_is_marked_earlier(
    tmp_path: Path,
) -> None:
    async with scoped(tmp_path) as client:
        for session, said in (("s1", "I live in Lisbon."), ("s2", "I moved to Porto.")):
            turn = {"session_id": session, "user_message": said, "assistant_message": "ok"}
            structured(await client.call_tool("record_turn", turn))
        query = {"query": "where do I live? Lisbon or Porto", "budget": 600}
        text = ""
        for _ in range(100):  # extraction runs in the background, right after each turn
            text = structured(await client.call_tool("get_context", query))["text"]
            if "earlier: city now Porto" in text:
                break
        assert "earlier: city now Porto" in text, text
        dropped = await client.call_tool("get_context", {**query, "earlier_values": "drop"})
        assert "I live in Lisbon" not in structured(dropped)["text"]
        bad = await client.call_tool("get_context", {**query, "earlier_values": "hide"})
        assert bad.is_error


async def test_a_full_block_returns_its_contents_and_resources_show_blocks(
    tmp_path: Path,
) -> None:
    async with scoped(tmp_path) as client:
        await client.call_tool("core_memory_add", {"block": "user", "text": "Lives in Lisbon"})
        full = structured(
            await client.call_tool("core_memory_add", {"block": "user", "text": "x" * 3000})
        )
        assert full["ok"] is False
        assert full["error"] == "BlockFullError"
        assert "Lives in Lisbon" in full["message"]
        assert full["block"]["entries"] == ["Lives in Lisbon"]
        await client.call_tool(
            "core_memory_add", {"block": "self", "text": "We talk daily", "namespace": "bob"}
        )
        listed = [str(r.uri) for r in (await client.list_resources()).resources]
        assert listed == ["remem://core"]
        core = await client.read_resource("remem://core")
        assert "Lives in Lisbon" in resource_text(core)
        user = await client.read_resource("remem://core/user")
        assert json.loads(resource_text(user))["entries"] == ["Lives in Lisbon"]
        bob = await client.read_resource("remem://namespaces/bob/core/self")
        assert json.loads(resource_text(bob))["entries"] == ["We talk daily"]
        with pytest.raises(MCPError, match="no 'nope' block"):
            await client.read_resource("remem://core/nope")


async def test_stdio_writes_survive_the_client_closing(tmp_path: Path) -> None:
    directory = tmp_path / "memory"
    async with Client(stdio(directory)) as first:
        await first.call_tool("remember", {"text": "The launch code is tulip"})
        await first.call_tool("record_turn", {"session_id": "s1", "user_message": "hi"})
    async with Client(stdio(directory)) as second:
        hits = structured(await second.call_tool("recall", {"query": "launch code"}))["hits"]
        assert hits[0]["memory"]["text"] == "The launch code is tulip"
        turns = structured(await second.call_tool("get_transcript", {"session_id": "s1"}))
        assert len(turns["turns"]) == 1


async def test_streamable_http_against_a_live_server(tmp_path: Path) -> None:
    port = free_port()
    args = ["mcp", "--dir", str(tmp_path / "m"), *HASHING, "--transport", "http"]
    with live_server([*args, "--port", str(port)], port):
        async with Client(f"http://127.0.0.1:{port}/mcp") as c:
            stored = structured(await c.call_tool("remember", {"text": "Ana lives in Lisbon"}))
            hits = structured(await c.call_tool("recall", {"query": "where does Ana live?"}))
            assert hits["hits"][0]["memory"]["id"] == stored["id"]
        # malformed traffic on the same endpoint is refused with a 4xx, never a 500
        headers = {"accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as raw:
            for body in (b'{"jsonrpc": "2.0", ', b"[1, 2]", b"x" * (8 << 20)):
                answer = await raw.post(
                    "/mcp", content=body, headers={**headers, "content-type": "application/json"}
                )
                assert 400 <= answer.status_code < 500, (body[:20], answer.status_code)
            async with Client(f"http://127.0.0.1:{port}/mcp") as again:  # still serving
                assert (await again.call_tool("recall", {"query": "Lisbon"})).structured_content


async def test_http_on_a_public_address_needs_a_token(tmp_path: Path) -> None:
    public = ["--transport", "http", "--host", "0.0.0.0", "--port", str(free_port())]
    refused = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "remem", "mcp", "--dir", str(tmp_path / "m"), *HASHING, *public],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1
    assert "REMEM_SERVER_TOKEN" in refused.stderr
    port = free_port()
    token = "t0ken-for-the-test-only"
    args = ["mcp", "--dir", str(tmp_path / "m"), *HASHING, "--transport", "http"]
    with live_server([*args, "--port", str(port)], port, env={"REMEM_SERVER_TOKEN": token}):
        async with httpx.AsyncClient() as raw:
            denied = await raw.post(f"http://127.0.0.1:{port}/mcp", json={})
            assert denied.status_code == 401
            health = await raw.get(f"http://127.0.0.1:{port}/health")
            assert health.status_code != 401
