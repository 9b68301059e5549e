"""supersede_contradictions on real stores: keyed facts and exclusive relationships."""

from __future__ import annotations

from datetime import datetime, timedelta

import remem
from remem.consolidation import MemoryConsolidator
from remem.consolidation.contradictions import plan_edge_endings
from remem.models import Entity, ManualClock, MemoryRecord, Relationship
from tests.consolidation.conftest import T0
from tests.stores.factories import record


def key(attribute: str, value: str, subject: str = "user") -> dict[str, object]:
    return {"subject": subject, "attribute": attribute, "value": value}


async def everything(rt: remem.Runtime) -> list[MemoryRecord]:
    return await (await rt.controller.settled()).records.scan(include_superseded=True)


async def test_a_new_city_supersedes_the_old_and_recall_sees_only_it(
    rt: remem.Runtime, clock: ManualClock
) -> None:
    c = rt.controller
    lisbon = await c.remember("The user lives in Lisbon", metadata=key("city", "Lisbon"))
    chess = await c.remember("The user plays chess", metadata=key("hobby", "chess"))
    clock.advance(timedelta(days=30))
    porto = await c.remember("The user moved to Porto", metadata=key("city", "Porto"))
    climbing = await c.remember("The user took up climbing", metadata=key("hobby", "climbing"))
    consolidator = MemoryConsolidator(c)

    done = await consolidator.supersede_contradictions()

    assert [(s.kind, s.old_id, s.new_id) for s in done] == [("record", lisbon.id, porto.id)]
    assert (done[0].subject, done[0].attribute) == ("user", "city")
    assert (done[0].old_value, done[0].new_value) == ("Lisbon", "Porto")
    assert not done[0].is_restatement
    old, new, *hobbies = await (await c.settled()).records.get(
        [lisbon.id, porto.id, chess.id, climbing.id]
    )
    assert old.text == lisbon.text  # kept, not deleted
    assert old.superseded_by == porto.id
    assert old.valid_to == porto.lifecycle.created_at == T0 + timedelta(days=30)
    assert new.superseded_by is None
    assert new.valid_to is None
    assert all(h.superseded_by is None for h in hobbies)  # multi-valued: no contradiction
    hits = [h.record.id for h in await c.recall("where does the user live, Lisbon or Porto?")]
    assert porto.id in hits
    assert lisbon.id not in hits
    # Idempotent: nothing more to do, nothing changes.
    before = await everything(rt)
    assert await consolidator.supersede_contradictions() == []
    assert await everything(rt) == before


async def test_validity_time_orders_facts_not_insertion(
    rt: remem.Runtime, clock: ManualClock
) -> None:
    c = rt.controller
    porto = await c.remember("The user lives in Porto", metadata=key("city", "Porto"))
    clock.advance(timedelta(days=5))
    # Told today, about years ago: it must not replace the current city.
    faro = await c.remember(
        "The user lived in Faro",
        metadata=key("city", "Faro"),
        valid_from=T0 - timedelta(days=900),
    )
    done = await MemoryConsolidator(c).supersede_contradictions()
    assert [(s.old_id, s.new_id) for s in done] == [(faro.id, porto.id)]
    old_faro, live_porto = await (await c.settled()).records.get([faro.id, porto.id])
    assert live_porto.superseded_by is None
    assert old_faro.superseded_by == porto.id
    assert old_faro.valid_to == T0


async def test_chains_restatements_and_the_records_filter(
    rt: remem.Runtime, clock: ManualClock
) -> None:
    c = rt.controller
    ids = []
    for i, city in enumerate(["Lisbon", "Porto", "Porto"]):
        clock.set(T0 + timedelta(days=i))
        ids.append((await c.remember(f"The user is in {city}", metadata=key("city", city))).id)
    ana = await c.remember("Ana works at Acme", metadata=key("employer", "Acme", "ana"))
    clock.set(T0 + timedelta(days=9))
    ana2 = await c.remember("Ana works at Globex", metadata=key("employer", "Globex", "ana"))
    consolidator = MemoryConsolidator(c)
    # Limited to Ana's key: the user's city is left for later.
    only_ana = await consolidator.supersede_contradictions(records=[ana2])
    assert [(s.old_id, s.new_id) for s in only_ana] == [(ana.id, ana2.id)]
    done = await consolidator.supersede_contradictions()
    assert [(s.old_id, s.new_id, s.is_restatement) for s in done] == [
        (ids[0], ids[1], False),
        (ids[1], ids[2], True),  # the same value again: the older copy is superseded
    ]
    first, second, third = await (await c.settled()).records.get(ids)
    assert (first.valid_to, second.valid_to) == (T0 + timedelta(days=1), T0 + timedelta(days=2))
    assert third.superseded_by is None


