"""A child process for the episodic snapshot kill test (``python -m
tests.recovery.episodic_worker PATH ROUNDS``): prints ``ready``, waits for a line on stdin, then
ROUNDS times opens the store, adds a batch of notes, searches (the index catches up) and closes
(which saves the index snapshot), and prints ``done``."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from tests.recovery.episodic_notes import BATCH, notes


async def _rounds(path: Path, rounds: int) -> None:
    for _ in range(rounds):
        with closing(sqlite3.connect(path)) as conn:
            (start,) = conn.execute("SELECT count(*) FROM episodic_items").fetchone()
        async with SQLiteEpisodicStore(path) as store:
            await store.add_notes(notes(start, BATCH))
            await store.search("otter")


def main() -> None:
    path, rounds = Path(sys.argv[1]), int(sys.argv[2])
    print("ready", flush=True)
    sys.stdin.readline()
    asyncio.run(_rounds(path, rounds))
    print("done", flush=True)


if __name__ == "__main__":
    main()
