"""HTTPBrain: the plumbing the HTTP adapters share — config checks, API key from the
environment, the connection pool and its lifecycle, retries (:mod:`remem._http`) and errors
naming the provider."""

from __future__ import annotations

import asyncio
import os
import random
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from remem._http import parse_json, post_with_retries
from remem.brains._sse import SSEEvent, decode_event, sse_events
from remem.brains.messages import Completion
from remem.brains.protocol import Brain
from remem.errors import BrainError, ConfigError

__all__ = ["WHOLE_ANSWER", "HTTPBrain"]

WHOLE_ANSWER = "remem-whole-answer"
"""The event name :meth:`HTTPBrain._events` gives a non-streamed JSON answer body."""


class HTTPBrain(Brain, ABC):
    """Base of the HTTP adapters; subclasses build the payload and parse the answer.

    The API key is read from ``api_key_env`` on construction (a missing variable is a
    :class:`~remem.errors.ConfigError` naming it) and again at each call, so a rotated key is
    picked up; it never appears in a message. ``None`` sends no key (local servers).
    """

    provider: str = "http"
    path: str = ""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None,
        timeout: float,
        max_retries: int,
        transport: httpx.AsyncBaseTransport | None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"base_url must be an http(s) URL, got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ConfigError("model must be a non-empty model name")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise ConfigError(f"timeout must be positive seconds, got {timeout!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(f"max_retries must be a non-negative int, got {max_retries!r}")
        if api_key_env is not None and not api_key_env:
            raise ConfigError("api_key_env must name an environment variable, or be None")
        self._url = base_url.rstrip("/") + self.path
        self._host = parts.netloc
        self._model = model
        self._api_key_env = api_key_env
        self._timeout = float(timeout)
        self._max_retries = max_retries
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._closed = False
        self._rng = random.Random()
        # Tests replace this to observe backoff delays without waiting for them.
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self._api_key()

    @property
    def name(self) -> str:
        return f"{self.provider}:{self._model}@{self._host}"

    @property
    def model(self) -> str:
        return self._model

    async def __aenter__(self) -> HTTPBrain:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool; idempotent. Later calls raise BrainError."""
        self._closed = True
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    def _api_key(self) -> str | None:
        if self._api_key_env is None:
            return None
        key = os.environ.get(self._api_key_env)
        if not key:
            raise ConfigError(
                f"{self.provider} brain needs an API key in the environment variable "
                f"{self._api_key_env}, which is not set; export it, or pass api_key_env=None "
                "for a server that needs no key"
            )
        return key

    def _fail(self, cause: str) -> BrainError:
        return BrainError(f"{self.provider} brain at {self._host} (model {self._model}): {cause}")

    @abstractmethod
    def _headers(self, key: str | None) -> dict[str, str]:
        """The request headers, carrying ``key`` the way the provider wants it."""

    async def _send(self, url: str, payload: Mapping[str, Any], *, stream: bool) -> httpx.Response:
        if self._closed:
            raise BrainError(f"{self.name} was closed; create a new brain")
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self._timeout, transport=self._transport)
        return await post_with_retries(
            self._client,
            url,
            payload,
            self._headers(self._api_key()),
            max_retries=self._max_retries,
            timeout_s=self._timeout,
            fail=self._fail,
            sleep=self._sleep,
            rng=self._rng,
            auth_hint=(
                f"set {self._api_key_env} to a valid key"
                if self._api_key_env
                else "this server wants a key; pass api_key_env="
            ),
            stream=stream,
        )

    async def _events(self, url: str, payload: Mapping[str, Any]) -> AsyncGenerator[SSEEvent, None]:
        """POST with retries (until the 200 status line), then the answer's SSE events.

        A connection dropped or stalled (no byte for ``timeout`` seconds) while the body is
        read, or a body that is not UTF-8, raises BrainError; it is not retried, as part of
        the reply was already handed out. The response is closed however the caller stops.
        """
        response = await self._send(url, payload, stream=True)
        try:
            if response.headers.get("content-type", "").startswith("application/json"):
                # A server that does not stream answers with one whole body: pass it on.
                await response.aread()
                yield SSEEvent(WHOLE_ANSWER, response.text)
                return
            async for event in sse_events(response.aiter_bytes()):
                yield event
        except httpx.TimeoutException as exc:
            raise self._fail(
                f"the reply stream stalled (nothing for {self._timeout:g} s) and was dropped; "
                "retry, or raise timeout="
            ) from exc
        except httpx.TransportError as exc:
            raise self._fail(
                f"the reply stream was cut off midway ({type(exc).__name__}: {exc}); retry"
            ) from exc
        except UnicodeDecodeError as exc:
            raise self._fail(f"the reply stream is not valid UTF-8 ({exc})") from exc
        finally:
            await response.aclose()

    def _whole(self, event: SSEEvent) -> Completion | None:
        """The completion of a server that answered a stream request with one JSON body (it
        does not stream: the reply then comes as one delta), or None for a streamed event."""
        if event.event != WHOLE_ANSWER:
            return None
        return self._parse(decode_event(event.data, self._fail))

    @abstractmethod
    def _parse(self, body: dict[str, Any]) -> Completion:
        """The Completion of one whole (non-streamed) answer body."""

    def _cut_off(self, missing: str) -> BrainError:
        return self._fail(
            f"the reply stream ended before {missing}: the reply was cut off midway and "
            "nothing of it was kept; retry"
        )

    async def _post(self, payload: Mapping[str, Any]) -> Any:
        """POST with retries; the decoded JSON object of the 200 answer."""
        response = await self._send(self._url, payload, stream=False)
        body = parse_json(response, self._fail)
        if not isinstance(body, dict):
            raise self._fail(f"answer is a JSON {type(body).__name__}, not an object")
        return body