async def test_exclusive_relationship_superseded_and_history_kept(
    rt: remem.Runtime, clock: ManualClock
) -> None:
    graph = (await rt.controller.settled()).graph
    await graph.upsert_entities(
        [
            Entity(id=f"e-{n}", name=n, created_at=T0, updated_at=T0)
            for n in ("ana", "acme", "globex", "jazz", "tea")
        ]
    )
    t1 = T0 + timedelta(days=40)

    def edge(rid: str, target: str, rtype: str, at: datetime, exclusive: bool) -> Relationship:
        return Relationship(
            id=rid,
            source_id="e-ana",
            target_id=target,
            relation_type=rtype,
            attributes={"exclusive": True} if exclusive else {},
            created_at=at,
        )

    await graph.add_relationships(
        [
            edge("r-new", "e-globex", "works_at", t1, True),  # inserted first, valid later
            edge("r-old", "e-acme", "works_at", T0, True),
            edge("r-jazz", "e-jazz", "likes", T0, False),
            edge("r-tea", "e-tea", "likes", t1, False),
        ]
    )
    consolidator = MemoryConsolidator(rt.controller)
    done = await consolidator.supersede_contradictions()
    assert [(s.kind, s.old_id, s.new_id) for s in done] == [("relationship", "r-old", "r-new")]
    assert (done[0].old_value, done[0].new_value) == ("e-acme", "e-globex")
    live = {r.id for r in await graph.relationships("e-ana")}
    assert live == {"r-new", "r-jazz", "r-tea"}
    history = {r.id: r for r in await graph.relationships("e-ana", include_superseded=True)}
    assert history["r-old"].superseded_by == "r-new"
    assert history["r-old"].valid_to == t1
    assert await consolidator.supersede_contradictions() == []


async def test_an_ending_ends_only_its_own_value_of_a_multi_valued_fact(
    rt: remem.Runtime, clock: ManualClock
) -> None:
    c = rt.controller
    rex = await c.remember("The user has a dog named Rex.", metadata=key("pet", "Rex"))
    max_ = await c.remember("The user has a dog named Max.", metadata=key("pet", "Max"))
    orion = await c.remember("The user works on Orion.", metadata=key("project", "Orion"))
    clock.advance(timedelta(days=10))
    died = await c.remember(
        "The user's dog Rex died.", metadata={**key("pet", "Rex"), "operation": "end"}
    )
    atlas = await c.remember(
        "The user renamed Orion to Atlas.",
        metadata={**key("project", "Atlas"), "previous": "Orion"},
    )
    mochi = await c.remember("The user has a cat named Mochi.", metadata=key("pet", "Mochi"))

    done = await MemoryConsolidator(c).supersede_contradictions([died, atlas, mochi])

    assert {(s.old_id, s.new_id) for s in done} == {(rex.id, died.id), (orion.id, atlas.id)}
    old_rex, still_max, old_orion, *live = await (await c.settled()).records.get(
        [rex.id, max_.id, orion.id, died.id, atlas.id, mochi.id]
    )
    assert old_rex.superseded_by == died.id
    assert old_rex.valid_to == T0 + timedelta(days=10)  # history: Rex until he died
    assert old_orion.superseded_by == atlas.id
    assert still_max.superseded_by is None  # another pet is not ended
    assert all(r.superseded_by is None for r in live)
    assert await MemoryConsolidator(c).supersede_contradictions() == []  # idempotent


def _fact(
    id_: str, value: str, at: datetime, operation: str | None = None, attribute: str = "employer"
) -> MemoryRecord:
    from remem.models import MemoryLifecycleMetadata

    meta: dict[str, object] = key(attribute, value)
    if operation is not None:
        meta["operation"] = operation
    life = MemoryLifecycleMetadata(score_reference_time=at, created_at=at)
    return MemoryRecord(id=id_, text=f"{value} {operation}", lifecycle=life, metadata=meta)


def test_at_one_instant_an_ending_precedes_a_new_value_whatever_the_ids() -> None:
    from remem.consolidation.contradictions import plan_fact_changes

    t1 = T0 + timedelta(days=1)
    for end_id, new_id in (("a", "b"), ("b", "a")):  # the id never decides
        acme = _fact("old", "Acme", T0)
        quit_ = _fact(end_id, "Acme", t1, "end")
        globex = _fact(new_id, "Globex", t1)
        changes = plan_fact_changes([globex, quit_, acme], {"employer"})
        assert [(c.old.id, c.new.id) for c in changes] == [("old", end_id), (end_id, new_id)]


