"""A real Runtime (embedded files, or PostgreSQL) with a ManualClock for consolidation tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.models import ManualClock

T0 = datetime(2024, 3, 30, 12, 0, tzinfo=UTC)
OpenRuntime = Callable[..., Awaitable[remem.Runtime]]


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture
async def open_runtime(
    tmp_path: Path, backend: dict[str, Any], clock: ManualClock
) -> AsyncIterator[OpenRuntime]:
    opened: list[remem.Runtime] = []

    async def open_(timezone: str = "UTC") -> remem.Runtime:
        rt = remem.Runtime.open(tmp_path / "memory", clock=clock, timezone=timezone, **backend)
        await rt.start()
        opened.append(rt)
        return rt

    yield open_
    for rt in opened:
        await rt.aclose()


@pytest.fixture
async def rt(open_runtime: OpenRuntime) -> remem.Runtime:
    return await open_runtime()
