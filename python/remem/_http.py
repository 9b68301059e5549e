"""One retrying JSON POST for every HTTP provider adapter (embeddings, brains).

Private: adapters call :func:`post_with_retries` and build their own errors through ``fail`` so
each message names its provider. The policy: 408, 409, 429 and 5xx answers (except 501),
connection errors and timeouts are retried with exponential backoff and jitter, honouring
``Retry-After``; any other non-200 answer fails at once.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx

__all__ = [
    "BACKOFF_BASE",
    "BACKOFF_MAX",
    "backoff_delay",
    "excerpt",
    "is_retryable",
    "parse_json",
    "parse_retry_after",
    "post_with_retries",
]

BACKOFF_BASE = 0.5
BACKOFF_MAX = 30.0
"""Exponential backoff: attempt k waits uniform(0.5, 1) × min(BACKOFF_MAX, BACKOFF_BASE·2^k)
seconds, or the server's Retry-After (capped at BACKOFF_MAX) when it sends one."""

Fail = Callable[[str], Exception]
Sleep = Callable[[float], Awaitable[None]]


def is_retryable(status: int) -> bool:
    """Transient answers: request timeout, conflict, rate limit, server errors (529 overloaded
    included) — but not 501, which will not change on a retry."""
    return status in (408, 409, 429) or (500 <= status < 600 and status != 501)


async def post_with_retries(
    client: httpx.AsyncClient,
    url: str,
    payload: Mapping[str, Any],
    headers: Mapping[str, str],
    *,
    max_retries: int,
    timeout_s: float,
    fail: Fail,
    sleep: Sleep,
    rng: random.Random,
    auth_hint: str,
    stream: bool = False,
) -> httpx.Response:
    """POST ``payload`` as JSON and return the first HTTP 200 answer.

    With ``stream=True`` the 200 answer comes back unread (its body is the caller's to iterate
    and close, ``aiter_bytes``/``aclose``); only the wait for the status line is retried, never
    a body already being read.

    ``timeout_s`` is the client's timeout, quoted in the message when every attempt timed out.
    Raises ``fail(cause)`` when every attempt failed or an answer is not retryable; ``cause``
    names the status (or the timeout / connection failure), an excerpt of the body and what to
    do next (``auth_hint`` for 401 and 403). Keys in ``headers`` never reach a message.
    """
    attempts = max_retries + 1
    for attempt in range(attempts):
        last = attempt == attempts - 1
        try:
            if stream:
                request = client.build_request("POST", url, json=payload, headers=dict(headers))
                response = await client.send(request, stream=True)
            else:
                response = await client.post(url, json=payload, headers=dict(headers))
        except httpx.TimeoutException as exc:
            if last:
                raise fail(
                    f"timed out after {timeout_s:g} s on all {attempts} attempts; "
                    "raise timeout= or check the server"
                ) from exc
            await sleep(backoff_delay(attempt, None, rng))
            continue
        except httpx.TransportError as exc:
            if last:
                raise fail(
                    f"connection failed on all {attempts} attempts ({type(exc).__name__}: "
                    f"{exc}); check that the server is running at {url}"
                ) from exc
            await sleep(backoff_delay(attempt, None, rng))
            continue
        status = response.status_code
        if status == 200:
            return response
        if stream:  # an error body is short: read it for the message, free the connection
            try:
                await response.aread()
            except httpx.HTTPError:
                pass
            finally:
                await response.aclose()
        if is_retryable(status) and not last:
            await sleep(backoff_delay(attempt, response.headers.get("retry-after"), rng))
            continue
        if status in (401, 403):
            hint = auth_hint
        elif is_retryable(status):
            hint = f"gave up after {attempts} attempts; retry later"
        else:
            hint = "the request was refused; check the model name and inputs"
        raise fail(f"HTTP {status}: {excerpt(_read_text(response))}; {hint}")
    raise AssertionError("unreachable")  # pragma: no cover


def _read_text(response: httpx.Response) -> str:
    try:
        return response.text
    except httpx.ResponseNotRead:  # a streamed error body that could not be read
        return "(no body)"


def parse_json(response: httpx.Response, fail: Fail) -> Any:
    """The JSON body of a 200 answer, or ``fail`` naming it as invalid."""
    try:
        return response.json()
    except ValueError as exc:
        raise fail(f"answered HTTP 200 with invalid JSON: {excerpt(response.text)}") from exc


def backoff_delay(attempt: int, retry_after: str | None, rng: random.Random) -> float:
    """Seconds to wait before retry ``attempt + 1`` (see :data:`BACKOFF_MAX`)."""
    if retry_after is not None:
        seconds = parse_retry_after(retry_after)
        if seconds is not None:
            return min(BACKOFF_MAX, seconds)
    ceiling = min(BACKOFF_MAX, BACKOFF_BASE * 2.0**attempt)
    return ceiling * rng.uniform(0.5, 1.0)


def excerpt(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut at ``limit`` characters — enough of a body for an error."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def parse_retry_after(value: str) -> float | None:
    """Seconds from a Retry-After header: delta-seconds (fractions accepted) or an HTTP date."""
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
