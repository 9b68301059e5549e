"""SQLite search_many on the FTS5 path: parallel read-only connections see every committed
write, and close. (The memory index's batch path: tests/stores/test_sqlite_episode_index.py.)"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from remem.errors import StoreClosedError
from remem.stores.sqlite.episodic import SQLiteEpisodicStore

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


async def test_search_many_sees_writes_made_after_its_readers_opened(tmp_path: Path) -> None:
    store = SQLiteEpisodicStore(tmp_path / "episodic.db", search_index="fts5")
    await store.add_note("a", "walrus on the beach", created_at=T0)
    first = await store.search_many(["walrus", "beach", "otter"])
    assert [[h.id for h in hits] for hits in first] == [["a"], ["a"], []]
    readers = store._readers
    assert readers is not None
    await store.add_note("b", "otter and walrus", created_at=T0)
    again = await store.search_many(["otter", "walrus"])
    assert [sorted(h.id for h in hits) for hits in again] == [["b"], ["a", "b"]]
    assert store._readers is readers  # the same pool, not reopened
    await store.aclose()
    assert store._readers is None
    with pytest.raises(StoreClosedError):
        await store.search_many(["walrus", "otter"])


async def test_search_many_on_a_fresh_store_creates_the_schema_first(tmp_path: Path) -> None:
    async with SQLiteEpisodicStore(tmp_path / "fresh.db", search_index="fts5") as store:
        assert await store.search_many(["anything", "at all"]) == [[], []]
