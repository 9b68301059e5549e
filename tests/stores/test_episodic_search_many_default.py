"""EpisodicStoreBase.search_many, the default batch search, on a real SQLite episodic file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remem.errors import InvalidArgumentError
from remem.stores.base.episodic import EpisodicStoreBase
from remem.stores.sqlite.episodic import SQLiteEpisodicStore

T0 = datetime(2024, 3, 1, 12, tzinfo=UTC)
NOTES = ["otters hold hands", "a beach walk at dawn", "otters on the beach", "tea in Lisbon"]
QUERIES = ["otters", "beach", "Lisbon tea", "nothing matches", ""]


async def test_the_default_batch_equals_the_backend_batch_and_search(tmp_path: Path) -> None:
    async with SQLiteEpisodicStore(tmp_path / "episodic.db") as store:
        for i, text in enumerate(NOTES):
            await store.add_note(f"n{i}", text, created_at=T0 + timedelta(minutes=i))
        default = await EpisodicStoreBase.search_many(store, QUERIES, limit=3)
        assert default == await store.search_many(QUERIES, limit=3)
        assert default == [await store.search(q, limit=3) for q in QUERIES]
        assert {h.id for h in default[0]} == {"n0", "n2"}


async def test_the_default_batch_checks_every_query_first(tmp_path: Path) -> None:
    async with SQLiteEpisodicStore(tmp_path / "episodic.db") as store:
        with pytest.raises(InvalidArgumentError, match="query must be a str"):
            await EpisodicStoreBase.search_many(store, ["otters", None])  # type: ignore[list-item]
        with pytest.raises(InvalidArgumentError, match="limit"):
            await EpisodicStoreBase.search_many(store, ["otters"], limit=-1)
