"""A real memory (embedded files, or PostgreSQL) for the maintenance commands, and the options
that name it on the command line."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.models import ManualClock
from tests.recovery.memory_dirs import T0


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def cli_options(memory: Path, backend: dict[str, str]) -> list[str]:
    """``--dir … [--backend postgres --dsn …] --embedding-provider hashing``."""
    out = ["--dir", str(memory), "--embedding-provider", "hashing"]
    if backend:
        out += ["--backend", backend["backend"], "--dsn", backend["dsn"]]
    return out


def open_memory(
    memory: Path, backend: dict[str, str], clock: ManualClock | None = None, **overrides: Any
) -> remem.Runtime:
    options: dict[str, Any] = {"embedding_provider": "hashing", **backend, **overrides}
    return remem.Runtime.open(memory, clock=clock or ManualClock(T0), **options)


async def recall_texts(memory: Path, backend: dict[str, str], query: str, k: int = 40) -> list[str]:
    async with open_memory(memory, backend) as rt:
        return [h.record.text for h in await rt.controller.recall(query, k=k)]


async def keyed_fact_texts(memory: Path, backend: dict[str, str]) -> list[str]:
    async with open_memory(memory, backend) as rt:
        return sorted(f.text for f in await (await rt.controller.settled()).records.keyed_facts())


async def record_count(memory: Path, backend: dict[str, str]) -> int:
    async with open_memory(memory, backend) as rt:
        return await (await rt.controller.settled()).records.count()


async def fill(memory: Path, backend: dict[str, str], memories: int = 30) -> None:
    """Turns, plain memories and two contradicting keyed facts (a supersession to plan)."""
    clock = ManualClock(T0)
    async with open_memory(memory, backend, clock) as rt:
        c = rt.controller
        for i in range(3):
            await c.record_turn("s1", f"Ada moved to city {i}", f"Noted, city {i}.")
        await c.remember_many(
            [f"fact number {i} about cats and {i % 7} dogs" for i in range(memories)]
        )
        key = {"subject": "user", "attribute": "city"}
        await c.remember("The user lives in Lisbon", metadata={**key, "value": "Lisbon"})
        clock.advance(timedelta(days=1))
        await c.remember("The user moved to Porto", metadata={**key, "value": "Porto"})
