"""One contract for every BlockStore: round trips, history, conflicts, bad input, concurrency."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import pytest

from remem.blocks import BlockChange, BlockConflictError, BlockStore, StoredBlock
from remem.errors import InvalidArgumentError, NaiveDatetimeError, StoreClosedError
from tests.blocks.conftest import StoreFactory

T0 = datetime(2026, 11, 30, 15, 0, 0, 123456, tzinfo=UTC)


def add(text: str, before: int = 0) -> BlockChange:
    after = before + len(text) + 2 + (1 if before else 0)
    return BlockChange("add", None, text, before, after)


async def snapshot(store: BlockStore, label: str = "user") -> tuple[object, ...]:
    return (await store.load("ada", label), await store.history("ada", label))


async def test_missing_block_loads_as_none(store: BlockStore) -> None:
    assert await store.load("ada", "user") is None
    assert await store.history("ada", "user") == []
    assert await store.labels("ada") == []


async def test_round_trip_and_history(make_store: StoreFactory) -> None:
    store = make_store()
    async with store:
        first = await store.commit(
            "ada",
            "user",
            ["Name is Ada"],
            [add("Name is Ada")],
            expected_revision=0,
            actor="model",
            at=T0,
        )
        assert first == StoredBlock("ada", "user", ("Name is Ada",), 1, T0)
        changes = [
            BlockChange("replace", "Name is Ada", "Name is Ada Lovelace", 13, 22),
            BlockChange("add", None, "Lives in Lisbon", 22, 40),
        ]
        later = T0 + timedelta(hours=1)
        second = await store.commit(
            "ada",
            "user",
            ["Name is Ada Lovelace", "Lives in Lisbon"],
            changes,
            expected_revision=1,
            actor="consolidator",
            at=later,
        )
        assert second.revision == 2
    async with make_store() as reopened:  # survives closing and reopening
        loaded = await reopened.load("ada", "user")
        assert loaded == StoredBlock(
            "ada", "user", ("Name is Ada Lovelace", "Lives in Lisbon"), 2, later
        )
        history = await reopened.history("ada", "user")
        assert [(h.revision, h.seq, h.op, h.actor) for h in history] == [
            (1, 0, "add", "model"),
            (2, 0, "replace", "consolidator"),
            (2, 1, "add", "consolidator"),
        ]
        assert history[1].before == "Name is Ada"
        assert history[1].after == "Name is Ada Lovelace"
        assert (history[2].size_before, history[2].size_after) == (22, 40)
        assert history[0].at == T0
        assert history[2].at == later
        assert [h.seq for h in await reopened.history("ada", "user", limit=2)] == [0, 1]
        assert await reopened.labels("ada") == ["user"]


async def test_times_are_normalised_to_utc(store: BlockStore) -> None:
    at = datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=5)))
    stored = await store.commit(
        "ada", "user", ["x fact"], [add("x fact")], expected_revision=0, actor="m", at=at
    )
    assert stored.updated_at == at
    assert stored.updated_at.tzinfo == UTC
    loaded = await store.load("ada", "user")
    assert loaded is not None
    assert loaded.updated_at == at


async def test_stale_revision_conflicts_and_changes_nothing(store: BlockStore) -> None:
    await store.commit(
        "ada", "user", ["a fact"], [add("a fact")], expected_revision=0, actor="m", at=T0
    )
    before = await snapshot(store)
    for stale in (0, 2):
        with pytest.raises(BlockConflictError, match="reload"):
            await store.commit(
                "ada",
                "user",
                ["b fact"],
                [add("b fact")],
                expected_revision=stale,
                actor="m",
                at=T0,
            )
    assert await snapshot(store) == before


async def test_bad_input_is_refused_and_changes_nothing(store: BlockStore) -> None:
    await store.commit(
        "ada", "user", ["a fact"], [add("a fact")], expected_revision=0, actor="m", at=T0
    )
    before = await snapshot(store)
    bad_calls: list[tuple[type[Exception], dict[str, object]]] = [
        (NaiveDatetimeError, {"at": datetime(2026, 1, 1)}),
        (InvalidArgumentError, {"changes": []}),
        (InvalidArgumentError, {"entries": ["nul\x00"]}),
        (InvalidArgumentError, {"entries": ["lone \udc00"]}),
        (InvalidArgumentError, {"entries": [" not clean "]}),
        (InvalidArgumentError, {"actor": ""}),
        (InvalidArgumentError, {"expected_revision": -1}),
    ]
    for error, override in bad_calls:
        kwargs: dict[str, object] = {
            "entries": ["b fact"],
            "changes": [add("b fact")],
            "expected_revision": 1,
            "actor": "m",
            "at": T0,
        } | override
        with pytest.raises(error):
            await store.commit("ada", "user", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        await store.load("", "user")
    assert await snapshot(store) == before


async def test_unicode_and_large_entries_round_trip(store: BlockStore) -> None:
    entries = ["名前はエイダ", "שמה עדה", "Loves 🎸 and 🧗‍♀️", "x" * 1_000_000]
    changes = [BlockChange("add", None, e, 0, 0) for e in entries]
    await store.commit("ada", "self", entries, changes, expected_revision=0, actor="m", at=T0)
    loaded = await store.load("ada", "self")
    assert loaded is not None
    assert loaded.entries == tuple(entries)
    assert [h.after for h in await store.history("ada", "self")] == entries


async def test_namespaces_are_separate(store: BlockStore) -> None:
    await store.commit(
        "ada", "user", ["a fact"], [add("a fact")], expected_revision=0, actor="m", at=T0
    )
    assert await store.load("bob", "user") is None
    assert await store.labels("bob") == []


async def test_concurrent_writers_lose_and_duplicate_nothing(store: BlockStore) -> None:
    labels = [f"block_{i}" for i in range(8)]
    await asyncio.gather(
        *(
            store.commit(
                "ada",
                label,
                [f"fact {label}"],
                [add(f"fact {label}")],
                expected_revision=0,
                actor="m",
                at=T0,
            )
            for label in labels
        )
    )
    assert await store.labels("ada") == sorted(labels)
    # Eight racers on one revision: exactly one wins, the others conflict and write nothing.
    results = await asyncio.gather(
        *(
            store.commit(
                "ada",
                "block_0",
                [f"racer {i}"],
                [add(f"racer {i}")],
                expected_revision=1,
                actor=f"r{i}",
                at=T0,
            )
            for i in range(8)
        ),
        return_exceptions=True,
    )
    winners = [r for r in results if isinstance(r, StoredBlock)]
    assert len(winners) == 1
    assert all(isinstance(r, BlockConflictError) for r in results if r not in winners)
    history = await store.history("ada", "block_0")
    assert [h.revision for h in history] == [1, 2]
    loaded = await store.load("ada", "block_0")
    assert loaded is not None
    assert loaded.entries == winners[0].entries


async def test_use_after_close(make_store: StoreFactory) -> None:
    store = make_store()
    async with store:
        pass
    await store.aclose()  # idempotent
    with pytest.raises(StoreClosedError):
        await store.load("ada", "user")
