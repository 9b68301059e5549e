"""Agent B never reads agent A's private memories through any read the wrapper exposes; a grant
opens exactly the granted scope; the shared scope is read by all."""

from __future__ import annotations

import pytest

from remem.context import PrimingConfig
from remem.errors import InvalidArgumentError, PolicyViolationError
from remem.models import MemoryKind
from remem.multiagent import MultiAgentMemoryController, private_scope

SECRET = "the vault code is 4417 zebra"


def texts(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.record.text for h in hits]


async def test_private_memory_is_read_by_its_owner_only(
    multi: MultiAgentMemoryController,
) -> None:
    record = await multi.remember("a", SECRET)
    assert record.namespace == private_scope("a") == "agent:a"
    assert SECRET in texts(await multi.recall("a", "vault code zebra"))
    assert await multi.recall("b", "vault code zebra") == []
    many = await multi.recall_many("b", ["vault code", "4417 zebra", SECRET])
    assert many == [[], [], []]


async def test_keyed_facts_and_priming_stay_in_readable_scopes(
    multi: MultiAgentMemoryController,
) -> None:
    keyed = {"subject": "vault", "attribute": "code", "value": "4417"}
    await multi.remember("a", SECRET, metadata=keyed)
    await multi.remember("a", "insight: the vault is audited weekly", kind=MemoryKind.INSIGHT)
    await multi.remember("b", "insight: b likes tea", kind=MemoryKind.INSIGHT)
    assert [f.text for f in await multi.keyed_facts("a")] == [SECRET]
    assert await multi.keyed_facts("b") == []
    config = PrimingConfig.chat_template()
    primed_b = await multi.prime("b", "s-b", config=config)
    primed_texts = " ".join(c.text for c in primed_b.candidates)
    assert "b likes tea" in primed_texts
    assert "vault" not in primed_texts
    primed_a = await multi.prime("a", "s-a", config=config)
    assert "audited weekly" in " ".join(c.text for c in primed_a.candidates)


async def test_a_grant_opens_the_owner_scope_and_a_revoke_closes_it(
    multi: MultiAgentMemoryController,
) -> None:
    await multi.remember("a", SECRET)
    await multi.grant_read("lead", "a")
    assert multi.readable_scopes("lead") == ("agent:a", "agent:lead", "shared")
    assert SECRET in texts(await multi.recall("lead", "vault code zebra"))
    assert await multi.recall("b", "vault code zebra") == []  # a grant is not transitive
    await multi.revoke_read("lead", "a")
    assert await multi.recall("lead", "vault code zebra") == []


async def test_shared_memories_are_read_by_every_agent(
    multi: MultiAgentMemoryController,
) -> None:
    record = await multi.remember("lead", "the release ships on friday", shared=True)
    assert record.namespace == "shared"
    for agent in ("a", "b", "lead"):
        assert texts(await multi.recall(agent, "release friday")) == [record.text]


async def test_unregistered_agents_and_bad_scopes_are_refused(
    multi: MultiAgentMemoryController,
) -> None:
    with pytest.raises(PolicyViolationError, match="register_agent"):
        await multi.recall("mallory", "anything")
    with pytest.raises(PolicyViolationError, match="register_agent"):
        await multi.grant_read("a", "mallory")
    with pytest.raises(InvalidArgumentError, match="own private scope"):
        await multi.revoke_read("a", "a")
    with pytest.raises(InvalidArgumentError, match="prefix"):
        MultiAgentMemoryController(multi.controller, shared_scope="agent:x")


@pytest.mark.parametrize(
    ("first", "second"),
    [("a", "a:b"), ("o'brien", 'o"brien'), ("x%", "x_"), ("zoë", "zoe"), ("' OR 1=1 --", "*")],
)
async def test_agent_ids_that_look_alike_get_distinct_scopes(
    multi: MultiAgentMemoryController, first: str, second: str
) -> None:
    await multi.register_agent(first)
    await multi.register_agent(second)
    assert private_scope(first) != private_scope(second)
    await multi.remember(first, SECRET)
    assert SECRET in texts(await multi.recall(first, "vault code zebra"))
    assert await multi.recall(second, "vault code zebra") == []
    assert await multi.keyed_facts(second) == []


async def test_recall_kinds_narrow_within_the_readable_scopes(
    multi: MultiAgentMemoryController,
) -> None:
    await multi.remember("a", "a prefers green tea", kind=MemoryKind.PREFERENCE)
    await multi.remember("a", "a drank green tea today", kind=MemoryKind.EVENT)
    hits = await multi.recall("a", "green tea", kinds=[MemoryKind.PREFERENCE])
    assert texts(hits) == ["a prefers green tea"]
    assert await multi.recall("b", "green tea", kinds=["preference", "event"]) == []
    with pytest.raises(InvalidArgumentError, match="unknown kind"):
        await multi.recall("a", "green tea", kinds=["gossip"])
