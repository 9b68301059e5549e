"""What the companion added below it: Runtime.blocks(), recall(sources=), apply_extraction."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

import remem
from remem.blocks import BlockEdit
from remem.controller import ExtractedMemory, ExtractionResult
from remem.errors import InvalidArgumentError, StoreClosedError
from remem.models import ManualClock


async def test_runtime_blocks_persist_across_reopen(tmp_path: Path, clock: ManualClock) -> None:
    async with remem.Runtime.open(tmp_path, clock=clock) as rt:
        blocks = await rt.blocks("ada")
        await blocks.apply("user", [BlockEdit.add("Name is Ada")])
        assert await rt.block_store.labels("ada") == ["user"]
    with pytest.raises(StoreClosedError):
        _ = rt.block_store
    async with remem.Runtime.open(tmp_path, clock=clock) as rt:
        assert (await rt.blocks("ada")).block("user").entries == ("Name is Ada",)
        assert (await rt.blocks("bob")).block("user").entries == ()


async def test_recall_sources_limit_the_retrievers(runtime: remem.Runtime) -> None:
    controller = runtime.controller
    await controller.remember("Ana lives in Lisbon near the castle")
    hybrid = await controller.recall("Ana Lisbon castle")
    assert "vector" in hybrid[0].sources
    only_text = await controller.recall("Ana Lisbon castle", sources=["fulltext"])
    assert only_text
    assert all(h.sources == ("fulltext",) for h in only_text)
    only_vector = await controller.recall("Ana Lisbon castle", sources=["vector"])
    assert only_vector
    assert all(h.sources == ("vector",) for h in only_vector)
    for bad in (["bm25"], [], "fulltext"):
        with pytest.raises(InvalidArgumentError):
            await controller.recall("Ana", sources=bad)


async def test_apply_extraction_returns_the_new_records(
    runtime: remem.Runtime, clock: ManualClock
) -> None:
    controller = runtime.controller
    entry = await controller.record_turn("s1", "I moved to Lisbon", "Nice!")
    clock.advance(timedelta(minutes=1))
    result = ExtractionResult(
        memories=(
            ExtractedMemory(
                "The user lives in Lisbon.", subject="User", attribute="City", value="Lisbon"
            ),
        )
    )
    (record,) = await controller.apply_extraction(result, [entry])
    assert record.metadata == {"subject": "user", "attribute": "city", "value": "Lisbon"}
    assert record.provenance.parent_ids == (entry.id,)
    other = await controller.record_turn("s2", "hi", "hello")
    with pytest.raises(InvalidArgumentError, match="one session"):
        await controller.apply_extraction(result, [entry, other])
    with pytest.raises(InvalidArgumentError):
        await controller.apply_extraction(result, [])
