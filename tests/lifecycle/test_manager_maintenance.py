"""start_maintenance / stop_maintenance: opt-in, clock-driven, failures recorded, clean stop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from pathlib import Path

import pytest

from remem.errors import BackendError, InvalidArgumentError
from remem.lifecycle import LifecycleManager
from remem.models import ManualClock, MemoryStage
from remem.stores.records import LifecycleColumns
from tests.lifecycle.conftest import T0, Stack, open_stack, rec
from tests.lifecycle.test_manager_execute import _population, _state

HOUR = timedelta(hours=1)


def clock_sleeper(
    clock: ManualClock, stop_after: Callable[[], bool], done: asyncio.Event
) -> Callable[[float], Awaitable[None]]:
    """Advances the clock instead of waiting; parks once ``stop_after()`` says enough."""

    async def sleep(seconds: float) -> None:
        if stop_after():
            done.set()
            await asyncio.Event().wait()  # parked until stop_maintenance cancels it
        clock.advance(timedelta(seconds=seconds))
        await asyncio.sleep(0)

    return sleep


async def test_nothing_runs_unless_started(stack: Stack) -> None:
    await stack.add([rec("a")])
    async with stack.manager() as manager:
        stack.clock.advance(timedelta(days=30))
        await asyncio.sleep(0.05)
        assert not manager.maintenance_running
        assert manager.maintenance_cycles == 0
        assert await stack.stages() == {"a": "short_term"}
        assert [t for t in asyncio.all_tasks() if t.get_name().startswith("remem")] == []


async def test_hourly_maintenance_for_96_hours_equals_one_run(tmp_path: Path) -> None:
    population = _population(40, seed=11)
    start = T0 + 100 * HOUR
    async with open_stack("duckdb", tmp_path / "loop") as s:
        await s.add(population)
        s.clock.set(start)
        done = asyncio.Event()
        holder: list[LifecycleManager] = []
        sleeper = clock_sleeper(s.clock, lambda: holder[0].maintenance_cycles >= 96, done)
        async with s.manager(sleeper=sleeper) as manager:
            holder.append(manager)
            manager.start_maintenance(HOUR)
            await asyncio.wait_for(done.wait(), timeout=120)
            await manager.stop_maintenance()
            assert not manager.maintenance_running
            assert manager.failures() == ()
            assert manager.maintenance_cycles == 96
            assert s.clock.now() == start + 96 * HOUR
        looped = await _state(s, 196)
    async with open_stack("duckdb", tmp_path / "once") as s:
        await s.add(population)
        s.clock.set(start + 96 * HOUR)
        async with s.manager() as manager:
            await manager.execute(await manager.preview())
        once = await _state(s, 196)
    assert looped == once


async def test_failures_are_recorded_and_the_loop_goes_on(stack: Stack) -> None:
    await stack.add([rec("a"), rec("b", stage=MemoryStage.LONG_TERM)])
    stack.clock.set(T0 + 150 * HOUR)
    real = stack.records.lifecycle_columns
    calls = 0

    async def flaky(*, stages: Sequence[MemoryStage] | None = None) -> LifecycleColumns:
        nonlocal calls
        calls += 1
        if calls <= 2:
            raise BackendError("database is busy; retry later")
        return await real(stages=stages)

    stack.records.lifecycle_columns = flaky  # type: ignore[method-assign]
    done = asyncio.Event()
    holder: list[LifecycleManager] = []
    sleeper = clock_sleeper(stack.clock, lambda: holder[0].maintenance_cycles >= 20, done)
    async with stack.manager(sleeper=sleeper) as manager:
        holder.append(manager)
        manager.start_maintenance(HOUR)
        await asyncio.wait_for(done.wait(), timeout=60)
        await manager.stop_maintenance()
        failures = manager.failures()
        assert [f.step for f in failures] == ["preview", "preview"]
        assert isinstance(failures[0].error, BackendError)
        assert failures[0].at == T0 + 151 * HOUR
        assert "database is busy" in str(failures[1])
        assert manager.last_report is not None
    assert await stack.stages() == {"a": "decayed", "b": "decayed"}  # decayed at 161 h


async def test_stop_lets_a_running_cycle_finish(stack: Stack) -> None:
    await stack.add([rec("a")])
    stack.clock.set(T0 + 170 * HOUR)
    in_cycle, release = asyncio.Event(), asyncio.Event()
    real = stack.records.update_lifecycle

    async def slow_update(updates: object) -> None:
        in_cycle.set()
        await release.wait()
        await real(updates)  # type: ignore[arg-type]

    stack.records.update_lifecycle = slow_update  # type: ignore[method-assign]

    async def instant(seconds: float) -> None:
        stack.clock.advance(timedelta(seconds=seconds))
        await asyncio.sleep(0)

    manager = stack.manager(sleeper=instant)
    await manager.open()
    manager.start_maintenance(HOUR)
    await asyncio.wait_for(in_cycle.wait(), timeout=30)
    stopping = asyncio.create_task(manager.stop_maintenance())
    await asyncio.sleep(0.01)
    assert not stopping.done()  # waits for the cycle instead of cutting it in half
    release.set()
    await asyncio.wait_for(stopping, timeout=30)
    assert not manager.maintenance_running
    assert manager.maintenance_cycles == 1
    assert await stack.stages() == {"a": "decayed"}
    assert await stack.collection_of() == {"a": "decayed"}
    assert not (stack.root / "plans.jsonl").exists()  # the plan was committed
    await manager.aclose()


async def test_preview_only_maintenance_and_aclose_stops(stack: Stack) -> None:
    await stack.add([rec("a")])
    stack.clock.set(T0 + 170 * HOUR)
    manager = stack.manager()  # the real asyncio.sleep: a long interval parks it
    await manager.open()
    manager.start_maintenance(timedelta(days=1), execute=False)
    assert manager.maintenance_running
    with pytest.raises(InvalidArgumentError, match="already running"):
        manager.start_maintenance(HOUR)
    await manager.aclose()  # stops the task
    assert not manager.maintenance_running
    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("remem")] == []
    assert await stack.stages() == {"a": "short_term"}


async def test_preview_only_cycles_change_nothing(stack: Stack) -> None:
    await stack.add([rec("a")])
    stack.clock.set(T0 + 170 * HOUR)
    done = asyncio.Event()
    holder: list[LifecycleManager] = []
    sleeper = clock_sleeper(stack.clock, lambda: holder[0].maintenance_cycles >= 3, done)
    async with stack.manager(sleeper=sleeper) as manager:
        holder.append(manager)
        manager.start_maintenance(HOUR, execute=False)
        await asyncio.wait_for(done.wait(), timeout=30)
    assert manager.last_report is None
    assert await stack.stages() == {"a": "short_term"}


async def test_bad_interval(stack: Stack) -> None:
    async with stack.manager() as manager:
        for bad in (timedelta(0), timedelta(seconds=-5)):
            with pytest.raises(InvalidArgumentError, match="positive timedelta"):
                manager.start_maintenance(bad)
