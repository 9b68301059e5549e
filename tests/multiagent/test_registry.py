"""The multi-agent registry survives a restart: agents, grants and the shared-write policy are
stored in the memory (one core block), on the embedded files and on PostgreSQL.

Each test closes the Runtime and opens a new one over the same files / database, as a
restarted process would, and checks that what each agent sees and may write is unchanged.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.blocks.edits import BlockChange
from remem.errors import IntegrityError, InvalidArgumentError, PolicyViolationError
from remem.models import ManualClock, ScoredMemory
from remem.multiagent import MultiAgentMemoryController, SharedWritePolicy, VisibilityPolicy
from remem.multiagent.registry import (
    REGISTRY_LABEL,
    RegistryState,
    decode_registry,
    encode_registry,
)
from tests.multiagent.conftest import T0

SECRET = "the vault code is zebra-42"
QUERY = "vault code zebra"


def texts(hits: Sequence[ScoredMemory]) -> list[str]:
    return [h.record.text for h in hits]


def runtime(root: Path, backend: dict[str, str]) -> remem.Runtime:
    options: dict[str, Any] = {"embedding_provider": "hashing", **backend}
    return remem.Runtime.open(root, clock=ManualClock(T0), **options)


@pytest.fixture
async def runtime_multi(
    tmp_path: Path, backend: dict[str, str]
) -> AsyncIterator[tuple[remem.Runtime, MultiAgentMemoryController]]:
    async with runtime(tmp_path / "memory", backend) as rt:
        yield rt, await MultiAgentMemoryController.open(rt.controller, rt.block_store)


async def test_visibility_and_policy_survive_a_restart_and_a_revoke_stays_revoked(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    root = tmp_path / "memory"
    async with runtime(root, backend) as rt:
        multi = await MultiAgentMemoryController.open(rt.controller, rt.block_store)
        for agent in ("a", "b", "lead", "scout"):
            await multi.register_agent(agent)
        await multi.grant_read("lead", "a")
        await multi.grant_read("b", "a")
        await multi.grant_read("scout", "a")
        await multi.revoke_read("b", "a")  # revoked before the restart
        await multi.set_shared_writes(SharedWritePolicy.only("lead", "scout"))
        await multi.remember("a", SECRET)
        before = {x: multi.readable_scopes(x) for x in multi.agents}
        assert SECRET in texts(await multi.recall("lead", QUERY))
        assert await multi.recall("b", QUERY) == []

    async with runtime(root, backend) as rt:
        # Different seeds: a stored registry wins over them.
        reopened = await MultiAgentMemoryController.open(
            rt.controller, rt.block_store, shared_writes=SharedWritePolicy.anyone()
        )
        assert reopened.persistent
        assert reopened.agents == frozenset({"a", "b", "lead", "scout"})
        assert {x: reopened.readable_scopes(x) for x in reopened.agents} == before
        assert reopened.visibility == VisibilityPolicy(
            {"lead": frozenset({"a"}), "scout": frozenset({"a"})}
        )
        assert reopened.shared_writes == SharedWritePolicy.only("lead", "scout")
        assert SECRET in texts(await reopened.recall("lead", QUERY))
        assert await reopened.recall("b", QUERY) == []  # the revoke held
        with pytest.raises(PolicyViolationError, match="may not write the shared scope"):
            await reopened.remember("a", "a tries to publish", shared=True)
        assert (await reopened.remember("scout", "scouted", shared=True)).namespace == "shared"
        # A change after the restart is stored too.
        await reopened.revoke_read("scout", "a")

    async with runtime(root, backend) as rt:
        third = await MultiAgentMemoryController.open(rt.controller, rt.block_store)
        assert await third.recall("scout", QUERY) == []
        assert SECRET in texts(await third.recall("lead", QUERY))
        history = await rt.block_store.history("shared", REGISTRY_LABEL)
        # One commit per change: 4 registrations, 3 grants, 1 revoke, 1 policy; then 1 revoke.
        assert [h.actor for h in history] == ["multiagent"] * 10


async def test_a_memory_without_a_registry_is_seeded_and_the_seed_persists(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    root = tmp_path / "memory"
    async with runtime(root, backend) as rt:
        multi = await MultiAgentMemoryController.open(
            rt.controller, rt.block_store, shared_writes=SharedWritePolicy.nobody()
        )
        assert multi.agents == frozenset()
        assert await rt.block_store.load("shared", REGISTRY_LABEL) is None  # nothing stored yet
        await multi.register_agent("a")
        await multi.register_agent("a")  # idempotent: no second commit
        assert len(await rt.block_store.history("shared", REGISTRY_LABEL)) == 1
    async with runtime(root, backend) as rt:
        multi = await MultiAgentMemoryController.open(rt.controller, rt.block_store)
        assert multi.agents == frozenset({"a"})
        assert multi.shared_writes == SharedWritePolicy.nobody()


async def test_two_controllers_over_one_memory_never_overwrite_each_other(
    runtime_multi: tuple[remem.Runtime, MultiAgentMemoryController],
) -> None:
    rt, first = runtime_multi
    second = await MultiAgentMemoryController.open(rt.controller, rt.block_store)
    await first.register_agent("a")
    await second.register_agent("b")  # committed on top of first's change, not over it
    assert second.agents == frozenset({"a", "b"})
    assert first.agents == frozenset({"a"})  # first sees the other's change after reload
    await first.reload()
    assert first.agents == frozenset({"a", "b"})
    await first.grant_read("a", "b")
    await second.grant_read("b", "a")
    await first.reload()
    assert first.visibility == VisibilityPolicy({"a": frozenset({"b"}), "b": frozenset({"a"})})


GOOD = {
    "agents": ["a"],
    "format": 1,
    "grants": {},
    "shared_scope": "shared",
    "shared_writes": "any",
}


def doc(**fields: object) -> str:
    return json.dumps({**GOOD, **fields})


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("not json", "not JSON"),
        ("[1,2]", "exactly the fields"),
        (json.dumps({**GOOD, "extra": 1}), "exactly the fields"),
        (doc(format=2), "format 2"),
        (doc(shared_scope="other"), "names the shared scope"),
        (doc(grants={"a": ["ghost"]}), "unregistered"),
        (doc(agents=[""]), "malformed"),
        (doc(agents="a"), "malformed"),
        (doc(shared_writes="some"), "malformed"),
        (doc(grants={"a": "b"}), "malformed"),
        (doc(shared_writes=[["a"]]), "malformed"),
        ("[" * 100_000, "not JSON"),
    ],
)
async def test_a_corrupted_registry_is_refused_on_load(
    runtime_multi: tuple[remem.Runtime, MultiAgentMemoryController], entry: str, problem: str
) -> None:
    rt, multi = runtime_multi
    await multi.register_agent("a")
    stored = await rt.block_store.load("shared", REGISTRY_LABEL)
    assert stored is not None
    change = BlockChange("replace", stored.entries[0], entry, 1, len(entry))
    await rt.block_store.commit(
        "shared", REGISTRY_LABEL, [entry], [change], expected_revision=stored.revision,
        actor="vandal", at=T0,
    )  # fmt: skip
    with pytest.raises(IntegrityError, match=problem) as caught:
        await MultiAgentMemoryController.open(rt.controller, rt.block_store)
    assert REGISTRY_LABEL in str(caught.value)
    with pytest.raises(IntegrityError):
        await multi.reload()
    assert multi.agents == frozenset({"a"})  # a failed reload keeps what was loaded


def test_the_stored_entry_is_one_clean_line_that_round_trips() -> None:
    state = RegistryState(
        frozenset({"a  b", "tab\there", "zoë", 'q"uote', "a"}),
        VisibilityPolicy({"a  b": frozenset({"zoë"}), "a": frozenset({'q"uote', "tab\there"})}),
        SharedWritePolicy.only("a  b", "ghost"),
    )
    entry = encode_registry(state, "shared")
    assert entry.isascii()
    assert " " not in entry
    assert "\t" not in entry
    assert decode_registry(entry, "shared") == state


async def test_open_refuses_what_is_not_a_block_store(
    runtime_multi: tuple[remem.Runtime, MultiAgentMemoryController],
) -> None:
    rt, _ = runtime_multi
    with pytest.raises(InvalidArgumentError, match="BlockStore"):
        await MultiAgentMemoryController.open(rt.controller, rt.stores.records)  # type: ignore[arg-type]
