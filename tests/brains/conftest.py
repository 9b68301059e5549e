"""Shared fixtures for the HTTP brains: the local stub server and reply builders."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from remem.brains import ReplyStream
from tests.embeddings.stub_server import Response, StubServer, serve

KEY = "sk-test-secret-never-shown"


@pytest.fixture
async def stub() -> AsyncIterator[StubServer]:
    async with serve() as server:
        yield server


def json_reply(body: dict[str, Any], status: int = 200, **headers: str) -> Response:
    return Response(status, json.dumps(body).encode(), dict(headers))


class Delays:
    """Records backoff delays instead of sleeping."""

    def __init__(self) -> None:
        self.seen: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seen.append(seconds)


def sse(*events: tuple[str | None, Any], cut: bool = False, delay: float = 0.005) -> Response:
    """A streamed SSE answer: one HTTP chunk per ``(event name or None, data)``; ``data`` is
    JSON-encoded unless it is a str. ``cut`` drops the connection after the last one."""
    chunks = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {text}\n\n".encode())
    return Response(200, chunks=chunks, chunk_delay=delay, cut=cut)


def split_mid_character(response: Response, character: str) -> Response:
    """The same stream with every chunk holding ``character`` split inside its UTF-8 bytes
    (after its first byte), so the client gets the halves in separate reads."""
    assert response.chunks is not None
    encoded = character.encode()
    assert len(encoded) > 1, "a character of one byte cannot be split"
    chunks: list[bytes] = []
    for chunk in response.chunks:
        at = chunk.find(encoded)
        chunks.extend([chunk[: at + 1], chunk[at + 1 :]] if at >= 0 else [chunk])
    assert len(chunks) > len(response.chunks), f"{character!r} is in no chunk"
    response.chunks = chunks
    return response


async def drain_into(stream: ReplyStream, seen: list[str]) -> None:
    """Read ``stream`` to its end (or its error), keeping every delta in ``seen``."""
    async for delta in stream:
        seen.append(delta)
