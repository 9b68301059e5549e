"""The quiescence token on a real Runtime: writes held, maintenance stopped, released always."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from remem import Runtime
from remem.recovery import WritersActiveError
from remem.recovery.quiescence import Gate, QuiescenceToken, quiesce
from tests.recovery.memory_dirs import build_memory, open_runtime


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    asyncio.run(build_memory(path, memories=5))
    return path


async def _turns(rt: Runtime, session: str) -> int:
    """How many turns of ``session`` the transcript holds (0 for an unknown session)."""
    store = (await rt.controller.settled()).transcript
    assert store is not None
    sessions = {s.session_id for s in await store.list_sessions()}
    return len(await store.get_entries(session)) if session in sessions else 0


async def test_writes_wait_while_the_token_is_held(memory: Path) -> None:
    async with open_runtime(memory) as rt:
        lifecycle = rt.lifecycle
        assert lifecycle is not None
        lifecycle.start_maintenance(timedelta(hours=1))
        async with rt.quiesce() as token:
            assert token.participants == (
                "compaction",
                "extraction",
                "writers",
                "core blocks",
                "graph writes",
                "access-count flushes",
                "record updates",
                "transcript writes",
            )
            assert not lifecycle.maintenance_running
            write = asyncio.create_task(rt.controller.record_turn("s9", "held", "back"))
            done, _ = await asyncio.wait({write}, timeout=0.3)
            assert not done, "a write went through while the memory was quiesced"
            assert await _turns(rt, "s9") == 0
        assert token.released
        await write
        assert await _turns(rt, "s9") == 1
        assert lifecycle.maintenance_running  # restarted with its interval
        assert lifecycle.maintenance_settings == (timedelta(hours=1), True)
        await lifecycle.stop_maintenance()


async def test_released_when_the_operation_raises(memory: Path) -> None:
    async with open_runtime(memory) as rt:
        held: list[QuiescenceToken] = []

        async def operation() -> None:
            async with rt.quiesce() as token:
                held.append(token)
                raise RuntimeError("snapshot failed")

        with pytest.raises(RuntimeError, match="snapshot failed"):
            await operation()
        assert held[0].released
        await asyncio.wait_for(rt.controller.record_turn("s9", "after", "ok"), 30)
        assert await _turns(rt, "s9") == 1


async def test_released_when_the_operation_is_cancelled(memory: Path) -> None:
    async with open_runtime(memory) as rt:
        inside = asyncio.Event()
        held: list[QuiescenceToken] = []

        async def operation() -> None:
            async with rt.quiesce() as token:
                held.append(token)
                inside.set()
                await asyncio.Event().wait()  # a long copy, cancelled

        task = asyncio.create_task(operation())
        await inside.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert held[0].released
        await asyncio.wait_for(rt.controller.record_turn("s9", "after", "ok"), 30)
        assert await _turns(rt, "s9") == 1


class _Stuck:
    """A participant that never stops (a writer that does not finish)."""

    name = "stuck writer"

    def __init__(self) -> None:
        self.resumed = False

    async def pause(self) -> None:
        await asyncio.Event().wait()

    async def resume(self) -> None:
        self.resumed = True


async def test_a_participant_that_does_not_stop_is_refused_and_undone() -> None:
    gate = Gate()

    class _GateParticipant:
        name = "gate"

        async def pause(self) -> None:
            await gate.close()

        async def resume(self) -> None:
            gate.open()

    stuck = _Stuck()
    ran: list[bool] = []

    async def operation() -> None:
        async with quiesce([_GateParticipant(), stuck], memory="unused", pause_timeout=0.05):
            ran.append(True)

    with pytest.raises(WritersActiveError, match="stuck writer did not stop"):
        await operation()
    assert not ran
    assert stuck.resumed
    assert not gate.closed


async def test_the_gate_waits_for_passages_in_flight() -> None:
    gate = Gate()
    entered, leave = asyncio.Event(), asyncio.Event()

    async def writer() -> None:
        async with gate.passage():
            entered.set()
            await leave.wait()

    task = asyncio.create_task(writer())
    await entered.wait()
    closing = asyncio.create_task(gate.close())
    done, _ = await asyncio.wait({closing}, timeout=0.1)
    assert not done
    assert gate.inside == 1
    leave.set()
    await closing
    await task
    assert gate.closed
    assert gate.inside == 0
    gate.open()
    async with gate.passage():
        assert gate.inside == 1
