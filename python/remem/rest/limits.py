"""BodyLimit: an ASGI middleware that answers 413 to a request body over the limit.

The body is read (up to the limit) before the application sees the request and replayed to it,
so an oversized upload is refused before any of it is parsed — whether it declares its length
or streams chunks without one — and the application never sees a truncated body.
"""

from __future__ import annotations

import json

from remem.service.auth import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit"]


class BodyLimit:
    """413 for an HTTP request body over ``max_bytes`` (module docstring)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left before its body arrived: nothing to do
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {
                "error": "PayloadTooLarge",
                "detail": f"the request body exceeds {self.max_bytes:,} bytes; send less per "
                "request (split long texts, remember them one by one)",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
