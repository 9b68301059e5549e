"""LifecycleManager.preview: each rule with ManualClock time travel, on DuckDB + HNSW stores."""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np

from remem.lifecycle import DecayConfig, LifecyclePlan, PlanAction
from remem.models import MemoryStage
from tests.lifecycle.conftest import T0, Stack, rec

HOUR = timedelta(hours=1)
# With base 1.0 and rate 0.01/h the decay score falls below 0.2 after ln(5)/0.01 = 160.9 h.
FADE_H = math.log(5) / 0.01


def ids(plan: LifecyclePlan, action: PlanAction) -> list[str]:
    return [c.id for c in getattr(plan, action.value)]


async def test_preview_changes_nothing(stack: Stack) -> None:
    await stack.add(
        [
            rec("hot", access_count=5),
            rec("cold"),
            rec("old", stage=MemoryStage.LONG_TERM),
            rec("gone", stage=MemoryStage.DECAYED, base=0.05, decayed_h=0),
        ]
    )
    manager = stack.manager()
    before = (await stack.records.scan(include_superseded=True), await stack.collection_of())
    stack.clock.set(T0 + timedelta(days=60))
    plan = await manager.preview()
    assert plan.total == 4
    after = (await stack.records.scan(include_superseded=True), await stack.collection_of())
    assert after == before
    assert not (stack.root / "plans.jsonl").exists()


async def test_promotion_needs_score_and_minimum_age(stack: Stack) -> None:
    await stack.add(
        [
            rec("hot", access_count=5),  # p = 0.2·age/72 + 0.4 + 0.2
            rec("cold"),  # p = 0.2·age/72 + 0.2: never reaches 0.7
            rec("unsure", access_count=5, confidence=0.0),  # p <= 0.6
        ]
    )
    manager = stack.manager(decay=DecayConfig(short_term_min_age_hours=30))
    assert ids(await manager.preview(T0 + 29 * HOUR), PlanAction.PROMOTE) == []  # too young
    assert ids(await manager.preview(T0 + 30 * HOUR), PlanAction.PROMOTE) == []  # p = 0.683
    plan = await manager.preview(T0 + 48 * HOUR)
    assert ids(plan, PlanAction.PROMOTE) == ["hot"]
    (change,) = plan.promote
    assert change.from_stage is MemoryStage.SHORT_TERM
    assert change.to_stage is MemoryStage.LONG_TERM
    assert math.isclose(change.promotion_score, 0.2 * 48 / 72 + 0.6)
    assert math.isclose(change.decay_score, math.exp(-0.48))
    assert "promotion score" in change.reason
    # Age gate on its own: a high score is not enough before short_term_min_age_hours.
    strict = stack.manager(decay=DecayConfig(short_term_min_age_hours=100))
    assert ids(await strict.preview(T0 + 99 * HOUR), PlanAction.PROMOTE) == []
    assert ids(await strict.preview(T0 + 100 * HOUR), PlanAction.PROMOTE) == ["hot"]


async def test_decay_uses_time_since_access_not_creation(stack: Stack) -> None:
    await stack.add(
        [
            rec("idle"),
            rec("used", accessed_h=100, base=0.9),
            rec("lt", stage=MemoryStage.LONG_TERM),
        ]
    )
    manager = stack.manager()
    assert ids(await manager.preview(T0 + 160 * HOUR), PlanAction.DECAY) == []
    plan = await manager.preview(T0 + 162 * HOUR)
    assert ids(plan, PlanAction.DECAY) == ["idle", "lt"]
    for change in plan.decay:
        assert math.isclose(change.decay_score, math.exp(-1.62))
        assert change.decay_score < 0.2
        assert change.to_stage is MemoryStage.DECAYED
    # "used" was reinforced at 100 h: 0.9·exp(-0.01·(t-100)) < 0.2 only after t = 250.4 h.
    assert "used" not in ids(await manager.preview(T0 + 250 * HOUR), PlanAction.DECAY)
    assert "used" in ids(await manager.preview(T0 + 251 * HOUR), PlanAction.DECAY)


async def test_decay_wins_over_promotion(stack: Stack) -> None:
    await stack.add([rec("faded-hot", access_count=5)])
    plan = await stack.manager().preview(T0 + 200 * HOUR)
    assert ids(plan, PlanAction.DECAY) == ["faded-hot"]
    assert plan.promote == ()


