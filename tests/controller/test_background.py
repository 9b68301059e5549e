"""Extraction scheduling, background failures, compensation and shutdown on real stores."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from remem.controller import ControllerConfig, ExtractedMemory, ExtractionConfig, ExtractionResult
from remem.controller.extraction import ExtractionContext
from remem.errors import BackendError, DuplicateIdError
from remem.models import MemoryStage, TranscriptEntry
from remem.stores.hnsw import HnswVectorStore
from tests.controller.conftest import Factory, ListExtractor


def every(n: int, drain: float = 30.0) -> ControllerConfig:
    return ControllerConfig(extraction=ExtractionConfig(interval=n, drain_timeout=drain))


async def test_extraction_runs_every_interval_turns(make_stack: Factory) -> None:
    ex = ListExtractor(ExtractionResult(memories=(ExtractedMemory("Ana likes jazz"),)))
    s = await make_stack(extractor=ex, config=every(2))
    t1 = await s.controller.record_turn("s1", "hi", "hello")
    await s.controller.record_turn("s2", "other session", "ok")
    t2 = await s.controller.record_turn("s1", "I like jazz", "noted")
    assert t2.turn_number == 2
    await s.controller._extraction.join()
    assert ex.seen == [[t1.id, t2.id]]  # s2 has a partial window
    assert s.controller.pending_extraction == 1
    hits = await s.controller.recall("jazz", stages=["short_term"])
    assert hits[0].record.provenance.source_type == "extraction"
    assert hits[0].record.session_id == "s1"


async def test_failed_extraction_is_visible_and_turns_persist(make_stack: Factory) -> None:
    s = await make_stack(extractor=ListExtractor(fail=True))
    t1 = await s.controller.record_turn("s1", "remember my locker code", "ok")
    t2 = await s.controller.record_turn("s1", "it is 4512", "got it")
    await s.controller.flush_extraction()
    failures = s.controller.failures()
    assert [f.operation for f in failures] == ["extraction", "extraction"]
    assert [f.ids for f in failures] == [(t1.id,), (t2.id,)]
    assert "extractor exploded" in failures[0].message
    entries = await (await s.settled()).transcript.get_entries("s1")
    assert [e.id for e in entries] == [t1.id, t2.id]
    hits = await s.controller.recall("locker code", stages=["episodic"])
    assert hits[0].record.id == t1.id


async def test_aclose_drains_partial_windows(make_stack: Factory) -> None:
    ex = ListExtractor()
    s = await make_stack(extractor=ex, config=every(5))
    t1 = await s.controller.record_turn("s1", "one", "")
    t2 = await s.controller.record_turn("s1", "two", "")
    await s.controller.aclose()
    assert ex.seen == [[t1.id, t2.id]]
    assert s.controller.failures() == []


class SlowExtractor:
    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        await asyncio.sleep(60)
        return ExtractionResult()


async def test_aclose_records_unfinished_batches_with_turn_ids(make_stack: Factory) -> None:
    s = await make_stack(extractor=SlowExtractor(), config=every(1, drain=0.05))
    t1 = await s.controller.record_turn("s1", "one", "")
    t2 = await s.controller.record_turn("s1", "two", "")
    await s.controller.aclose()
    ids = sorted(i for f in s.controller.failures() for i in f.ids)
    assert ids == sorted([t1.id, t2.id])
    assert {f.operation for f in s.controller.failures()} == {"extraction"}


class FailingAddStore(HnswVectorStore):
    async def add(
        self,
        collection: str,
        ids: Sequence[str],
        vectors: NDArray[np.float32] | Sequence[Sequence[float]],
        **kw: object,
    ) -> None:
        raise BackendError("disk full (simulated)")


async def test_remember_is_all_or_nothing(make_stack: Factory, tmp_path: Path) -> None:
    s = await make_stack(vectors=FailingAddStore(tmp_path / "failing"))
    with pytest.raises(BackendError):
        await s.controller.remember("Ana lives in Lisbon", memory_id="m1")
    assert await (await s.settled()).records.count() == 0
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == 0
    assert await (await s.settled()).episodic.search("Ana Lisbon") == []
    assert s.controller.failures() == []  # the compensation itself succeeded


async def test_episodic_failure_compensates_record_and_vector(make_stack: Factory) -> None:
    s = await make_stack()
    await (await s.settled()).episodic.add_note("m1", "something else", created_at=s.clock.now())
    with pytest.raises(DuplicateIdError):
        await s.controller.remember("Ana lives in Lisbon", memory_id="m1")
    assert await (await s.settled()).records.count() == 0
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == 0


async def test_reopened_session_continues_turn_numbers(make_stack: Factory) -> None:
    s = await make_stack()
    await s.controller.record_turn("s1", "a", "b")
    await s.controller.record_turn("s1", "c", "d")
    s.controller._turns.clear()  # as in a new process
    t = await s.controller.record_turn("s1", "e", "f")
    assert t.turn_number == 3


async def test_concurrent_turns_get_distinct_numbers(make_stack: Factory) -> None:
    s = await make_stack()
    turns = await asyncio.gather(*(s.controller.record_turn("s1", f"m{i}") for i in range(8)))
    assert sorted(t.turn_number for t in turns) == list(range(1, 9))
