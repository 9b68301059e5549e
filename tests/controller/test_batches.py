"""remember_many and record_turns on real stores: all-or-nothing, and equal to per-call writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from remem.controller import MemorySpec
from remem.errors import BackendError, DuplicateIdError, InvalidArgumentError, ShapeError
from remem.models import MemoryKind, MemoryStage
from tests.controller.conftest import Factory, ListExtractor
from tests.controller.test_background import FailingAddStore, every


class CountingEmbedder:
    """Wraps the stack's embedder to count embed_documents calls."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.calls: list[int] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def embed_documents(self, texts: list[str]) -> object:
        self.calls.append(len(texts))
        return await self.inner.embed_documents(texts)  # type: ignore[attr-defined]


async def test_remember_many_writes_every_store_once(make_stack: Factory) -> None:
    s = await make_stack()
    counting = CountingEmbedder(s.collections.embeddings)
    s.collections.embeddings = counting
    records = await s.controller.remember_many(
        [
            "Ana lives in Lisbon",
            MemorySpec("Rui prefers green tea", kind="preference", memory_id="rui"),
            MemorySpec("Ines plays the violin 🎻", session_id="s7", metadata={"src": "chat"}),
        ],
        namespace="family",
    )
    assert counting.calls == [3]
    assert records[0].text == "Ana lives in Lisbon"
    assert records[1].id == "rui"
    assert records[1].kind is MemoryKind.PREFERENCE
    assert records[2].session_id == "s7"
    assert records[2].metadata == {"src": "chat"}
    assert {r.namespace for r in records} == {"family"}
    assert await (await s.settled()).records.count() == 3
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == 3
    assert [h.id for h in await (await s.settled()).episodic.search("violin")] == [records[2].id]
    hits = await s.controller.recall("green tea", stages=["short_term"])
    assert hits[0].record.id == "rui"
    assert await s.controller.remember_many([]) == []


async def test_remember_many_equals_remember(make_stack: Factory) -> None:
    one, many = await make_stack(name="one"), await make_stack(name="many")
    texts = [f"memory {i} about hiking near Porto" for i in range(5)]
    singles = [await one.controller.remember(t, memory_id=f"m{i}") for i, t in enumerate(texts)]
    batch = await many.controller.remember_many(
        [MemorySpec(t, memory_id=f"m{i}") for i, t in enumerate(texts)]
    )
    assert [r.model_dump() for r in batch] == [r.model_dump() for r in singles]
    q = "hiking Porto"
    assert [h.record.id for h in await one.controller.recall(q)] == [
        h.record.id for h in await many.controller.recall(q)
    ]


async def test_remember_many_bad_item_names_its_index_and_writes_nothing(
    make_stack: Factory,
) -> None:
    s = await make_stack()
    bad: list[tuple[type[Exception], list[str | MemorySpec], str]] = [
        (InvalidArgumentError, ["fine", "   "], "item 1"),
        (InvalidArgumentError, ["fine", "ok", "nul\x00"], "item 2"),
        (InvalidArgumentError, [MemorySpec("fine", kind="nope")], "item 0"),
        (InvalidArgumentError, ["fine", 3], "item 1"),  # type: ignore[list-item]
        (
            InvalidArgumentError,
            [MemorySpec("a", memory_id="x"), MemorySpec("b", memory_id="x")],
            "item 1",
        ),
    ]
    for error, items, named in bad:
        with pytest.raises(error, match=named):
            await s.controller.remember_many(items)
    with pytest.raises(InvalidArgumentError):
        await s.controller.remember_many("one string")
    with pytest.raises(ShapeError):
        await s.controller.remember_many(["a", "b"], vectors=np.zeros((1, 4), np.float32))
    assert await (await s.settled()).records.count() == 0
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == 0
    assert await (await s.settled()).episodic.search("fine a b") == []


