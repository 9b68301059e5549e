"""Turns, extraction output (keyed facts, graph entities and relationships) and sessions written
in agent A's private scope reach agent B through none of the wrapper's reads — recall,
recall_many, prime, list_sessions, transcript, search_text, keyed_facts — until A's scope is
granted to B; what is written in the shared scope is read by both. Both backends (conftest)."""

from __future__ import annotations

import dataclasses

import pytest

from remem.context import PrimingConfig
from remem.controller import (
    ExtractedEntity,
    ExtractedMemory,
    ExtractedRelationship,
    ExtractionResult,
)
from remem.errors import InvalidArgumentError, NotFoundError, PolicyViolationError
from remem.models import MemoryStage, ScoredMemory
from remem.multiagent import MultiAgentMemoryController, private_scope

SECRET = "Quillmoth"
"""One word only A's scope holds; B asks about its context, never the word itself."""
QUERY = "vault code Zorbavault"
EVERYTHING = dataclasses.replace(
    PrimingConfig.controller_fallback(), previous_sessions=5, previous_session_turns=5
)


def texts(hits: list[ScoredMemory]) -> str:
    return "\n".join(h.record.text for h in hits)


async def write_as(multi: MultiAgentMemoryController, agent: str, session: str, word: str) -> None:
    """``agent`` records a turn in ``session`` (its private scope) and the controller applies
    an extraction of it: a keyed fact, an entity and a relationship naming ``word``."""
    entry = await multi.record_turn(agent, session, f"the Zorbavault code is {word}", "noted")
    sessions = {s.session_id: s for s in await multi.controller.list_sessions()}
    assert sessions[session].namespace == private_scope(agent)
    result = ExtractionResult(
        entities=(ExtractedEntity("Zorbavault", "thing"), ExtractedEntity(word, "code")),
        relationships=(ExtractedRelationship("Zorbavault", "opened_by", word),),
        memories=(
            ExtractedMemory(
                f"the Zorbavault code is {word}",
                entities=("Zorbavault", word),
                subject="zorbavault",
                attribute="code",
                value=word,
            ),
        ),
    )
    records = await multi.controller.apply_extraction(result, [entry])
    assert records
    assert {r.namespace for r in records} == {private_scope(agent)}


async def everything_read_by(multi: MultiAgentMemoryController, agent: str) -> str:
    """Every wrapper read for ``agent``, rendered as text."""
    out = [
        texts(await multi.recall(agent, QUERY, k=50)),
        *(texts(h) for h in await multi.recall_many(agent, [QUERY, "code", "opened by"], k=50)),
        repr(await multi.prime(agent, f"prime-{agent}", config=EVERYTHING)),
        "\n".join(f.text for f in await multi.keyed_facts(agent)),
        "\n".join(h.text for h in await multi.search_text(agent, SECRET, limit=50)),
    ]
    for session in await multi.list_sessions(agent):
        out.append(session.session_id)
        out += [repr(e) for e in await multi.transcript(agent, session.session_id)]
    return "\n".join(out)


async def test_a_private_turns_graph_and_sessions_reach_b_only_with_a_grant(
    multi: MultiAgentMemoryController,
) -> None:
    await write_as(multi, "a", "sa", SECRET)
    await write_as(multi, "b", "sb", "Tulipword")

    seen_by_a = await everything_read_by(multi, "a")
    assert SECRET in seen_by_a
    assert "Tulipword" not in seen_by_a
    seen_by_b = await everything_read_by(multi, "b")
    assert SECRET not in seen_by_b
    assert "sa" not in {s.session_id for s in await multi.list_sessions("b")}
    assert "Tulipword" in seen_by_b  # B's reads are not simply empty
    with pytest.raises(NotFoundError, match="there is no session 'sa' that agent 'b' may read"):
        await multi.transcript("b", "sa")
    with pytest.raises(NotFoundError, match="there is no session 'nowhere'"):
        await multi.transcript("a", "nowhere")

    await multi.grant_read("b", "a")
    seen_by_b = await everything_read_by(multi, "b")
    assert SECRET in seen_by_b
    assert "Tulipword" in seen_by_b
    assert [e.user_message for e in await multi.transcript("b", "sa")] == [
        f"the Zorbavault code is {SECRET}"
    ]
    await multi.revoke_read("b", "a")
    assert SECRET not in await everything_read_by(multi, "b")