async def test_protected_is_never_demoted_or_deleted_but_may_be_promoted(stack: Stack) -> None:
    await stack.add(
        [
            rec("p-short", protected=True),
            rec("p-long", stage=MemoryStage.LONG_TERM, protected=True),
            rec("p-decayed", stage=MemoryStage.DECAYED, base=0.1, decayed_h=0, protected=True),
            rec("p-hot", access_count=5, protected=True),
        ]
    )
    manager = stack.manager()
    plan = await manager.preview(T0 + timedelta(days=365))
    assert plan.decay == ()
    assert plan.delete == ()
    assert ids(plan, PlanAction.PROMOTE) == ["p-hot"]  # faded, but protection keeps it alive


async def test_retention_deletes_only_long_decayed_records(stack: Stack) -> None:
    await stack.add(
        [
            rec("d-early", stage=MemoryStage.DECAYED, base=0.1, decayed_h=0),
            rec("d-late", stage=MemoryStage.DECAYED, base=0.1, decayed_h=240),
            rec("d-undated", stage=MemoryStage.DECAYED, base=0.1),
        ]
    )
    manager = stack.manager()
    assert ids(await manager.preview(T0 + 30 * 24 * HOUR - HOUR), PlanAction.DELETE) == []
    plan = await manager.preview(T0 + 30 * 24 * HOUR)
    assert ids(plan, PlanAction.DELETE) == ["d-early"]
    assert plan.delete[0].to_stage is MemoryStage.DELETED
    assert "retention" in plan.delete[0].reason
    later = await manager.preview(T0 + 41 * 24 * HOUR)
    assert ids(later, PlanAction.DELETE) == ["d-early", "d-late"]  # undated: never deleted


async def test_reactivation_after_an_access(stack: Stack) -> None:
    await stack.add([rec("faded", stage=MemoryStage.DECAYED, base=0.15, decayed_h=0)])
    manager = stack.manager()
    at = T0 + 10 * HOUR
    assert ids(await manager.preview(at), PlanAction.REACTIVATE) == []
    # An access reinforces: new base = decayed score + access_boost.
    decayed = 0.15 * math.exp(-0.1)
    await stack.records.record_accesses(["faded"], [decayed + 0.2], at)
    plan = await manager.preview(at)
    assert ids(plan, PlanAction.REACTIVATE) == ["faded"]
    (change,) = plan.reactivate
    assert change.to_stage is MemoryStage.SHORT_TERM
    assert math.isclose(change.decay_score, decayed + 0.2)


async def test_superseded_episodic_and_deleted_records_are_left_alone(stack: Stack) -> None:
    await stack.add(
        [
            rec("old-fact"),
            rec("new-fact", age_h=1),
            rec("ep", stage=MemoryStage.EPISODIC),
            rec("tomb", stage=MemoryStage.DELETED, base=0.0, decayed_h=0),
        ]
    )
    await stack.records.supersede("old-fact", "new-fact", at=T0 + HOUR)
    plan = await stack.manager().preview(T0 + timedelta(days=400))
    assert plan.scanned == 4
    assert ids(plan, PlanAction.DECAY) == ["new-fact"]
    assert plan.total == 1


async def test_no_caps_every_eligible_record_is_planned(stack: Stack) -> None:
    n = 50_000
    rng = np.random.default_rng(7)
    ages = rng.uniform(0, 400, n)
    counts = rng.integers(0, 8, n)
    records = [
        rec(f"r{i:05d}", age_h=float(ages[i]), access_count=int(counts[i])) for i in range(n)
    ]
    await stack.records.put(records)  # record store only: the plan is computed from it alone
    now = T0 + 450 * HOUR
    plan = await stack.manager().preview(now)
    assert plan.scanned == n
    idle = 450 - ages
    faded = np.exp(-0.01 * idle) < 0.2
    promo = 0.2 * np.minimum(1, idle / 72) + 0.4 * np.minimum(1, counts / 5) + 0.2
    promote = ~faded & (idle >= 24) & (promo >= 0.7)
    assert {c.id for c in plan.decay} == {f"r{i:05d}" for i in np.flatnonzero(faded)}
    assert {c.id for c in plan.promote} == {f"r{i:05d}" for i in np.flatnonzero(promote)}
    assert len(plan.decay) > 10_000
    assert len(plan.promote) > 5_000
    assert "and" in plan.describe(limit=3)
