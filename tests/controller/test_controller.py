"""MemoryController on real embedded stores: remember/recall, hybrid signals, lifecycle filters."""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import pytest

from remem.controller import (
    ControllerConfig,
    ExtractedEntity,
    ExtractedMemory,
    ExtractedRelationship,
    ExtractionResult,
)
from remem.controller.config import DEFAULT_FUSION
from remem.errors import InvalidArgumentError, NonFiniteError, NotFoundError, ShapeError
from remem.models import MemoryStage
from tests.controller.conftest import Factory, ListExtractor


async def test_bare_remember_then_recall_round_trip(make_stack: Factory) -> None:
    s = await make_stack()
    rec = await s.controller.remember("Ana lives in Lisbon near the river")
    assert rec.lifecycle.stage is MemoryStage.SHORT_TERM
    assert rec.lifecycle.base_score == 1.0
    assert rec.provenance.source_type == "user"
    assert rec.lifecycle.created_at == s.clock.now()
    await s.controller.remember("Bruno plays tennis on Sundays")
    hits = await s.controller.recall("where does Ana live?")
    assert hits[0].record.id == rec.id
    top = hits[0]
    assert set(top.sources) == {"vector", "fulltext"}  # fused under one key
    for name in ("vector", "fulltext", "fusion", "recency", "usage", "inclusion"):
        assert name in top.signals, name
    assert {"rrf": "rrf", "weighted": "weighted", "linear": "linear"}[DEFAULT_FUSION] in (
        top.explanation
    )
    assert "recency" in top.explanation
    # "where does … live" asks for a place and the memory names Lisbon: the answer-type prior
    # (on by default, boost 2) multiplies it by 3.
    assert top.signals["answer_type"] == 3.0
    assert top.score == pytest.approx(
        top.signals["fusion"]
        * top.signals["recency"]
        * top.signals["usage"]
        * top.signals["answer_type"]
    )


async def test_turns_and_graph_are_synthetic_results(make_stack: Factory) -> None:
    result = ExtractionResult(
        entities=(ExtractedEntity("Ana", "person"), ExtractedEntity("Maria", "person")),
        relationships=(ExtractedRelationship("Ana", "sister_of", "Maria"),),
        memories=(ExtractedMemory("Ana has a sister called Maria", entities=("Ana",)),),
    )
    s = await make_stack(extractor=ListExtractor(result))
    turn = await s.controller.record_turn("s1", "My sister Maria visits soon", "How nice!")
    await s.controller.flush_extraction()
    assert s.controller.failures() == []
    hits = await s.controller.recall("who is Ana's sister? she visits soon", k=10)
    by_source = {h.record.metadata.get("source"): h for h in hits}
    graph = by_source["graph"]
    assert graph.sources == ("graph",)
    assert "Ana —sister_of→ Maria" in graph.record.text
    assert graph.record.id.startswith("graph:")
    t = by_source["turn"]
    assert t.record.id == turn.id
    assert t.record.lifecycle.stage is MemoryStage.EPISODIC
    assert t.record.text == "user: My sister Maria visits soon\nassistant: How nice!"
    assert t.record.session_id == "s1"
    extracted = [h for h in hits if h.record.provenance.source_type == "extraction"]
    assert extracted
    assert extracted[0].record.provenance.parent_ids == (turn.id,)
    assert extracted[0].record.entity_ids  # linked to Ana


async def test_keyed_facts_and_exclusive_edges_keep_their_keys(make_stack: Factory) -> None:
    result = ExtractionResult(
        relationships=(ExtractedRelationship("user", "lives_in", "Lisbon", exclusive=True),),
        memories=(
            ExtractedMemory(
                "The user lives in Lisbon", subject=" User", attribute="City ", value="Lisbon"
            ),
            ExtractedMemory("The user likes rain"),
        ),
    )
    s = await make_stack(extractor=ListExtractor(result))
    await s.controller.record_turn("s1", "I moved to Lisbon", "Welcome!")
    await s.controller.flush_extraction()
    assert s.controller.failures() == []
    hits = await s.controller.recall("the user lives in Lisbon and likes rain", k=10)
    extracted = {
        h.record.text: h.record for h in hits if h.record.provenance.source_type == "extraction"
    }
    keyed = extracted["The user lives in Lisbon"]
    assert keyed.metadata["subject"] == "user"
    assert keyed.metadata["attribute"] == "city"
    assert keyed.metadata["value"] == "Lisbon"
    assert "attribute" not in extracted["The user likes rain"].metadata
    [user] = await s.graph.find_entities("user")
    [edge] = await s.graph.relationships(user.id)
    assert edge.attributes == {"exclusive": True}


async def test_superseded_never_recalled_but_kept(make_stack: Factory) -> None:
    s = await make_stack()
    old = await s.controller.remember("Ana lives in Porto")
    new = await s.controller.remember("Ana lives in Lisbon now")
    await s.controller.supersede(old.id, new.id)
    ids = [h.record.id for h in await s.controller.recall("where does Ana live", k=10)]
    assert new.id in ids
    assert old.id not in ids
    (kept,) = await (await s.settled()).records.get([old.id])
    assert kept.superseded_by == new.id
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == 1


