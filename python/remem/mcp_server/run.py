"""Run the MCP server on a memory directory, over stdio or streamable HTTP, until told to stop.

Over stdio the server runs until the client closes stdin; over HTTP until SIGINT/SIGTERM
(uvicorn's graceful shutdown: in-flight requests finish first). Once the service and the server
are built, the startup heap is frozen (:func:`~remem.service.heap.freeze_startup_heap`): no call
then pays a full collection's walk over it. Either way the service then
closes (:meth:`~remem.service.MemoryService.aclose`: running operations finish, pending
extraction runs, journaled writes are applied) before the process exits.
"""

from __future__ import annotations

from typing import Literal

import uvicorn

from remem.mcp_server.server import build_server
from remem.service import MemoryService
from remem.service.auth import BearerAuth
from remem.service.heap import freeze_startup_heap
from remem.service.settings import ServerSettings

__all__ = ["serve"]


async def serve(settings: ServerSettings, *, transport: Literal["stdio", "http"]) -> None:
    """Serve ``settings``' memory until the transport ends (module docstring)."""
    async with MemoryService(settings.open_runtime(), settings.service) as service:
        server = build_server(service)
        freeze_startup_heap()
        if transport == "stdio":
            await server.run_stdio_async()
            return
        app = server.streamable_http_app(host=settings.host)
        asgi = app if settings.token is None else BearerAuth(app, settings.token)
        config = uvicorn.Config(
            asgi, host=settings.host, port=settings.port, log_level="warning", lifespan="on"
        )
        await uvicorn.Server(config).serve()
