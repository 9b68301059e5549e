"""Fixtures: a real DuckDB graph store in tmp_path, a manual clock at T0."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from remem.models import ManualClock
from remem.stores.duckdb import DuckDBGraphStore
from tests.stores.factories import T0


@pytest.fixture
async def graph(tmp_path: Path) -> AsyncIterator[DuckDBGraphStore]:
    async with DuckDBGraphStore(tmp_path / "memory.duckdb") as store:
        yield store


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)