async def test_recall_returns_episodic_turns_and_graph_hits_of_readable_scopes(
    multi: MultiAgentMemoryController,
) -> None:
    await write_as(multi, "a", "sa", SECRET)
    hits = await multi.recall("a", QUERY, k=50)
    stages = {h.record.lifecycle.stage for h in hits}
    assert MemoryStage.EPISODIC in stages
    assert any("graph" in h.sources for h in hits)
    assert {h.record.namespace for h in hits} == {private_scope("a")}
    # stages= is honoured: memories only, then turns only.
    memories = await multi.recall("a", QUERY, k=50, stages=["short_term", "long_term"])
    assert memories
    assert all(h.record.lifecycle.stage is not MemoryStage.EPISODIC for h in memories)
    turns = await multi.recall("a", QUERY, k=50, stages=[MemoryStage.EPISODIC])
    assert turns
    assert all(h.record.lifecycle.stage is MemoryStage.EPISODIC for h in turns)
    assert await multi.recall("b", QUERY, k=50) == []
    assert await multi.recall("b", QUERY, k=50, stages=[MemoryStage.EPISODIC]) == []


async def test_prime_includes_entities_known_facts_and_earlier_sessions_of_readable_scopes(
    multi: MultiAgentMemoryController,
) -> None:
    await write_as(multi, "a", "sa", SECRET)
    primed_a = await multi.prime("a", "sa-next", config=EVERYTHING)
    sections = {c.section.value for c in primed_a.candidates}
    assert {"entities", "known_facts"} <= sections, sections
    assert any(SECRET in t.user_message for t in primed_a.history)
    primed_b = await multi.prime("b", "sb-next", config=EVERYTHING)
    assert primed_b.candidates == ()
    assert primed_b.history == ()


async def test_the_shared_scope_is_read_by_every_agent(
    multi: MultiAgentMemoryController,
) -> None:
    await multi.controller.record_turn(
        "team", "the Zorbavault code is Sharedmoth", "noted", namespace=multi.shared_scope
    )
    await multi.remember("lead", "the Zorbavault is opened by Sharedmoth", shared=True)
    for agent in ("a", "b", "lead"):
        seen = await everything_read_by(multi, agent)
        assert "Sharedmoth" in seen, agent
        assert "team" in {s.session_id for s in await multi.list_sessions(agent)}
        turns = await multi.recall(agent, QUERY, k=50, stages=[MemoryStage.EPISODIC])
        assert "Sharedmoth" in texts(turns)


async def test_the_new_reads_and_record_turn_refuse_bad_input(
    multi: MultiAgentMemoryController,
) -> None:
    with pytest.raises(PolicyViolationError, match="'nobody' is not registered"):
        await multi.list_sessions("nobody")
    with pytest.raises(PolicyViolationError, match="'nobody' is not registered"):
        await multi.record_turn("nobody", "s1", "hi", "hello")
    with pytest.raises(PolicyViolationError, match="'nobody' is not registered"):
        await multi.search_text("nobody", "hi")
    with pytest.raises(InvalidArgumentError, match="session"):
        await multi.transcript("a", "")
    with pytest.raises(InvalidArgumentError, match="PrimingConfig"):
        await multi.prime("a", "s1", config="chat")  # type: ignore[arg-type]
    # A session belongs to one scope: B cannot add turns to A's session.
    await multi.record_turn("a", "sa", "hi", "hello")
    with pytest.raises(InvalidArgumentError, match="sa"):
        await multi.record_turn("b", "sa", "mine now", "no")
    assert [e.user_message for e in await multi.transcript("a", "sa")] == ["hi"]
