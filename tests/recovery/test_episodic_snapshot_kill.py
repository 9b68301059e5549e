"""SIGKILL at random points while sessions write notes, search and close (saving the episodic
index snapshot, remem.stores.sqlite.episode_snapshot): whatever was interrupted, the next open
answers exactly as FTS5 over the committed rows, and leaves no temp file behind."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

from remem.models import EpisodicHit
from remem.stores.sqlite import episode_snapshot
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from tests.recovery.episodic_notes import QUERIES, notes
from tests.recovery.killing import Kills, Worker

KILLS = 5
ROUNDS = 3


def _worker(path: Path) -> Worker:
    return Worker("tests.recovery.episodic_worker", path, str(ROUNDS))


async def _answers(path: Path, search_index: str) -> list[list[EpisodicHit]]:
    async with SQLiteEpisodicStore(path, search_index=search_index) as store:  # type: ignore[arg-type]
        found = await store.search_many(QUERIES, limit=25)
        found.append(await store.search("kelp", limit=25, session_id="s1"))
        return found


def _same(got: list[list[EpisodicHit]], want: list[list[EpisodicHit]]) -> bool:
    return len(got) == len(want) and all(
        [h.id for h in a] == [h.id for h in b]
        and all(math.isclose(x.score, y.score, rel_tol=1e-9) for x, y in zip(a, b, strict=True))
        for a, b in zip(got, want, strict=True)
    )


async def _prefill(path: Path) -> None:
    async with SQLiteEpisodicStore(path) as store:
        await store.add_notes(notes(0, episode_snapshot.MIN_ROWS + 100))
        await store.search("otter")


def test_sigkill_while_writing_and_saving_the_index(tmp_path: Path) -> None:
    path = tmp_path / "episodic.db"
    asyncio.run(_prefill(path))
    assert episode_snapshot.snapshot_path(path).exists()
    duration = _worker(path).finish()
    kills = Kills(duration, kills=KILLS, seed=21)
    for delay in kills.delays():
        before = episode_snapshot.snapshot_path(path).stat().st_mtime_ns
        worker = _worker(path)
        worker.kill_after(delay)
        kills.landed(worker.proc.returncode != 0)
        memory = asyncio.run(_answers(path, "memory"))  # from the snapshot, whichever it is
        assert _same(memory, asyncio.run(_answers(path, "fts5")))
        assert any(memory)
        assert episode_snapshot.snapshot_path(path).stat().st_mtime_ns >= before
        assert not list(tmp_path.glob("*.tmp"))  # the open above discarded any partial one
    kills.check("write, search and close")