def test_an_ending_of_another_value_is_set_aside() -> None:
    from remem.consolidation.contradictions import plan_fact_changes

    leeds = _fact("m1", "Leeds", T0, attribute="city")
    paris_ended = _fact("m2", "Paris", T0 + timedelta(days=1), "end", "city")
    york = _fact("m3", "York", T0 + timedelta(days=2), attribute="city")
    changes = plan_fact_changes([leeds, paris_ended], {"city"})
    assert changes == []  # Leeds stays current; the ending stays live as what it says
    changes = plan_fact_changes([leeds, paris_ended, york], {"city"})
    assert [(c.old.id, c.new.id) for c in changes] == [("m1", "m3")]
    unnamed = _fact("m4", "none", T0 + timedelta(days=3), "end", "city")
    changes = plan_fact_changes([york, unnamed], {"city"})
    assert [(c.old.id, c.new.id) for c in changes] == [("m3", "m4")]  # "we moved out"


def test_an_ending_names_a_value_by_its_first_or_last_words() -> None:
    from remem.consolidation.contradictions import ending_names, plan_fact_changes

    assert ending_names("halfmoon", "Halfmoon Coffee")
    assert ending_names("sea swimming", "swimming")
    assert ending_names("Acme", "acme")
    assert not ending_names("coffee shop", "Halfmoon Coffee")  # neither first nor last words
    assert not ending_names("swim", "swimming")  # whole words only
    assert not ending_names("", "Acme")
    halfmoon = _fact("m1", "Halfmoon Coffee", T0)
    left = _fact("m2", "halfmoon", T0 + timedelta(days=1), "end")
    changes = plan_fact_changes([halfmoon, left], {"employer"})
    assert [(c.old.id, c.new.id) for c in changes] == [("m1", "m2")]


async def test_an_ending_of_a_longer_name_ends_a_multi_valued_fact(
    rt: remem.Runtime, clock: ManualClock
) -> None:
    c = rt.controller
    swimming = await c.remember(
        "The user has taken up swimming.", metadata=key("habit", "swimming")
    )
    yoga = await c.remember("The user has taken up yoga.", metadata=key("habit", "yoga"))
    clock.advance(timedelta(days=40))
    gave_up = await c.remember(
        "The user has given up sea swimming.",
        metadata={**key("habit", "sea swimming"), "operation": "end"},
    )

    done = await MemoryConsolidator(c).supersede_contradictions([gave_up])

    assert [(s.old_id, s.new_id) for s in done] == [(swimming.id, gave_up.id)]
    old, still = await (await c.settled()).records.get([swimming.id, yoga.id])
    assert old.superseded_by == gave_up.id
    assert old.valid_to == T0 + timedelta(days=40)
    assert still.superseded_by is None  # another habit is not ended


def test_plan_edge_endings_closes_only_the_named_earlier_open_edges() -> None:
    def edge(rid: str, target: str, at: datetime, until: datetime | None = None) -> Relationship:
        return Relationship(
            id=rid, source_id="u", target_id=target, relation_type="partner_of",
            created_at=at, valid_from=at, valid_to=until,
        )  # fmt: skip

    def ending(value: str, at: datetime, subject: str = "user") -> MemoryRecord:
        meta = {**key("partner", value, subject), "operation": "end"}
        return record(0, id=f"end-{value}-{subject}", metadata=meta, valid_from=at)

    names = {"u": "user", "sam": "Sam", "kim": "Kim", "ana": "Ana"}
    t1, t2, t3 = T0 + timedelta(days=1), T0 + timedelta(days=2), T0 + timedelta(days=3)
    edges = [
        edge("e-sam", "sam", T0),
        edge("e-kim", "kim", t3),  # began after the ending: untouched
        edge("e-ana", "ana", T0, until=t1),  # already closed
    ]
    relations = {"partner": "partner_of"}
    planned = plan_edge_endings(edges, [ending("Sam", t2)], names, relations)
    assert [(p.edge.id, p.at) for p in planned] == [("e-sam", t2)]
    assert plan_edge_endings(edges, [ending("Kim", t2)], names, relations) == []
    assert plan_edge_endings(edges, [ending("Sam", t2, "Ana")], names, relations) == []
    none = plan_edge_endings(edges, [ending("none", t2)], names, relations)
    assert [p.edge.id for p in none] == ["e-sam"]
    assert plan_edge_endings(edges, [ending("Sam", t2)], names, {}) == []
