"""A real memory (embedded files, or PostgreSQL) wrapped in a MultiAgentMemoryController with
three agents: ``a`` and ``b`` (no grants) and ``lead``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.models import ManualClock
from remem.multiagent import MultiAgentMemoryController

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


@pytest.fixture
async def runtime(tmp_path: Path, backend: dict[str, str]) -> AsyncIterator[remem.Runtime]:
    options: dict[str, Any] = {"embedding_provider": "hashing", **backend}
    async with remem.Runtime.open(tmp_path / "memory", clock=ManualClock(T0), **options) as rt:
        yield rt


@pytest.fixture
async def multi(runtime: remem.Runtime) -> MultiAgentMemoryController:
    wrapper = await MultiAgentMemoryController.open(runtime.controller, runtime.block_store)
    for agent in ("a", "b", "lead"):
        await wrapper.register_agent(agent)
    return wrapper
