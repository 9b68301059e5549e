"""``remem serve``: the memory operations as a REST API (FastAPI), one process owning one memory.

    app = create_app(ServerSettings.load(path=Path("./memory")))
    uvicorn.run(app, host="127.0.0.1", port=8765)

Endpoints (all JSON; the schema is at ``/openapi.json``, browsable at ``/docs``)::

    GET  /health                          200 while the process runs (liveness)
    GET  /ready                           200 once the memory is open, 503 while starting/stopping
    POST /v1/memories                     remember            → 201 MemoryView
    POST /v1/recall                       recall              → RecallResult
    POST /v1/forget                       forget              → ForgetResult
    POST /v1/turns                        record_turn         → 201 TurnView
    POST /v1/context                      get_context         → ContextView
    GET  /v1/core?namespace=N             core blocks         → [BlockView]
    POST /v1/core/{block}/add|replace|remove                  → BlockEditResult (409 if refused)
    GET  /v1/sessions?namespace=N         list_sessions       → SessionList
    GET  /v1/sessions/{id}/turns?namespace=N  get_transcript  → Transcript

Every request is scoped by its ``namespace`` (:mod:`remem.service.config`). Errors:
:mod:`remem.rest.errors`. Bodies over ``max_body_bytes`` get 413 (:mod:`remem.rest.limits`); a
token, when configured, is required (:mod:`remem.service.auth`). Writes are shielded from a client
disconnecting: once started they complete. Shutdown (SIGTERM/SIGINT): uvicorn stops accepting,
lets in-flight requests finish, then the lifespan closes the service — pending extraction runs
and journaled writes are applied before the process exits.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI, Path, Query, Response
from fastapi.responses import JSONResponse

from remem._native import __version__
from remem.rest.errors import add_error_handlers
from remem.rest.limits import BodyLimit
from remem.rest.requests import (
    AddEntry,
    ContextRequest,
    ForgetRequest,
    RecallRequest,
    RememberRequest,
    RemoveEntry,
    ReplaceEntry,
    TurnRequest,
)
from remem.service import (
    BlockEditResult,
    BlockView,
    ContextView,
    ForgetResult,
    MemoryService,
    MemoryView,
    RecallResult,
    SessionList,
    Transcript,
    TurnView,
)
from remem.service.auth import ASGIApp, BearerAuth
from remem.service.settings import ServerSettings

__all__ = ["create_app", "create_asgi"]

T = TypeVar("T")

SessionId = Annotated[str, Path(description="The session's id.", max_length=512)]


async def _shielded(write: Awaitable[T]) -> T:
    """Finish ``write`` even if the request is cancelled (its client went away)."""
    return await asyncio.shield(asyncio.ensure_future(write))


def create_app(settings: ServerSettings) -> FastAPI:
    """The FastAPI application serving ``settings``' memory (module docstring); the service
    opens on startup and closes (draining) on shutdown."""
    holder: dict[str, MemoryService] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with MemoryService(settings.open_runtime(), settings.service) as service:
            holder["service"] = service
            yield

    def svc() -> MemoryService:
        return holder["service"]

    app = FastAPI(
        title="remem",
        version=__version__,
        description="Long-term memory for LLM agents: remember, recall, record turns, assemble "
        "context under a token budget and keep core memory blocks, scoped by namespace.",
        lifespan=lifespan,
    )
    add_error_handlers(app)

    @app.get("/health", tags=["probes"])
    async def health() -> dict[str, str]:
        """Liveness: the process answers."""
        return {"status": "ok"}

    @app.get("/ready", tags=["probes"], responses={503: {"description": "not ready"}})
    async def ready() -> JSONResponse:
        """Readiness: the memory is open and accepting operations."""
        service = holder.get("service")
        if service is None or not service.ready:
            return JSONResponse({"status": "unavailable"}, status_code=503)
        return JSONResponse({"status": "ready", "running": str(service.running)})

    @app.post("/v1/memories", status_code=201, tags=["memories"])
    async def remember(body: RememberRequest) -> MemoryView:
        """Store one memory in the namespace; the answer carries its id."""
        return await _shielded(
            svc().remember(
                body.text,
                namespace=body.namespace,
                kind=body.kind,
                session_id=body.session_id,
                metadata=body.metadata,
                entities=body.entities,
            )
        )

    @app.post("/v1/recall", tags=["memories"])
    async def recall(body: RecallRequest) -> RecallResult:
        """The best memories of the namespace for the query, best first, explained."""
        return await svc().recall(
            body.query, namespace=body.namespace, k=body.k, session_id=body.session_id
        )

    @app.post("/v1/forget", tags=["memories"])
    async def forget(body: ForgetRequest) -> ForgetResult:
        """Forget memories of the namespace by id, all or nothing (404 names an unknown id)."""
        return await _shielded(svc().forget(body.ids, namespace=body.namespace))

    @app.post("/v1/turns", status_code=201, tags=["transcripts"])
    async def record_turn(body: TurnRequest) -> TurnView:
        """Record one exchange of a session (created if new); durable when answered."""
        return await _shielded(
            svc().record_turn(
                body.session_id,
                body.user_message,
                body.assistant_message,
                namespace=body.namespace,
            )
        )

    @app.post("/v1/context", tags=["context"])
    async def get_context(body: ContextRequest) -> ContextView:
        """The context for a query packed into a token budget, with its explanation."""
        return await svc().get_context(
            body.query,
            namespace=body.namespace,
            budget=body.budget,
            session_id=body.session_id,
            k=body.k,
            history_turns=body.history_turns,
            earlier_values=body.earlier_values,
            prime=body.prime,
        )

    @app.get("/v1/core", tags=["core memory"])
    async def core_memory(
        namespace: Annotated[str | None, Query(max_length=200)] = None,
    ) -> list[BlockView]:
        """Every core memory block of the namespace."""
        return await svc().core_memory(namespace=namespace)

    edit_responses: dict[int | str, dict[str, Any]] = {
        409: {"model": BlockEditResult, "description": "refused; the block is unchanged"}
    }

    def edited(result: BlockEditResult, response: Response) -> BlockEditResult:
        if not result.ok:
            response.status_code = 409
        return result

    @app.post("/v1/core/{block}/add", tags=["core memory"], responses=edit_responses)
    async def core_add(block: str, body: AddEntry, response: Response) -> BlockEditResult:
        """Add an entry; a full block answers 409 with the block's contents to merge from."""
        result = await _shielded(svc().core_memory_add(block, body.text, namespace=body.namespace))
        return edited(result, response)

    @app.post("/v1/core/{block}/replace", tags=["core memory"], responses=edit_responses)
    async def core_replace(block: str, body: ReplaceEntry, response: Response) -> BlockEditResult:
        """Replace the one entry containing old_text."""
        result = await _shielded(
            svc().core_memory_replace(block, body.old_text, body.new_text, namespace=body.namespace)
        )
        return edited(result, response)

    @app.post("/v1/core/{block}/remove", tags=["core memory"], responses=edit_responses)
    async def core_remove(block: str, body: RemoveEntry, response: Response) -> BlockEditResult:
        """Remove the one entry containing old_text."""
        result = await _shielded(
            svc().core_memory_remove(block, body.old_text, namespace=body.namespace)
        )
        return edited(result, response)

    @app.get("/v1/sessions", tags=["transcripts"])
    async def list_sessions(
        namespace: Annotated[str | None, Query(max_length=200)] = None,
    ) -> SessionList:
        """The sessions of the namespace, oldest first."""
        return await svc().list_sessions(namespace=namespace)

    @app.get("/v1/sessions/{session_id}/turns", tags=["transcripts"])
    async def get_transcript(
        session_id: SessionId,
        since_turn: Annotated[int | None, Query(ge=0)] = None,
        limit: Annotated[int | None, Query(ge=1)] = None,
        namespace: Annotated[str | None, Query(max_length=200)] = None,
    ) -> Transcript:
        """A page of the session's turns, oldest first (404 for an unknown session or one of
        another namespace)."""
        return await svc().get_transcript(
            session_id, namespace=namespace, since_turn=since_turn, limit=limit
        )

    return app


def create_asgi(settings: ServerSettings) -> ASGIApp:
    """:func:`create_app` behind the body limit and, when a token is set, the bearer check."""
    app: ASGIApp = BodyLimit(create_app(settings), settings.max_body_bytes)
    if settings.token is not None:
        app = BearerAuth(app, settings.token)
    return app
