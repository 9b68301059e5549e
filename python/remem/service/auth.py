"""Who may talk to a memory server: the bearer-token rule and an ASGI middleware enforcing it.

Rule: a server bound to a loopback address (``127.0.0.1``, ``::1``, ``localhost``) needs no token
— only processes on the same machine reach it; bound to any other address it refuses to start
without one (:func:`check_binding`). The token comes from the environment variable
:data:`TOKEN_ENV` or the config file's ``[server] token`` (:mod:`remem.service.settings`); when
one is set it is required on every request, loopback or not, except the health probes.
A request without the right ``Authorization: Bearer <token>`` gets 401. This is a shared secret,
not per-user authentication: every holder of the token can read every namespace.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from remem.errors import ConfigError

__all__ = ["OPEN_PATHS", "TOKEN_ENV", "BearerAuth", "check_binding", "is_loopback"]

TOKEN_ENV = "REMEM_SERVER_TOKEN"
"""The environment variable a server's bearer token is read from."""

OPEN_PATHS = frozenset({"/health", "/ready"})
"""Paths answered without a token (liveness and readiness probes reveal no memory)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP addresses."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(host: str, token: str | None) -> None:
    """ConfigError when ``host`` is not loopback and there is no token (module docstring)."""
    if token is not None and (not token.strip() or len(token) < 16):
        raise ConfigError("the server token must be at least 16 characters; use a random one")
    if token is None and not is_loopback(host):
        raise ConfigError(
            f"binding {host!r} exposes the memory to the network: set a bearer token in "
            f"${TOKEN_ENV} or [server] token in the config file, or bind 127.0.0.1"
        )


class BearerAuth:
    """ASGI middleware: every HTTP request but :data:`OPEN_PATHS` must carry the token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or ()).get(b"authorization", b"")
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {"error": "Unauthorized", "detail": "send the header 'Authorization: Bearer <token>'"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b"Bearer"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
