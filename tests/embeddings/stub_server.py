"""A scripted HTTP server on 127.0.0.1 for the HTTP adapters' tests (embeddings, brains).

It runs on the test's own event loop (asyncio.start_server), speaks just enough HTTP/1.1 (one
request per connection) and answers from a script: each queued reply is used once, then the
default reply embeds every input deterministically (vector i = [len(text), i, 1, ...]).
A reply with ``chunks`` is streamed instead (``Transfer-Encoding: chunked``, one HTTP chunk per
item, ``chunk_delay`` seconds apart); ``cut`` drops the connection after the last item without
ending the body — a stream cut off midway.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

Reply = Callable[[dict[str, Any]], "Response"]


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (timeouts)
    chunks: list[bytes] | None = None  # a streamed body, one HTTP chunk each
    chunk_delay: float = 0.0
    cut: bool = False  # close the connection mid-body


@dataclass
class Request:
    headers: dict[str, str]
    body: dict[str, Any]
    path: str = ""


def vector_for(text: str, position: int, dimension: int) -> list[float]:
    return [float(len(text)), float(position)] + [1.0] * (dimension - 2)


def success(payload: dict[str, Any], *, dimension: int = 4, reverse: bool = False) -> Response:
    inputs = payload["input"]
    data = [
        {"object": "embedding", "index": i, "embedding": vector_for(t, i, dimension)}
        for i, t in enumerate(inputs)
    ]
    if reverse:
        data.reverse()
    body = {"object": "list", "data": data, "model": payload["model"]}
    return Response(200, json.dumps(body).encode())


@dataclass
class StubServer:
    url: str = ""
    script: list[Reply] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            payload = json.loads(body)
            path = lines[0].split(" ")[1] if lines[0].count(" ") >= 2 else ""
            self.requests.append(Request(headers, payload, path))
            reply = self.script.pop(0) if self.script else success
            response = reply(payload)
            if response.delay:
                await asyncio.sleep(response.delay)
            extra = "".join(f"{k}: {v}\r\n" for k, v in response.headers.items())
            if response.chunks is not None:
                await _stream(writer, response, extra)
                return
            writer.write(
                f"HTTP/1.1 {response.status} X\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(response.body)}\r\nConnection: close\r\n{extra}\r\n".encode()
                + response.body
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def _stream(writer: asyncio.StreamWriter, response: Response, extra: str) -> None:
    writer.write(
        f"HTTP/1.1 {response.status} X\r\nContent-Type: text/event-stream\r\n"
        f"Transfer-Encoding: chunked\r\nConnection: close\r\n{extra}\r\n".encode()
    )
    await writer.drain()
    for chunk in response.chunks or ():
        if response.chunk_delay:
            await asyncio.sleep(response.chunk_delay)
        writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        await writer.drain()
    if not response.cut:
        writer.write(b"0\r\n\r\n")
        await writer.drain()


@asynccontextmanager
async def serve() -> AsyncIterator[StubServer]:
    stub = StubServer()
    server = await asyncio.start_server(stub.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    stub.url = f"http://127.0.0.1:{port}/v1"
    try:
        yield stub
    finally:
        server.close()
        await server.wait_closed()
