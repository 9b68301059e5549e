"""The REST front end (``remem serve``): :func:`create_app` (FastAPI) over a MemoryService;
needs the ``remem[server]`` extra (FastAPI, uvicorn)."""

from __future__ import annotations

from remem.rest.app import create_app, create_asgi

__all__ = ["create_app", "create_asgi"]
