"""How remem's typed errors become HTTP answers: one status per branch of the error tree, and a
JSON body ``{"error": <type>, "detail": <what went wrong and what to do>}``.

Bad input is never a 500: InputError (UnknownScopeError included), BudgetError and ConfigError
are 422 (UnknownScopeError 404: the namespace is not here), NotFoundError 404, a refused block
edit 409 (the body then carries the block), a closed or failing store 503 (retry later).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from remem.errors import (
    BlockError,
    BudgetError,
    ConfigError,
    InputError,
    NotFoundError,
    RememError,
    StoreError,
    UnknownScopeError,
)

__all__ = ["add_error_handlers", "status_of"]

_STATUS: tuple[tuple[type[RememError], int], ...] = (
    (UnknownScopeError, 404),
    (NotFoundError, 404),
    (InputError, 422),
    (BudgetError, 422),
    (ConfigError, 422),
    (BlockError, 409),
    (StoreError, 503),
)


def status_of(exc: RememError) -> int:
    """The HTTP status for ``exc`` (module docstring); 500 only for an unexpected failure."""
    return next((status for kind, status in _STATUS if isinstance(exc, kind)), 500)


def add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RememError)
    async def remem_error(request: Request, exc: RememError) -> JSONResponse:
        status = status_of(exc)
        headers = {"Retry-After": "1"} if status == 503 else None
        return JSONResponse(
            {"error": type(exc).__name__, "detail": str(exc)}, status_code=status, headers=headers
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [
            {
                "where": ".".join(str(p) for p in e.get("loc", ())),
                "problem": e.get("msg", ""),
            }
            for e in exc.errors()
        ]
        summary = "; ".join(f"{p['where']}: {p['problem']}" for p in problems[:5])
        return JSONResponse(
            jsonable_encoder(
                {
                    "error": "ValidationError",
                    "detail": f"the request is invalid ({summary}); fix it and resend",
                    "problems": problems,
                }
            ),
            status_code=422,
        )
