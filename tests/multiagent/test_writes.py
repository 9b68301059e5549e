"""The shared-write policy both ways, metadata that claims a scope, handoff, provenance."""

from __future__ import annotations

import pytest

from remem.errors import InvalidArgumentError, PolicyViolationError
from remem.models import MemoryStage
from remem.multiagent import MultiAgentMemoryController, SharedWritePolicy
from tests.multiagent.conftest import T0


async def test_allow_list_lets_only_named_agents_write_shared(
    multi: MultiAgentMemoryController,
) -> None:
    await multi.set_shared_writes(SharedWritePolicy.only("lead"))
    written = await multi.remember("lead", "deploys freeze at noon", shared=True)
    assert written.namespace == "shared"
    with pytest.raises(PolicyViolationError, match="may not write the shared scope"):
        await multi.remember("a", "a tries to publish", shared=True)
    assert [h.record.text for h in await multi.recall("b", "publish")] == []


async def test_nobody_policy_refuses_shared_writes_and_handoffs(
    multi: MultiAgentMemoryController,
) -> None:
    await multi.set_shared_writes(SharedWritePolicy.nobody())
    own = await multi.remember("a", "a private plan")
    with pytest.raises(PolicyViolationError):
        await multi.remember("lead", "nothing shared", shared=True)
    with pytest.raises(PolicyViolationError):
        await multi.handoff("a", [own.id])
    assert [h.record.id for h in await multi.recall("a", "private plan")] == [own.id]


async def test_metadata_claiming_shared_does_not_promote(
    multi: MultiAgentMemoryController,
) -> None:
    claims = {"namespace": "shared", "scope": "shared", "shared": True}
    record = await multi.remember("a", "a claims this is shared", metadata=claims)
    assert record.namespace == "agent:a"
    assert record.metadata == claims  # kept as data
    assert await multi.recall("b", "claims shared") == []
    assert await multi.recall("lead", "claims shared") == []


async def test_handoff_moves_a_private_memory_to_shared_with_provenance(
    multi: MultiAgentMemoryController,
) -> None:
    original = await multi.remember("a", "the API key rotates monthly", confidence=0.75)
    assert await multi.recall("b", "API key rotates") == []
    [moved] = await multi.handoff("a", [original.id], note="checked with ops")
    assert moved.namespace == "shared"
    assert moved.provenance.author_id == "a"
    assert moved.provenance.confidence == 0.75
    assert moved.provenance.parent_ids == (original.id,)
    assert moved.metadata == {"handed_off_by": "a", "handoff_note": "checked with ops"}
    hits_b = await multi.recall("b", "API key rotates")
    assert [h.record.id for h in hits_b] == [moved.id]
    # the private original is superseded, so its owner recalls the fact once
    assert [h.record.id for h in await multi.recall("a", "API key rotates")] == [moved.id]
    [kept] = await (await multi.controller.settled()).records.get([original.id])
    assert kept.superseded_by == moved.id


async def test_handoff_of_someone_elses_memory_is_refused(
    multi: MultiAgentMemoryController,
) -> None:
    secret = await multi.remember("a", "a's secret route")
    await multi.grant_read("lead", "a")  # reading is not owning
    with pytest.raises(PolicyViolationError, match="private scope"):
        await multi.handoff("lead", [secret.id])
    with pytest.raises(InvalidArgumentError, match="'shared' only"):
        await multi.handoff("a", [secret.id], to="agent:b")
    assert await multi.recall("b", "secret route") == []
    [still] = await (await multi.controller.settled()).records.get([secret.id])
    assert still.superseded_by is None
    assert still.lifecycle.stage is MemoryStage.SHORT_TERM


async def test_provenance_round_trips_through_recall(
    multi: MultiAgentMemoryController,
) -> None:
    await multi.remember("b", "b measured latency at 40 ms", source="benchmark", confidence=0.5)
    [hit] = await multi.recall("b", "latency 40 ms")
    prov = hit.record.provenance
    assert (prov.source_type, prov.author_id, prov.confidence) == ("benchmark", "b", 0.5)
    assert prov.created_at == T0
    with pytest.raises(InvalidArgumentError, match="confidence"):
        await multi.remember("b", "overconfident", confidence=1.5)
