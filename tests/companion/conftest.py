"""Fixtures: a real embedded Runtime in tmp_path with a ManualClock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import remem
from remem.models import ManualClock

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture
async def runtime(tmp_path: Path, clock: ManualClock) -> AsyncIterator[remem.Runtime]:
    async with remem.Runtime.open(tmp_path / "memory", clock=clock) as rt:
        yield rt
