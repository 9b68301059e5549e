"""GraphScorer on the real DuckDB graph store: paths, time validity, relevance, usage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from remem.errors import ConfigError
from remem.graph import (
    EntityResolver,
    GraphHit,
    GraphScorer,
    GraphScorerConfig,
    QueryEntityMatcher,
    render_relationship,
)
from remem.models import ManualClock
from remem.stores import GraphStore
from tests.stores.factories import T0, entity, rel

MAY = datetime(2024, 5, 1, tzinfo=UTC)


@pytest.fixture
async def family(graph: GraphStore) -> GraphStore:
    await graph.upsert_entities(
        [
            entity("Ana", entity_type="person"),
            entity("Maria", entity_type="person"),
            entity("Acme", entity_type="org"),
            entity("Lisbon", entity_type="place"),
            entity("Porto", entity_type="place"),
        ]
    )
    await graph.add_relationships(
        [
            rel("r1", "ana", "maria", relation_type="sister_of", valid_from=MAY),
            rel("r2", "maria", "acme", relation_type="works_at"),
            rel("r3", "ana", "porto", relation_type="lives_in", valid_to=T0),  # moved away
            rel("r4", "ana", "lisbon", relation_type="lives_in", valid_from=T0),
        ]
    )
    return graph


async def hits_for(
    graph: GraphStore,
    clock: ManualClock,
    query: str,
    *,
    at: datetime | None = None,
    limit: int | None = None,
) -> list[GraphHit]:
    mentions = await QueryEntityMatcher(EntityResolver(graph)).match(query)
    return await GraphScorer(graph, clock=clock).score(query, mentions, at=at, limit=limit)


async def test_paths_ranked_and_rendered(family: GraphStore, clock: ManualClock) -> None:
    clock.advance(timedelta(days=1))
    hits = await hits_for(family, clock, "Who is Ana's sister?")
    assert [(h.entity.id, h.depth) for h in hits] == [("maria", 1), ("lisbon", 1), ("acme", 2)]
    top = hits[0]
    # match 1 × hop 1 × relevance 0.5 + 0.5 × |{sister}| / |{sister, maria}| × usage 1
    assert top.score == pytest.approx(0.75)
    assert "shared: sister" in top.explanation
    assert top.facts() == ["Ana —sister_of→ Maria (since 2024-05-01)"]
    assert hits[1].score == pytest.approx(0.5)
    assert hits[2].facts() == ["Ana —sister_of→ Maria (since 2024-05-01)", "Maria —works_at→ Acme"]
    assert [e.id for e in hits[2].nodes] == ["ana", "maria", "acme"]
    # two hops; the path's words {sister, maria, works, acme} share "sister": 0.5 × 0.625
    assert hits[2].score == pytest.approx(0.5 * (0.5 + 0.5 / 4))


async def test_expired_and_superseded_excluded(family: GraphStore, clock: ManualClock) -> None:
    before = await hits_for(family, clock, "Ana", at=T0 - timedelta(days=1))
    assert "porto" in {h.entity.id for h in before}
    assert "lisbon" not in {h.entity.id for h in before}
    await family.add_relationships([rel("r5", "ana", "maria", relation_type="friend_of")])
    await family.supersede_relationship("r1", "r5", at=T0)
    after = await hits_for(family, clock, "Ana sister", at=T0 + timedelta(days=1))
    by_id = {h.entity.id: h for h in after}
    assert "porto" not in by_id
    assert by_id["maria"].facts() == ["Ana —friend_of→ Maria"]


class _SupersedesBetweenReads:
    """The graph store, with ``r4`` superseded right after the neighbours are read — what a
    background extraction's supersession can do while a recall is scoring the graph."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    async def neighbours(self, *args: object, **kwargs: object) -> object:
        found = await self._store.neighbours(*args, **kwargs)  # type: ignore[arg-type]
        await self._store.add_relationships([rel("r7", "ana", "porto", relation_type="lives_in")])
        await self._store.supersede_relationship("r4", "r7", at=T0)
        return found


async def test_a_path_ended_between_the_reads_is_left_out(
    family: GraphStore, clock: ManualClock
) -> None:
    racing = _SupersedesBetweenReads(family)
    mentions = await QueryEntityMatcher(EntityResolver(family)).match("where does Ana live")
    scorer = GraphScorer(racing, clock=clock)  # type: ignore[arg-type]
    hits = await scorer.score("where does Ana live", mentions, at=T0 + timedelta(days=1))
    assert {h.entity.id for h in hits} == {"maria", "acme"}  # Lisbon's edge ended mid-score


async def test_usage_prior_breaks_ties_only(family: GraphStore, clock: ManualClock) -> None:
    await family.add_relationships(
        [rel("r6", "ana", "porto", relation_type="lives_in", valid_from=T0)]
    )
    await family.record_access({"porto": 1000})
    hits = await hits_for(family, clock, "where does Ana live", at=T0 + timedelta(days=1))
    by_id = {h.entity.id: h for h in hits}
    assert by_id["porto"].score == pytest.approx(by_id["lisbon"].score * 1.1)
    assert "usage, not truth" in by_id["porto"].explanation
    assert hits[0].entity.id == "porto"
    sister = await hits_for(family, clock, "Ana sister", at=T0 + timedelta(days=1))
    assert sister[0].entity.id == "maria"  # relevance outranks a heavily used neighbour


async def test_no_mentions_no_hits(family: GraphStore, clock: ManualClock) -> None:
    assert await hits_for(family, clock, "nothing here") == []
    await family.upsert_entities([entity("Loner")])
    assert await hits_for(family, clock, "Loner") == []
    assert len(await hits_for(family, clock, "Ana", limit=1)) == 1


def test_render_and_config() -> None:
    r = rel("x", "a", "b", relation_type="ceo_of", valid_from=MAY, valid_to=MAY + timedelta(days=9))
    assert render_relationship(r, {"a": "Ana"}) == "Ana —ceo_of→ b (2024-05-01 to 2024-05-10)"
    until = rel("y", "a", "b", valid_to=MAY)
    assert render_relationship(until, {}) == "a —knows→ b (until 2024-05-01)"
    for bad in ({"depth": 0}, {"hop_decay": 1.5}, {"usage_weight": -0.1}, {"limit": 0}):
        with pytest.raises(ConfigError):
            GraphScorerConfig(**bad)
