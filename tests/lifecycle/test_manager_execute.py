"""LifecycleManager.execute: applying plans across the record store and the staged collections."""

from __future__ import annotations

import math
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from remem.errors import StalePlanError, StoreClosedError
from remem.lifecycle import (
    DecayCalculator,
    FilePlanJournal,
    LifecycleManager,
    PendingPlan,
    PlanAction,
)
from remem.models import MemoryRecord, MemoryStage, PromotionState
from tests.lifecycle.conftest import T0, Stack, open_stack, rec

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


async def test_main_flow(any_stack: Stack) -> None:
    s = any_stack
    await s.add(
        [
            rec("hot", access_count=5),
            rec("cold"),
            rec("lt", stage=MemoryStage.LONG_TERM),
            rec("guard", protected=True),
            rec("stale", stage=MemoryStage.DECAYED, base=0.1, decayed_h=0),
        ]
    )
    async with s.manager() as manager:
        # Day 2: "hot" is promoted; nothing else is due.
        s.clock.set(T0 + 48 * HOUR)
        plan = await manager.preview()
        assert plan.counts == {
            PlanAction.PROMOTE: 1,
            PlanAction.DECAY: 0,
            PlanAction.DELETE: 0,
            PlanAction.REACTIVATE: 0,
        }
        report = await manager.execute(plan)
        assert (report.promoted, report.vectors_moved, report.changed) == (1, 1, 1)
        (hot,) = await s.records.get(["hot"])
        assert hot.lifecycle.stage is MemoryStage.LONG_TERM
        assert hot.lifecycle.promoted_at == T0 + 48 * HOUR
        assert hot.lifecycle.promotion_state is PromotionState.PROMOTED
        assert hot.lifecycle.base_score == 1.0  # maintenance never rewrites the base
        assert (await manager.preview()).total == 0

        # Day 31: everything unprotected has faded; "stale" is past retention.
        s.clock.set(T0 + 31 * DAY)
        plan = await manager.preview()
        assert sorted(c.id for c in plan.decay) == ["cold", "hot", "lt"]
        assert [c.id for c in plan.delete] == ["stale"]
        report = await manager.execute(plan)
        assert (report.decayed, report.deleted, report.vectors_removed) == (3, 1, 1)
        assert await s.stages() == {
            "hot": "decayed",
            "cold": "decayed",
            "lt": "decayed",
            "guard": "short_term",
            "stale": "deleted",
        }
        assert await s.collection_of() == {
            "hot": "decayed",
            "cold": "decayed",
            "lt": "decayed",
            "guard": "short_term",
        }
        by_id = {r.id: r.lifecycle for r in await s.records.get(["hot", "cold", "lt"])}
        assert by_id["hot"].promotion_state is PromotionState.DEMOTED
        assert by_id["lt"].promotion_state is PromotionState.DEMOTED
        assert by_id["cold"].promotion_state is PromotionState.NONE
        assert all(lc.decayed_at == T0 + 31 * DAY for lc in by_id.values())

        # An access brings "cold" back; the next plan reactivates it.
        await s.records.record_accesses(["cold"], [0.9], s.clock.now())
        report = await manager.execute(await manager.preview())
        assert report.reactivated == 1
        (cold,) = await s.records.get(["cold"])
        assert cold.lifecycle.stage is MemoryStage.SHORT_TERM
        assert cold.lifecycle.decayed_at is None
        assert (await s.collection_of())["cold"] == "short_term"
    assert not (s.root / "plans.jsonl").exists()  # nothing pending: the journal is gone


async def test_retention_deletion_happens_only_on_execute(stack: Stack) -> None:
    await stack.add([rec("old", stage=MemoryStage.DECAYED, base=0.1, decayed_h=0)])
    stack.clock.set(T0 + 60 * DAY)
    async with stack.manager() as manager:
        for _ in range(3):
            assert [c.id for c in (await manager.preview()).delete] == ["old"]
        assert await stack.stages() == {"old": "decayed"}
        assert await stack.collection_of() == {"old": "decayed"}
        await manager.execute(await manager.preview())
    assert await stack.stages() == {"old": "deleted"}
    assert await stack.collection_of() == {}


async def test_stale_plan_is_refused_and_changes_nothing(stack: Stack) -> None:
    await stack.add([rec("a"), rec("b"), rec("c", stage=MemoryStage.LONG_TERM)])
    stack.clock.set(T0 + 200 * HOUR)
    async with stack.manager() as manager:
        plan = await manager.preview()
        assert plan.total == 3
        await stack.records.record_accesses(["b"], [0.8], stack.clock.now())
        before = (await stack.records.scan(), await stack.collection_of())
        with pytest.raises(StalePlanError, match=r"b \(accessed since.*preview\(\) again"):
            await manager.execute(plan)
        assert (await stack.records.scan(), await stack.collection_of()) == before
        # Protection and deletion since the preview make a plan stale too.
        fresh = await manager.preview()
        assert sorted(c.id for c in fresh.decay) == ["a", "c"]
        (c,) = await stack.records.get(["c"])
        await stack.records.update_lifecycle(
            [("c", c.lifecycle.model_copy(update={"protected": True}))]
        )
        with pytest.raises(StalePlanError, match="protected"):
            await manager.execute(fresh)
        await stack.records.delete(["a"])
        with pytest.raises(StalePlanError, match="deleted from the store"):
            await manager.execute(fresh)
        # A valid plan executes once; the second time it is stale.
        plan = await manager.preview()
        await manager.execute(plan)
        with pytest.raises(StalePlanError, match="already executed"):
            await manager.execute(plan)


async def test_use_after_close(stack: Stack) -> None:
    manager = stack.manager()
    await manager.aclose()
    await manager.aclose()
    with pytest.raises(StoreClosedError):
        await manager.preview()