async def test_decayed_excluded_unless_asked(make_stack: Factory) -> None:
    s = await make_stack()
    rec = await s.controller.remember("Ana once owned a red bicycle")
    await (await s.settled()).records.update_lifecycle(
        [(rec.id, rec.lifecycle.replace(stage=MemoryStage.DECAYED))]
    )
    await (await s.settled()).collections.move(
        [rec.id], MemoryStage.SHORT_TERM, MemoryStage.DECAYED
    )
    assert await s.controller.recall("Ana red bicycle") == []
    hits = await s.controller.recall("Ana red bicycle", include_decayed=True)
    assert [h.record.id for h in hits] == [rec.id]


async def test_forget_moves_to_deleted(make_stack: Factory) -> None:
    s = await make_stack()
    rec = await s.controller.remember("the wifi password is on the fridge")
    assert await s.controller.forget([rec.id]) == 1
    assert await s.controller.recall("wifi password fridge") == []
    (gone,) = await (await s.settled()).records.get([rec.id])
    assert gone.lifecycle.stage is MemoryStage.DELETED
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == 0
    assert await s.controller.forget([rec.id]) == 0  # idempotent
    with pytest.raises(NotFoundError):
        await s.controller.forget(["nope"])


async def test_filters_and_stages(make_stack: Factory) -> None:
    s = await make_stack()
    a = await s.controller.remember("Ana prefers green tea", kind="preference")
    b = await s.controller.remember("Ana drank green tea yesterday", kind="event")
    await s.controller.record_turn("s1", "green tea or coffee?", "green tea please")
    hits = await s.controller.recall("green tea", filters={"kind": "preference"})
    assert [h.record.id for h in hits] == [a.id]
    hits = await s.controller.recall("green tea", stages=["short_term"])
    assert {h.record.id for h in hits} == {a.id, b.id}
    hits = await s.controller.recall("green tea", stages=["episodic"])
    assert [h.record.lifecycle.stage for h in hits] == [MemoryStage.EPISODIC]
    assert await s.controller.recall("green tea", stages=["episodic"], session_id="other") == []


async def test_recall_many_equals_recall(make_stack: Factory) -> None:
    s = await make_stack()
    for text in ("Ana lives in Lisbon", "Bruno works as a chef", "Carla has a cat", "tea time"):
        await s.controller.remember(text)
    await s.controller.record_turn("s1", "Bruno cooked dinner", "it was great")
    queries = ["where does Ana live", "Bruno chef dinner", "cat", "nothing matches zzz"]
    many = await s.controller.recall_many(queries, k=3)
    for q, batch in zip(queries, many, strict=True):
        single = await s.controller.recall(q, k=3)
        assert [(h.record.id, h.score) for h in batch] == [(h.record.id, h.score) for h in single]
    vecs = np.stack(
        [await (await s.settled()).collections.embeddings.embed_query(q) for q in queries]
    )
    with_vectors = await s.controller.recall_many(queries, vectors=vecs, k=3)
    assert [[h.record.id for h in r] for r in with_vectors] == [
        [h.record.id for h in r] for r in many
    ]


async def test_injected_clock_drives_recency(make_stack: Factory) -> None:
    s = await make_stack()
    await s.controller.remember("Ana lives in Lisbon")
    s.clock.advance(timedelta(hours=48))
    (hit,) = await s.controller.recall("Ana Lisbon", k=1)
    assert hit.signals["age_hours"] == pytest.approx(48.0)
    # bounded: 1 − a + a·exp(−rate·h), never below 1 − a (remem.controller.stages.recency)
    a = ControllerConfig().stages.recency.weight
    assert hit.signals["recency"] == pytest.approx(1 - a + a * math.exp(-0.005 * 48))


async def test_bad_input_is_typed_and_changes_nothing(make_stack: Factory) -> None:
    s = await make_stack()
    await s.controller.remember("a first memory")
    before = await (await s.settled()).records.count()
    dim = s.collections.embeddings.dimension
    bad_calls = [
        (InvalidArgumentError, s.controller.remember("")),
        (InvalidArgumentError, s.controller.remember("   ")),
        (InvalidArgumentError, s.controller.remember("nul \x00 byte")),
        (InvalidArgumentError, s.controller.remember("lone \ud800")),
        (InvalidArgumentError, s.controller.remember("x", kind="gossip")),
        (InvalidArgumentError, s.controller.remember("x", entities="Ana")),
        (NonFiniteError, s.controller.remember("x", vector=[float("nan")] * dim)),
        (ShapeError, s.controller.remember("x", vector=[0.1] * (dim - 1))),
        (InvalidArgumentError, s.controller.recall("")),
        (InvalidArgumentError, s.controller.recall("q", k=0)),
        (InvalidArgumentError, s.controller.recall("q", stages=["deleted"])),
        (InvalidArgumentError, s.controller.recall("q", stages=["forever"])),
        (InvalidArgumentError, s.controller.record_turn("s1", "", "")),
        (InvalidArgumentError, s.controller.supersede("a", "a")),
        (NotFoundError, s.controller.supersede("a", "b")),
    ]
    for error, call in bad_calls:
        with pytest.raises(error):
            await call
    assert await (await s.settled()).records.count() == before
    assert await (await s.settled()).collections.count(MemoryStage.SHORT_TERM) == before
    assert (
        await (await s.settled()).episodic.search("x first memory nul lone", limit=10) != []
    )  # only the first
    assert len(await (await s.settled()).episodic.search("x nul lone byte", limit=10)) == 0
