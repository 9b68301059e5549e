"""A session's namespace is cached per process; no second process or Runtime sees a stale one.

The controller (turn numbering), the direct write port (episodic indexing) and the extraction
runner each cache ``session id -> namespace`` after reading it from the transcript once. That
is safe because a session's namespace is immutable (see :mod:`remem.scopes`, "Sessions"): it is
fixed when the session is created, no operation changes it, a handoff moves memory records and
never a session, and two processes creating one session id race on the store's unique key —
exactly one wins and the other caches nothing. These tests hold that on PostgreSQL with two
Runtimes over one database (what two processes share), and across a restart on both backends.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.errors import InvalidArgumentError, RememError
from remem.models import ManualClock
from remem.multiagent import MultiAgentMemoryController, private_scope
from tests.multiagent.conftest import T0

A, B = "user:alice", "user:bob"


def runtime(root: Path, backend: dict[str, Any]) -> remem.Runtime:
    options: dict[str, Any] = {"embedding_provider": "hashing", "scopes": "multi", **backend}
    return remem.Runtime.open(root, clock=ManualClock(T0), **options)


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


@pytest.mark.postgres
async def test_two_runtimes_over_one_database_agree_on_a_session_scope(
    tmp_path: Path, pg_dsn: str
) -> None:
    pg = {"backend": "postgres", "dsn": pg_dsn}
    async with runtime(tmp_path / "one", pg) as one, runtime(tmp_path / "two", pg) as two:
        await one.controller.record_turn("s", "alice's turn", "ok", namespace=A)
        # The other process has nothing cached: it reads the session's scope and refuses B.
        with pytest.raises(InvalidArgumentError, match="belongs to namespace"):
            await two.controller.record_turn("s", "bob's turn", "ok", namespace=B)
        assert [s.session_id for s in await two.controller.list_sessions(namespace=B)] == []

        # Both create one new session at once, in different scopes: one wins, the other is
        # refused and caches nothing, so its next turn sees the winner's scope.
        results = await asyncio.gather(
            one.controller.record_turn("r", "alice first", "ok", namespace=A),
            two.controller.record_turn("r", "bob first", "ok", namespace=B),
            return_exceptions=True,
        )
        failed = [r for r in results if isinstance(r, BaseException)]
        assert len(failed) == 1
        assert isinstance(failed[0], RememError)
        loser, loser_scope = (two, B) if failed[0] is results[1] else (one, A)
        stored = (await one.stores.transcript.get_session("r")).namespace  # type: ignore[union-attr]
        assert stored != loser_scope
        with pytest.raises(InvalidArgumentError, match="belongs to namespace"):
            await loser.controller.record_turn("r", "again", "ok", namespace=loser_scope)
        listed = await loser.controller.list_sessions(namespace=stored)
        assert "r" in [s.session_id for s in listed]
        entries = await one.stores.transcript.get_entries("r")  # type: ignore[union-attr]
        assert len(entries) == 1  # the refused first turn was not written


async def test_a_handoff_moves_memories_never_a_session(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    root = tmp_path / "memory"
    async with runtime(root, backend) as rt:
        multi = await MultiAgentMemoryController.open(rt.controller, rt.block_store)
        scope = await multi.register_agent("a")
        await rt.controller.record_turn("sa", "a's working notes", "ok", namespace=scope)
        note = await multi.remember("a", "the build is green", session_id="sa")
        [shared] = await multi.handoff("a", [note.id])
        assert shared.namespace == "shared"
        assert shared.session_id == "sa"  # the record keeps its session; the session stays put
        with pytest.raises(InvalidArgumentError, match="belongs to namespace"):
            await rt.controller.record_turn("sa", "published", "ok", namespace="shared")
    async with runtime(root, backend) as rt:  # a restarted process reads the same scope
        assert [s.session_id for s in await rt.controller.list_sessions(namespace="shared")] == []
        listed = await rt.controller.list_sessions(namespace=private_scope("a"))
        assert [s.session_id for s in listed] == ["sa"]
        turn = await rt.controller.record_turn("sa", "more notes", "ok", namespace=scope)
        assert turn.turn_number == 2
        with pytest.raises(InvalidArgumentError, match="belongs to namespace"):
            await rt.controller.record_turn("sa", "published", "ok", namespace="shared")
