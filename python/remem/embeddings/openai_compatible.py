"""OpenAICompatibleEmbedder: any ``POST /v1/embeddings`` server (OpenAI, Ollama, vLLM, TEI)."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np
from numpy.typing import NDArray

from remem._http import parse_json, post_with_retries
from remem.embeddings._checks import (
    DimensionUnknownError,
    check_text,
    check_texts,
    first_row,
    to_matrix,
)
from remem.errors import ConfigError, EmbeddingError, NonFiniteError, ShapeError

__all__ = ["OpenAICompatibleEmbedder"]


class OpenAICompatibleEmbedder:
    """Embeds over HTTP with the OpenAI embeddings API shape, batching and retrying.

    ``base_url`` is the API root (``https://api.openai.com/v1``, ``http://localhost:11434/v1``);
    requests go to ``{base_url}/embeddings`` as ``{"model": ..., "input": [...]}`` in batches of
    ``batch_size``. The API key is read from the environment variable ``api_key_env`` at each
    call (``None`` or an unset variable sends no Authorization header, as Ollama needs) and is
    never logged or put in an error. 429, 5xx, connection errors and timeouts are retried up to
    ``max_retries`` times with exponential backoff and jitter, honouring ``Retry-After``; other
    answers fail at once (the policy of :mod:`remem._http`). Failures raise
    :class:`~remem.errors.EmbeddingError` naming the host, the status and the cause. Responses
    are checked: one vector per input, reordered by ``index``, one consistent ``dimension``
    (learnt from the first answer when not given), finite.

    Use it as an async context manager or call :meth:`aclose`.

    Example::

        async with OpenAICompatibleEmbedder("http://localhost:11434/v1", "nomic-embed-text") as e:
            vectors = await e.embed_documents(["hello", "world"])
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        dimension: int | None = None,
        batch_size: int = 128,
        timeout: float = 30.0,
        max_retries: int = 5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"base_url must be an http(s) URL, got {base_url!r}")
        if not model:
            raise ConfigError("model must be a non-empty model name")
        if dimension is not None and (not isinstance(dimension, int) or dimension < 1):
            raise ConfigError(f"dimension must be a positive int, got {dimension!r}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive int, got {batch_size!r}")
        if not timeout > 0:
            raise ConfigError(f"timeout must be positive seconds, got {timeout!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(f"max_retries must be a non-negative int, got {max_retries!r}")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._host = parts.netloc
        self._model = model
        self._api_key_env = api_key_env
        self._dimension = dimension
        self._batch_size = batch_size
        self._timeout = timeout
        self._max_retries = max_retries
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._closed = False
        self._rng = random.Random()
        # Tests replace this to observe backoff delays without waiting for them.
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    @property
    def model_name(self) -> str:
        """``<model>@<host>``: the same model name on another server may be another model."""
        return f"{self._model}@{self._host}"

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            raise DimensionUnknownError(
                f"the dimension of {self.model_name} is not known until its first embed call; "
                "pass dimension= or embed one text first"
            )
        return self._dimension

    async def __aenter__(self) -> OpenAICompatibleEmbedder:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool; idempotent. Later calls raise EmbeddingError."""
        self._closed = True
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        batch = check_texts(texts)
        if not batch:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        parts = [
            await self._embed_batch(batch[i : i + self._batch_size])
            for i in range(0, len(batch), self._batch_size)
        ]
        return parts[0] if len(parts) == 1 else np.ascontiguousarray(np.concatenate(parts))

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        return first_row(await self._embed_batch([check_text(text)]))

    def _http(self) -> httpx.AsyncClient:
        if self._closed:
            raise EmbeddingError(f"embedder for {self.model_name} was closed; create a new one")
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self._timeout, transport=self._transport)
        return self._client

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self._api_key_env) if self._api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _fail(self, cause: str) -> EmbeddingError:
        return EmbeddingError(f"embedding provider {self._host} (model {self._model}): {cause}")

    async def _embed_batch(self, texts: list[str]) -> NDArray[np.float32]:
        response = await post_with_retries(
            self._http(),
            self._url,
            {"model": self._model, "input": texts},
            self._headers(),
            max_retries=self._max_retries,
            timeout_s=self._timeout,
            fail=self._fail,
            sleep=self._sleep,
            rng=self._rng,
            auth_hint=(
                f"set {self._api_key_env} to a valid key" if self._api_key_env else "check the key"
            ),
        )
        return self._parse(response, len(texts))

    def _parse(self, response: httpx.Response, count: int) -> NDArray[np.float32]:
        body: Any = parse_json(response, self._fail)
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise self._fail("answer has no 'data' list; is this an OpenAI-compatible server?")
        if len(data) != count:
            raise self._fail(f"returned {len(data)} embeddings for {count} inputs")
        try:
            indexed = sorted((int(item["index"]), item["embedding"]) for item in data)
        except (KeyError, TypeError, ValueError) as exc:
            raise self._fail(f"an item of 'data' lacks a valid index or embedding ({exc})") from exc
        if [i for i, _ in indexed] != list(range(count)):
            raise self._fail(f"indexes {[i for i, _ in indexed]} are not 0..{count - 1}")
        try:
            matrix = to_matrix(
                [vector for _, vector in indexed],
                rows=count,
                dimension=self._dimension,
                source=f"embedding provider {self._host}",
            )
        except (ShapeError, NonFiniteError) as exc:
            raise self._fail(str(exc)) from exc
        self._dimension = matrix.shape[1]
        return matrix
