"""Shared fixtures for the HTTP brains: the local stub server and reply builders."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.embeddings.stub_server import Response, StubServer, serve

KEY = "sk-test-secret-never-shown"


@pytest.fixture
async def stub() -> AsyncIterator[StubServer]:
    async with serve() as server:
        yield server


def json_reply(body: dict[str, Any], status: int = 200, **headers: str) -> Response:
    return Response(status, json.dumps(body).encode(), dict(headers))


class Delays:
    """Records backoff delays instead of sleeping."""

    def __init__(self) -> None:
        self.seen: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seen.append(seconds)
