"""Run the REST API under uvicorn until SIGINT/SIGTERM, then shut down gracefully."""

from __future__ import annotations

import uvicorn

from remem.rest.app import create_asgi
from remem.service.settings import ServerSettings

__all__ = ["GRACEFUL_SHUTDOWN_SECONDS", "serve"]

GRACEFUL_SHUTDOWN_SECONDS = 30
"""How long in-flight requests get to finish after a stop signal before they are cut off."""


async def serve(settings: ServerSettings) -> None:
    """Serve until stopped; the lifespan closes the memory after in-flight requests finish."""
    config = uvicorn.Config(
        create_asgi(settings),
        host=settings.host,
        port=settings.port,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    server = uvicorn.Server(config)
    await server.serve()
    if not server.started:  # the lifespan failed (a bad directory, say): uvicorn logged why
        raise SystemExit(1)
