"""Consolidation never crosses namespaces: contradictions, edge endings, merges (both backends)."""

from __future__ import annotations

from datetime import timedelta

import remem
from remem.consolidation import MemoryConsolidator
from remem.graph.index import MERGED_INTO
from remem.models import Entity, ManualClock
from tests.consolidation.conftest import T0


def key(attribute: str, value: str, subject: str = "user") -> dict[str, object]:
    return {"subject": subject, "attribute": attribute, "value": value}


async def test_a_newer_fact_of_b_never_supersedes_a_fact_of_a(
    rt: remem.Runtime, clock: ManualClock
) -> None:
    c = rt.controller
    a_old = await c.remember("The user lives in Lisbon", namespace="A", metadata=key("city", "L"))
    b_only = await c.remember("The user lives in Oslo", namespace="B", metadata=key("city", "O"))
    clock.advance(timedelta(days=3))
    a_new = await c.remember("The user lives in Porto", namespace="A", metadata=key("city", "P"))
    clock.advance(timedelta(days=3))
    # Newest of all, in B: a shared (namespace-blind) pass would supersede A's current city.
    b_new = await c.remember("The user lives in Faro", namespace="B", metadata=key("city", "F"))

    done = await MemoryConsolidator(c).supersede_contradictions()

    assert sorted((s.old_id, s.new_id) for s in done) == sorted(
        [(a_old.id, a_new.id), (b_only.id, b_new.id)]
    )
    live = await (await c.settled()).records.keyed_facts()
    assert {(r.namespace, r.id) for r in live} == {("A", a_new.id), ("B", b_new.id)}


async def test_same_names_in_two_namespaces_are_never_merged(rt: remem.Runtime) -> None:
    c = rt.controller
    graph = (await c.settled()).graph
    at = T0
    await graph.upsert_entities(
        [
            Entity(id="a-ana", name="Ana", entity_type="person", namespace="A", created_at=at),
            Entity(id="b-ana", name="Ana", entity_type="person", namespace="B", created_at=at),
            Entity(id="b-ana2", name="ana", entity_type="person", namespace="B", created_at=at),
        ]
    )
    merges = await MemoryConsolidator(c).merge_duplicates()
    assert [(m.kept_id, m.merged_id) for m in merges] == [("b-ana", "b-ana2")]
    a_ana, b_ana2 = await graph.get_entities(["a-ana", "b-ana2"])
    assert MERGED_INTO not in a_ana.attributes
    assert b_ana2.attributes[MERGED_INTO] == "b-ana"
