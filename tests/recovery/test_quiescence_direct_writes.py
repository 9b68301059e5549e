"""Writes that bypass the write port — core blocks, the graph — wait while the token is held.

Every path is started *inside* ``async with rt.quiesce()``, the test waits until each one is
parked at its gate (``Gate.waiting``: no timing guess), checks that nothing of it is in the
stores, releases, and checks that everything landed. Embedded and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.blocks import BlockEdit, dispatch
from remem.models import Entity, ManualClock, MemoryRecord, Relationship
from remem.recovery import WritersActiveError
from remem.recovery.quiescence import Gate
from remem.service import MemoryService
from tests.recovery.memory_dirs import T0


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


@pytest.fixture
def runtime(tmp_path: Path, backend: dict[str, str]) -> remem.Runtime:
    options: dict[str, Any] = {"embedding_provider": "hashing", **backend}
    return remem.Runtime.open(tmp_path / "memory", clock=ManualClock(T0), **options)


def _gates(rt: remem.Runtime) -> tuple[Gate, Gate]:
    """The block and graph gates the Runtime wired (private: the test reads their counters)."""
    return rt._block_gate, rt._graph_gate


def _record_gate(rt: remem.Runtime) -> Gate:
    return rt._record_gate


async def _until(done: Callable[[], bool], what: str) -> None:
    for _ in range(3000):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def _entity(i: str) -> Entity:
    return Entity(id=f"e-{i}", name=f"Entity {i}", created_at=T0, updated_at=T0)


async def test_block_writes_on_every_path_wait_for_the_release(runtime: remem.Runtime) -> None:
    async with runtime as rt:
        seeded = [BlockEdit.add("Lives in Berlin"), BlockEdit.add("Has a cat")]
        # One namespace per write: each held write commits on the revision it planned on.
        cores = {ns: await rt.blocks(ns) for ns in ("add", "replace", "remove", "tool")}
        for core in cores.values():
            await core.apply("user", seeded)
        service = MemoryService(rt)
        block_gate, _ = _gates(rt)
        before = ("Lives in Berlin", "Has a cat")
        async with rt.quiesce() as token:
            tool = asyncio.create_task(
                dispatch(
                    cores["tool"],
                    "core_memory_replace",
                    {"block": "user", "old_text": "cat", "new_text": "Has a dog"},
                )
            )
            served = asyncio.create_task(service.core_memory_add("user", "Speaks Portuguese"))
            writes: list[asyncio.Task[Any]] = [
                asyncio.create_task(cores["add"].apply("user", [BlockEdit.add("Likes tea")])),
                asyncio.create_task(
                    cores["replace"].apply("user", [BlockEdit.replace("Berlin", "In Lisbon")])
                ),
                asyncio.create_task(cores["remove"].apply("user", [BlockEdit.remove("cat")])),
                tool,
                served,
            ]
            await _until(lambda: block_gate.waiting == len(writes), "every block write to park")
            assert not any(w.done() for w in writes)
            for ns in cores:
                held = await rt.block_store.load(ns, "user")
                assert held is not None
                assert (held.entries, held.revision) == (before, 1)
            assert await rt.block_store.load("default", "user") is None
        assert token.released
        await asyncio.wait_for(asyncio.gather(*writes), 30)
        assert tool.result().startswith("Replaced in the user block")
        assert served.result().ok
        landed = {}
        for ns in (*cores, "default"):
            block = await rt.block_store.load(ns, "user")
            assert block is not None
            landed[ns] = block.entries
        assert landed == {
            "add": (*before, "Likes tea"),
            "replace": ("In Lisbon", "Has a cat"),
            "remove": ("Lives in Berlin",),
            "tool": ("Lives in Berlin", "Has a dog"),
            "default": ("Speaks Portuguese",),
        }
        await service.aclose()


async def test_graph_writes_on_every_path_wait_for_the_release(runtime: remem.Runtime) -> None:
    async with runtime as rt:
        graph = rt.stores.graph
        await graph.upsert_entities([_entity("a"), _entity("b"), _entity("c")])
        old = Relationship(id="r-old", source_id="e-a", target_id="e-b", relation_type="knows")
        ends = Relationship(id="r-end", source_id="e-a", target_id="e-c", relation_type="likes")
        await graph.add_relationships([old, ends])
        new = Relationship(id="r-new", source_id="e-a", target_id="e-b", relation_type="married")
        _, graph_gate = _gates(rt)
        async with rt.quiesce() as token:
            writes = [
                asyncio.create_task(graph.upsert_entities([_entity("d")])),
                asyncio.create_task(graph.add_relationships([new])),
                asyncio.create_task(graph.end_relationship("r-end", at=T0 + timedelta(days=1))),
                # The controller's path: entities resolved and upserted before the port write.
                asyncio.create_task(
                    rt.controller.remember("Ada met Grace Hopper", entities=["Grace Hopper"])
                ),
            ]
            await _until(lambda: graph_gate.waiting == len(writes), "every graph write to park")
            assert not any(w.done() for w in writes)
            assert "e-d" not in {e.id for e in await graph.list_entities()}
            assert await graph.find_entities("Grace Hopper") == []
            rels = {r.id: r for r in await graph.relationships("e-a", include_superseded=True)}
            assert set(rels) == {"r-old", "r-end"}
            assert rels["r-end"].valid_to is None
        assert token.released
        await asyncio.wait_for(asyncio.gather(*writes), 30)
        record = writes[-1].result()
        assert isinstance(record, MemoryRecord)
        assert [r.id for r in await (await rt.controller.settled()).records.get([record.id])] == [
            record.id
        ]
        assert [e.id for e in await graph.get_entities(["e-d"])] == ["e-d"]
        assert [e.name for e in await graph.find_entities("Grace Hopper")] == ["Grace Hopper"]
        rels = {r.id: r for r in await graph.relationships("e-a", include_superseded=True)}
        assert set(rels) == {"r-old", "r-end", "r-new"}
        assert rels["r-end"].valid_to == T0 + timedelta(days=1)
        await graph.supersede_relationship("r-old", "r-new", at=T0 + timedelta(days=2))
        rels = {r.id: r for r in await graph.relationships("e-a", include_superseded=True)}
        assert rels["r-old"].superseded_by == "r-new"  # the gate is open again


async def test_forget_and_supersede_wait_for_the_release(runtime: remem.Runtime) -> None:
    async with runtime as rt:
        c = rt.controller
        gone, old, new, kept = await c.remember_many(
            ["Ada owns a red bike", "Ada lives in Berlin", "Ada lives in Lisbon", "Ada has a cat"]
        )
        records, gate = (await c.settled()).records, _record_gate(rt)

        async def live_ids() -> set[str]:
            hits = await c.recall("Ada", k=10)
            return {h.record.id for h in hits}

        assert await live_ids() == {gone.id, old.id, new.id, kept.id}
        async with rt.quiesce() as token:
            forget = asyncio.create_task(c.forget([gone.id]))
            supersede = asyncio.create_task(c.supersede(old.id, new.id))
            await _until(lambda: gate.waiting == 2, "forget and supersede to park")
            assert not forget.done()
            assert not supersede.done()
            held = {r.id: r for r in await records.get([gone.id, old.id])}
            assert held[gone.id].lifecycle.stage.value == "short_term"
            assert held[old.id].superseded_by is None
            assert await live_ids() == {gone.id, old.id, new.id, kept.id}  # vectors untouched
        assert token.released
        assert await asyncio.wait_for(forget, 30) == 1
        await asyncio.wait_for(supersede, 30)
        landed = {r.id: r for r in await records.get([gone.id, old.id])}
        assert landed[gone.id].lifecycle.stage.value == "deleted"
        assert landed[old.id].superseded_by == new.id
        assert await live_ids() == {new.id, kept.id}


async def test_a_turn_in_a_new_session_creates_nothing_until_the_release(
    runtime: remem.Runtime,
) -> None:
    async with runtime as rt:
        transcript = (await rt.controller.settled()).transcript
        assert transcript is not None
        gate: Gate = rt._session_gate

        async def sessions() -> set[str]:
            return {s.session_id for s in await transcript.list_sessions()}

        async with rt.quiesce() as token:
            turn = asyncio.create_task(
                rt.controller.record_turn("s-new", "hello", "hi", namespace="ana")
            )
            await _until(lambda: gate.waiting == 1, "the new session to park")
            assert not turn.done()
            assert "s-new" not in await sessions()  # not even an empty session row
        assert token.released
        await asyncio.wait_for(turn, 30)
        await rt.controller.settled()  # the turn itself may still be journaled
        assert "s-new" in await sessions()
        assert [e.user_message for e in await transcript.get_entries("s-new")] == ["hello"]
        assert (await transcript.get_session("s-new")).namespace == "ana"


async def test_a_graph_write_that_does_not_end_refuses_the_token_and_is_undone(
    runtime: remem.Runtime,
) -> None:
    async with runtime as rt:
        block_gate, graph_gate = _gates(rt)
        entered, leave = asyncio.Event(), asyncio.Event()

        async def long_write() -> None:  # a graph write in flight that does not end in time
            async with graph_gate.passage():
                entered.set()
                await leave.wait()

        writer = asyncio.create_task(long_write())
        await entered.wait()
        with pytest.raises(WritersActiveError, match="graph writes did not stop"):
            async with rt.quiesce(pause_timeout=0.2):
                pass
        # Every earlier pause was undone: port writes, blocks and the graph flow again.
        assert not block_gate.closed
        assert not graph_gate.closed
        core = await rt.blocks("ada")
        await asyncio.wait_for(core.apply("user", [BlockEdit.add("after")]), 30)
        await asyncio.wait_for(rt.stores.graph.upsert_entities([_entity("z")]), 30)
        await asyncio.wait_for(rt.controller.record_turn("s1", "still", "writing"), 30)
        leave.set()
        await writer


async def test_a_cancelled_write_parked_at_the_gate_writes_nothing(
    runtime: remem.Runtime,
) -> None:
    async with runtime as rt:
        core = await rt.blocks("ada")
        block_gate, graph_gate = _gates(rt)
        async with rt.quiesce():
            block = asyncio.create_task(core.apply("user", [BlockEdit.add("never")]))
            edge = asyncio.create_task(rt.stores.graph.upsert_entities([_entity("never")]))
            await _until(lambda: block_gate.waiting == 1 and graph_gate.waiting == 1, "parking")
            block.cancel()
            edge.cancel()
            for task in (block, edge):
                with pytest.raises(asyncio.CancelledError):
                    await task
            assert block_gate.waiting == 0
            assert graph_gate.waiting == 0
        assert await rt.block_store.load("ada", "user") is None
        assert "e-never" not in {e.id for e in await rt.stores.graph.list_entities()}
