"""WriteBatcher (unit, with a recording writer) and concurrent remember() on real stores."""

from __future__ import annotations

import asyncio

import pytest

from remem.controller.write_batcher import WriteBatcher
from remem.errors import DuplicateIdError, InvalidArgumentError
from remem.models import MemoryStage
from tests.controller.conftest import Factory


class Recorder:
    """A batch writer that records its batches and refuses the item "bad" (whole batch)."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.stored: list[str] = []

    async def write(self, items: list[str]) -> None:
        self.batches.append(list(items))
        await asyncio.sleep(0)  # let more callers queue up meanwhile, as a real store would
        if "bad" in items:
            raise InvalidArgumentError("bad item")
        self.stored += items


async def test_concurrent_submits_share_batches_and_lone_ones_go_at_once() -> None:
    rec = Recorder()
    batcher = WriteBatcher(rec.write)
    await batcher.submit("solo")
    assert rec.batches == [["solo"]]
    await asyncio.gather(*(batcher.submit(f"i{n}") for n in range(10)))
    assert sorted(rec.stored) == sorted(["solo"] + [f"i{n}" for n in range(10)])
    # All ten queued before the drain task ran: one batch.
    assert rec.batches[1:] == [[f"i{n}" for n in range(10)]]
    assert batcher.batches == 2
    # Callers arriving while a batch is being written form the next batch.
    first = asyncio.ensure_future(batcher.submit("early"))
    await asyncio.sleep(0)  # the drain task is now writing ["early"]
    await asyncio.gather(first, *(batcher.submit(f"late{n}") for n in range(3)))
    assert rec.batches[2:] == [["early"], ["late0", "late1", "late2"]]


async def test_a_failing_item_fails_alone_and_the_rest_are_stored() -> None:
    rec = Recorder()
    batcher = WriteBatcher(rec.write)
    items = ["a", "b", "bad", "c"]
    results = await asyncio.gather(*(batcher.submit(i) for i in items), return_exceptions=True)
    assert [type(r).__name__ for r in results] == [
        "NoneType",
        "NoneType",
        "InvalidArgumentError",
        "NoneType",
    ]
    assert sorted(rec.stored) == ["a", "b", "c"]
    # Tried together first, then one by one.
    assert rec.batches == [["a", "b", "bad", "c"], ["a"], ["b"], ["bad"], ["c"]]


async def test_max_batch_bounds_each_batch() -> None:
    rec = Recorder()
    batcher = WriteBatcher(rec.write, max_batch=3)
    await asyncio.gather(*(batcher.submit(f"i{n}") for n in range(8)))
    assert max(len(b) for b in rec.batches) == 3
    assert sorted(rec.stored) == sorted(f"i{n}" for n in range(8))


async def test_a_caller_cancelled_before_its_batch_is_dropped() -> None:
    rec = Recorder()
    batcher = WriteBatcher(rec.write)
    first = asyncio.ensure_future(batcher.submit("first"))
    second = asyncio.ensure_future(batcher.submit("second"))
    third = asyncio.ensure_future(batcher.submit("third"))
    await asyncio.sleep(0)  # all three queued; the drain task is writing "first"
    second.cancel()
    await asyncio.gather(first, third)
    assert second.cancelled()
    assert rec.stored == ["first", "third"]


async def test_concurrent_remember_is_group_committed(make_stack: Factory) -> None:
    s = await make_stack()
    texts = [f"Ana's note number {i} about the garden" for i in range(12)]
    records = await asyncio.gather(*(s.controller.remember(t) for t in texts))
    batches = s.controller._writer._batcher.batches
    assert batches < len(texts)  # shared transactions, not one per call
    assert await (await s.settled()).records.count() == len(texts)
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == len(texts)
    stored = await (await s.settled()).records.get([r.id for r in records])
    assert [r.text for r in stored] == texts
    hits = await (await s.settled()).episodic.search("garden note number 7", limit=3)
    assert hits[0].id == records[7].id


async def test_a_duplicate_in_a_concurrent_batch_fails_alone_and_harms_nothing(
    make_stack: Factory,
) -> None:
    s = await make_stack()
    old = await s.controller.remember("Rui keeps bees", memory_id="m-old")
    # The existing memory is long-term, so a fresh short-term vector for the same id would be
    # accepted by the collection: the undo must remove that one and never the original.
    await (await s.settled()).records.update_lifecycle(
        [(old.id, old.lifecycle.replace(stage=MemoryStage.LONG_TERM))]
    )
    await (await s.settled()).collections.move(
        [old.id], MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM
    )
    results = await asyncio.gather(
        s.controller.remember("Ana likes tea"),
        s.controller.remember("someone else's text", memory_id="m-old"),
        s.controller.remember("Bruno likes coffee"),
        return_exceptions=True,
    )
    assert isinstance(results[1], DuplicateIdError)
    assert not isinstance(results[0], BaseException)
    assert not isinstance(results[2], BaseException)
    (kept,) = await (await s.settled()).records.get(["m-old"])
    assert kept.text == "Rui keeps bees"
    assert kept.lifecycle.stage is MemoryStage.LONG_TERM
    assert await (await s.settled()).collections.count(MemoryStage.LONG_TERM) == 1
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == 2
    assert await (await s.settled()).records.count() == 3
    assert s.controller.failures() == []


@pytest.mark.parametrize("n", [1, 5])
async def test_remember_results_equal_with_and_without_company(make_stack: Factory, n: int) -> None:
    s = await make_stack()
    records = await asyncio.gather(
        *(s.controller.remember(f"fact {i}", kind="preference") for i in range(n))
    )
    stored = await (await s.settled()).records.get([r.id for r in records])
    assert stored == list(records)
