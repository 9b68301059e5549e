"""SIGKILL at random points of ``remem reembed``: before the switch the memory still opens on its
old model and recalls exactly what it did; after it, on the new one; and running the same command
again always resumes to a consistent, validated, switched state."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from remem.staging.generation import read_generation
from tests.maintenance.conftest import fill, open_memory
from tests.recovery.killing import Kills, Worker

KILLS = 6
MEMORIES = 1500
COMMAND = ["reembed", "--embedding-provider", "hashing", "--model", "hashing", "--dimension", "128"]
COMMAND += ["--batch", "32"]
QUERIES = ("cats and 3 dogs", "where does the user live", "city 2")


def _worker(memory: Path) -> Worker:
    return Worker("tests.maintenance.reembed_worker", *COMMAND, "--dir", memory)


async def _recall(memory: Path, dimension: int) -> tuple[list[list[str]], dict[str, int]]:
    async with open_memory(memory, {}, embedding_dimension=dimension) as rt:
        hits = [[h.record.id for h in await rt.controller.recall(q, k=5)] for q in QUERIES]
        counts = {
            i.name: i.count
            for i in await (await rt.controller.settled()).vectors.list_collections()
        }
        return hits, counts


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("built") / "memory"
    asyncio.run(fill(path, {}, memories=MEMORIES))
    return path


def test_sigkill_during_reembed_resumes_to_a_consistent_state(built: Path, tmp_path: Path) -> None:
    baseline, _ = asyncio.run(_recall(built, 384))
    first = tmp_path / "first" / "memory"
    shutil.copytree(built, first)
    duration = _worker(first).finish()
    switched, counts = asyncio.run(_recall(first, 128))
    total = MEMORIES + 2
    assert counts["memory_g2_short_term"] == total

    kills = Kills(duration, kills=KILLS, seed=18)
    outcomes = {"before the switch": 0, "after the switch": 0}
    for i, delay in enumerate(kills.delays()):
        memory = tmp_path / f"kill{i}" / "memory"
        shutil.copytree(built, memory)
        _worker(memory).kill_after(delay)
        kills.landed(read_generation(memory).prefix == "memory")
        if read_generation(memory).prefix == "memory":
            outcomes["before the switch"] += 1
            hits, _ = asyncio.run(_recall(memory, 384))  # the old generation is untouched
            assert hits == baseline
        else:
            outcomes["after the switch"] += 1
            hits, counts = asyncio.run(_recall(memory, 128))
            assert hits == switched
        _worker(memory).finish()  # resumes (or, killed after it, re-validates the switch)
        hits, counts = asyncio.run(_recall(memory, 128))
        assert hits == switched
        assert counts["memory_g2_short_term"] == counts["memory_short_term"] == total
        assert not (memory / "reembed.json").exists()
    print(f"reembed ({duration:.2f} s): kills left {outcomes}")
    kills.check("re-embed")
