"""merge_duplicates on real stores: the resolver's notion of "the same entity"."""

from __future__ import annotations

from datetime import timedelta

import remem
from remem.consolidation import MemoryConsolidator
from remem.graph.index import MERGED_INTO
from remem.models import Entity, Relationship
from tests.consolidation.conftest import T0


def ent(eid: str, name: str, minutes: int, etype: str = "person") -> Entity:
    at = T0 + timedelta(minutes=minutes)
    return Entity(id=eid, name=name, entity_type=etype, created_at=at, updated_at=at)


async def test_duplicates_merge_into_the_oldest_and_guards_hold(rt: remem.Runtime) -> None:
    c = rt.controller
    graph = (await c.settled()).graph
    await graph.upsert_entities(
        [
            ent("e-ana", "Ana", 0),
            ent("e-ana2", "ana", 1),
            ent("e-ana3", "Ana ", 2),
            ent("e-anna", "Anna", 3),  # short names only ever match exactly
            ent("e-jon", "Jonathan Smith", 4),
            ent("e-jon2", "Johnathan Smith", 5),  # one-letter typo: fuzzy match
            ent("e-py311", "Python 3.11", 6, "language"),
            ent("e-py312", "Python 3.12", 7, "language"),  # version guard
            ent("e-ana-org", "ANA", 8, "org"),  # another type never merges
            ent("e-lisbon", "Lisbon", 9, "place"),
        ]
    )
    lives = Relationship(
        id="r-lives",
        source_id="e-ana2",
        target_id="e-lisbon",
        relation_type="lives_in",
        attributes={"exclusive": True},
        valid_from=T0 - timedelta(days=3),
        created_at=T0,
    )
    await graph.add_relationships([lives])
    consolidator = MemoryConsolidator(c)

    merges = await consolidator.merge_duplicates()

    assert sorted((m.merged_id, m.kept_id) for m in merges) == [
        ("e-ana2", "e-ana"),
        ("e-ana3", "e-ana"),
        ("e-jon2", "e-jon"),
    ]
    moved = next(m for m in merges if m.merged_id == "e-ana2").relationships
    assert len(moved) == 1
    assert moved[0][0] == "r-lives"
    (kept,) = await graph.get_entities(["e-jon"])
    assert "Johnathan Smith" in kept.aliases
    dup, py312 = await graph.get_entities(["e-ana2", "e-py312"])
    assert dup.attributes[MERGED_INTO] == "e-ana"  # kept, marked, not deleted
    assert MERGED_INTO not in py312.attributes
    # The relationship now hangs off the kept entity with its validity; the original is history.
    (copy,) = await graph.relationships("e-ana")
    assert (copy.target_id, copy.valid_from, copy.attributes) == (
        "e-lisbon",
        lives.valid_from,
        {"exclusive": True},
    )
    assert await graph.relationships("e-ana2") == []
    (old,) = await graph.relationships("e-ana2", include_superseded=True)
    assert old.superseded_by == copy.id
    # The resolver now sends every spelling to the kept entity.
    for name in ("ana", "Ana ", "Johnathan Smith"):
        found = await c.resolver.resolve(name, "person")
        assert found.entity_id in {"e-ana", "e-jon"}
        assert not found.is_new
    assert (await c.resolver.resolve("Python 3.12", "language")).entity_id == "e-py312"
    # Idempotent.
    before = await graph.list_entities()
    assert await consolidator.merge_duplicates() == []
    assert await graph.list_entities() == before


async def test_consolidate_merges_before_checking_exclusivity(rt: remem.Runtime) -> None:
    graph = (await rt.controller.settled()).graph
    await graph.upsert_entities(
        [
            ent("e-ana", "Ana", 0),
            ent("e-ana2", "ana", 1),
            ent("e-acme", "Acme", 2, "org"),
            ent("e-globex", "Globex", 3, "org"),
        ]
    )
    await graph.add_relationships(
        [
            Relationship(
                id=f"r-{target}",
                source_id=source,
                target_id=f"e-{target}",
                relation_type="works_at",
                attributes={"exclusive": True},
                created_at=T0 + timedelta(days=day),
            )
            for source, target, day in (("e-ana", "acme", 0), ("e-ana2", "globex", 7))
        ]
    )
    report = await MemoryConsolidator(rt.controller).consolidate()
    assert [(m.merged_id, m.kept_id) for m in report.merges] == [("e-ana2", "e-ana")]
    (works,) = [s for s in report.supersessions if s.kind == "relationship"]
    assert (works.old_id, works.new_value) == ("r-acme", "e-globex")
    (live,) = await graph.relationships("e-ana")
    assert live.target_id == "e-globex"
    again = await MemoryConsolidator(rt.controller).consolidate()
    assert not again.changed