async def test_remember_many_failing_collection_add_leaves_nothing(
    make_stack: Factory, tmp_path: Path
) -> None:
    s = await make_stack(vectors=FailingAddStore(tmp_path / "failing"))
    with pytest.raises(BackendError):
        await s.controller.remember_many(["Ana lives in Lisbon", "Rui likes tea"])
    assert await (await s.settled()).records.count() == 0
    assert await (await s.settled()).episodic.search("Ana Lisbon Rui tea") == []
    assert s.controller.failures() == []


async def test_remember_many_failing_notes_compensate_records_and_vectors(
    make_stack: Factory,
) -> None:
    s = await make_stack()
    await (await s.settled()).episodic.add_note("m2", "something else", created_at=s.clock.now())
    with pytest.raises(DuplicateIdError):
        await s.controller.remember_many(
            [MemorySpec("Ana lives in Lisbon", memory_id="m1"), MemorySpec("x", memory_id="m2")]
        )
    assert await (await s.settled()).records.count() == 0
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == 0
    assert [h.id for h in await (await s.settled()).episodic.search("Ana Lisbon something")] == [
        "m2"
    ]
    assert s.controller.failures() == []


async def test_record_turns_equals_record_turn_calls(make_stack: Factory) -> None:
    ex_one, ex_many = ListExtractor(), ListExtractor()
    one = await make_stack(name="one", extractor=ex_one, config=every(3))
    many = await make_stack(name="many", extractor=ex_many, config=every(3))
    pairs = [(f"user says word{i}", f"assistant {i}") for i in range(8)]
    await one.controller.record_turn("s0", "before", "x")
    await many.controller.record_turn("s0", "before", "x")
    singles = [await one.controller.record_turn("s0", u, a) for u, a in pairs[:5]]
    singles += [await one.controller.record_turn("s0", u, a) for u, a in pairs[5:]]
    batch = await many.controller.record_turns("s0", pairs[:5])
    batch += await many.controller.record_turns("s0", pairs[5:])
    assert [e.turn_number for e in batch] == [e.turn_number for e in singles] == list(range(2, 10))
    await one.controller._extraction.join()
    await many.controller._extraction.join()
    # Same windows of `interval` turns (turn 1 + the batch), same pending partial window.
    assert [len(w) for w in ex_many.seen] == [len(w) for w in ex_one.seen] == [3, 3, 3]
    assert many.controller.pending_extraction == one.controller.pending_extraction == 0
    assert ex_many.seen[1] == [e.id for e in batch[2:5]]

    def shape(entries: list) -> list[tuple[object, ...]]:  # type: ignore[type-arg]
        return [(e.turn_number, e.user_message, e.assistant_message) for e in entries]

    assert shape(await (await many.settled()).transcript.get_entries("s0")) == shape(
        await (await one.settled()).transcript.get_entries("s0")
    )
    days_one, days_many = (
        await (await one.settled()).episodic.days("s0"),
        await (await many.settled()).episodic.days("s0"),
    )
    assert [shape(d) for d in days_many.values()] == [shape(d) for d in days_one.values()]
    assert [h.id for h in await (await many.settled()).episodic.search("word5")] == [batch[5].id]


async def test_record_turns_new_session_and_bad_turn(make_stack: Factory) -> None:
    s = await make_stack()
    with pytest.raises(InvalidArgumentError, match="turn 1"):
        await s.controller.record_turns("s1", [("fine", "ok"), ("", "  ")])
    with pytest.raises(InvalidArgumentError, match="turn 0"):
        await s.controller.record_turns("s1", [("only one",)])
    with pytest.raises(InvalidArgumentError):
        await s.controller.record_turns("", [("a", "b")])
    assert await (await s.settled()).episodic.search("fine ok") == []
    assert await s.controller.record_turns("s1", []) == []
    entries = await s.controller.record_turns("s1", [("a", "b"), ("c", "")])
    assert [e.turn_number for e in entries] == [1, 2]
    assert [e.id for e in await (await s.settled()).transcript.get_entries("s1")] == [
        e.id for e in entries
    ]
    s.controller._turns.clear()  # as in a new process
    t = await s.controller.record_turn("s1", "e", "f")
    assert t.turn_number == 3