def _population(n: int, seed: int) -> list[MemoryRecord]:
    """Records of every kind of history, created up to 100 h before the simulation starts."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        kind = i % 5
        age = float(rng.uniform(0, 100))
        if kind == 3:
            out.append(rec(f"r{i}", stage=MemoryStage.DECAYED, age_h=age, base=0.1, decayed_h=age))
        else:
            stage = MemoryStage.LONG_TERM if kind == 4 else MemoryStage.SHORT_TERM
            out.append(
                rec(
                    f"r{i}",
                    stage=stage,
                    age_h=age,
                    base=float(rng.uniform(0.3, 1.0)),
                    access_count=int(rng.integers(0, 7)),
                    protected=bool(rng.random() < 0.1),
                )
            )
    return out


async def _state(stack: Stack, at_hours: float) -> dict[str, tuple[str, float, float]]:
    calc = DecayCalculator()
    now = T0 + timedelta(hours=at_hours)
    return {
        r.id: (
            r.lifecycle.stage.value,
            r.lifecycle.base_score,
            round(
                calc.calculate_decay(r.lifecycle.base_score, r.lifecycle.score_reference_time, now),
                12,
            ),
        )
        for r in await stack.records.scan()
    }


async def test_hourly_runs_equal_one_run_no_compounding(tmp_path: Path) -> None:
    population = _population(60, seed=3)
    start = T0 + 100 * HOUR
    async with open_stack("duckdb", tmp_path / "hourly") as hourly:
        await hourly.add(population)
        hourly.clock.set(start)
        async with hourly.manager() as manager:
            for _ in range(96):
                hourly.clock.advance(HOUR)
                await manager.execute(await manager.preview())
        state_hourly = await _state(hourly, 196)
        placed_hourly = await hourly.collection_of()
    async with open_stack("duckdb", tmp_path / "once") as once:
        await once.add(population)
        once.clock.set(start + 96 * HOUR)
        async with once.manager() as manager:
            await manager.execute(await manager.preview())
        state_once = await _state(once, 196)
        placed_once = await once.collection_of()
    assert state_hourly == state_once
    assert placed_hourly == placed_once
    stages = {v[0] for v in state_once.values()}
    assert {"short_term", "long_term", "decayed"} <= stages
    originals = {r.id: r.lifecycle.base_score for r in population}
    assert all(math.isclose(v[1], originals[k]) for k, v in state_once.items())


async def test_interrupted_after_records_is_completed_on_reopen(tmp_path: Path) -> None:
    async with open_stack("duckdb", tmp_path) as s:
        await s.add([rec("a"), rec("b"), rec("c", access_count=5)])
        s.clock.set(T0 + 170 * HOUR)

        async def crash(*args: object, **kwargs: object) -> int:
            raise RuntimeError("simulated crash between the record batch and the moves")

        s.collections.move = crash  # type: ignore[method-assign]
        manager = s.manager()
        plan = await manager.preview()
        with pytest.raises(RuntimeError, match="simulated crash"):
            await manager.execute(plan)
        assert await s.stages() == {"a": "decayed", "b": "decayed", "c": "decayed"}
        assert await s.collection_of() == {"a": "short_term", "b": "short_term", "c": "short_term"}
        assert FilePlanJournal(s.root / "plans.jsonl").pending()[0].records_applied
        del s.collections.move  # the process "restarts" with a working collection manager
        async with s.manager() as reopened:  # open() rolls the plan forward
            assert await s.collection_of() == {"a": "decayed", "b": "decayed", "c": "decayed"}
            assert (await reopened.preview()).total == 0
        assert not (s.root / "plans.jsonl").exists()


async def test_interrupted_after_begin_is_rolled_forward_idempotently(stack: Stack) -> None:
    await stack.add([rec("a"), rec("b"), rec("c", stage=MemoryStage.LONG_TERM)])
    stack.clock.set(T0 + 170 * HOUR)
    plan = await stack.manager().preview()
    # The intent reached the journal; nothing else did. Meanwhile "b" was accessed.
    FilePlanJournal(stack.root / "plans.jsonl").begin(
        PendingPlan(plan.plan_id, plan.created_at, plan.changes)
    )
    await stack.records.record_accesses(["b"], [0.9], stack.clock.now())
    manager = stack.manager()
    assert await manager.recover() == 0  # opening (on first use) already rolled it forward
    assert manager.recovered_plans == 1
    assert await stack.stages() == {"a": "decayed", "b": "short_term", "c": "decayed"}
    assert await stack.collection_of() == {"a": "decayed", "b": "short_term", "c": "decayed"}
    (c,) = await stack.records.get(["c"])
    assert c.lifecycle.decayed_at == plan.created_at
    assert c.lifecycle.promotion_state is PromotionState.DEMOTED
    assert await manager.recover() == 0  # idempotent: nothing pending any more
    await manager.aclose()


async def test_a_second_manager_executes_after_recovery(stack: Stack) -> None:
    await stack.add([rec("a"), rec("b")])
    stack.clock.set(T0 + 170 * HOUR)
    first = stack.manager()
    plan = await first.preview()
    FilePlanJournal(stack.root / "plans.jsonl").begin(
        PendingPlan(plan.plan_id, plan.created_at, plan.changes[:1])
    )
    second = stack.manager()
    stack.clock.advance(HOUR)
    # The half-done plan is completed first, so the old full plan is now stale for "a" ...
    with pytest.raises(StalePlanError):
        await second.execute(plan)
    # ... and a fresh preview covers what is left.
    report = await second.execute(await second.preview())
    assert report.decayed == 1
    assert await stack.collection_of() == {"a": "decayed", "b": "decayed"}
    assert isinstance(second, LifecycleManager)
