"""Extraction output lands in its namespace; graph retrieval looks in the recall's namespace."""

from __future__ import annotations

import pytest

from remem.controller import (
    ExtractedEntity,
    ExtractedMemory,
    ExtractedRelationship,
    ExtractionResult,
)
from remem.errors import InvalidArgumentError
from remem.models import TranscriptEntry
from tests.controller.conftest import Factory, Stack


def lives_in(city: str) -> ExtractionResult:
    return ExtractionResult(
        entities=(ExtractedEntity("user", "person"), ExtractedEntity(city, "place")),
        relationships=(ExtractedRelationship("user", "lives_in", city, exclusive=True),),
        memories=(
            ExtractedMemory(
                f"The user lives in {city}.",
                subject="user",
                attribute="city",
                value=city,
                entities=(city,),
            ),
        ),
    )


async def extract_in(stack: Stack, namespace: str, city: str) -> list[str]:
    entry: TranscriptEntry = await stack.controller.record_turn(
        f"s-{namespace}", f"I live in {city}", "ok"
    )
    records = await stack.controller.apply_extraction(lives_in(city), [entry], namespace=namespace)
    return [r.namespace for r in records]


async def test_extracted_facts_entities_and_edges_carry_the_namespace(
    make_stack: Factory,
) -> None:
    stack = await make_stack()
    assert await extract_in(stack, "A", "Zanzibar") == ["A"]
    assert await extract_in(stack, "B", "Lisbon") == ["B"]
    await stack.settled()
    users = [e for e in await stack.graph.list_entities() if e.name == "user"]
    assert sorted(e.namespace for e in users) == ["A", "B"]  # one user per scope, not shared
    for ns, city in (("A", "Zanzibar"), ("B", "Lisbon")):
        names = {e.name for e in await stack.graph.list_entities(namespace=ns)}
        assert names == {"user", city}
        user = next(e for e in users if e.namespace == ns)
        edges = await stack.graph.relationships(user.id, direction="out")
        assert [(r.relation_type, r.namespace) for r in edges] == [("lives_in", ns)]
        facts = await stack.records.keyed_facts(namespace=ns)
        assert [f.text for f in facts] == [f"The user lives in {city}."]


async def test_apply_extraction_defaults_to_the_session_namespace(make_stack: Factory) -> None:
    stack = await make_stack()
    entry = await stack.controller.record_turn("s1", "I live in Oslo", "ok")
    records = await stack.controller.apply_extraction(lives_in("Oslo"), [entry])
    assert [r.namespace for r in records] == ["default"]  # the session's (created as default)


async def test_graph_retrieval_in_b_sees_only_b_entities(make_stack: Factory) -> None:
    stack = await make_stack()
    await extract_in(stack, "A", "Zanzibar")
    await extract_in(stack, "B", "Lisbon")
    query = "tell me about Zanzibar and Lisbon"

    async def graph_ids(namespace: str) -> set[str]:
        hits = await stack.controller.recall(
            query, k=10, filters={"namespace": namespace}, sources=["graph"]
        )
        return {h.record.text for h in hits}

    seen_by_b = await graph_ids("B")
    assert any("Lisbon" in t for t in seen_by_b)  # B's own graph is searched, not "default"'s
    assert not any("Zanzibar" in t for t in seen_by_b)
    seen_by_a = await graph_ids("A")
    assert any("Zanzibar" in t for t in seen_by_a)
    assert not any("Lisbon" in t for t in seen_by_a)


async def test_supersede_across_namespaces_is_refused(make_stack: Factory) -> None:
    stack = await make_stack()
    a = await stack.controller.remember("The user lives in Zanzibar.", namespace="A")
    b = await stack.controller.remember("The user lives in Lisbon.", namespace="B")
    with pytest.raises(InvalidArgumentError, match="superseded within its namespace"):
        await stack.controller.supersede(a.id, b.id)
    (kept,) = await (await stack.controller.settled()).records.get([a.id])
    assert kept.superseded_by is None
