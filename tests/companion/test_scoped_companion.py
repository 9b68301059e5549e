"""A companion of namespace B never shows A's memories: prompt sections, tools, priming, sessions.

A's secret is written through A's companion (extracted facts, graph entities and relationships,
the message memory) and through ``remember`` in A; B's companion then asks for it. Each check
also runs as A, so a check that could never see the secret (and so proves nothing) fails.
Every test runs on the embedded files and on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.brains import Completion, ScriptedBrain, ToolCall
from remem.companion import Companion, CompanionConfig
from remem.context import PrimingConfig
from remem.errors import InvalidArgumentError
from remem.models import ManualClock, MemoryKind
from tests.companion.doubles import PatternExtractor

SECRETS = ("Zanzibar", "Initech", "OCELOT")
QUESTION = "Where do I live, where is my job at, and what is my secret code?"


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
async def runtime(
    tmp_path: Path, clock: ManualClock, request: pytest.FixtureRequest
) -> AsyncIterator[remem.Runtime]:
    """The conftest's embedded Runtime, and the same on PostgreSQL."""
    backend: dict[str, Any] = {}
    if request.param == "postgres":
        backend = {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}
    async with remem.Runtime.open(tmp_path / "memory", clock=clock, **backend) as rt:
        yield rt


def search_call(query: str) -> Completion:
    return Completion(tool_calls=(ToolCall("call_1", "search_memory", {"query": query}),))


async def write_as_a(runtime: remem.Runtime) -> None:
    a = Companion(
        ScriptedBrain(default="Noted."),
        runtime,
        config=CompanionConfig(namespace="A"),
        extractor=PatternExtractor(),
    )
    await a.turn("I moved to Zanzibar", session_id="sA")
    await a.turn("I started a job at Initech", session_id="sA")
    await runtime.controller.remember(
        "The user's secret code is OCELOT", kind=MemoryKind.FACT, namespace="A"
    )


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s.lower() in text.lower()]


async def test_b_prompt_holds_none_of_a_secrets(runtime: remem.Runtime) -> None:
    await write_as_a(runtime)
    as_a = Companion(ScriptedBrain(default="ok"), runtime, config=CompanionConfig(namespace="A"))
    as_b = Companion(ScriptedBrain(default="ok"), runtime, config=CompanionConfig(namespace="B"))
    seen_by_a = await as_a.build_prompt(QUESTION, session_id="sA2")
    assert leaks(seen_by_a.text) == list(SECRETS)  # the control: A's own prompt has them all
    seen_by_b = await as_b.build_prompt(QUESTION, session_id="sB")
    assert leaks(seen_by_b.text) == []
    assert all(leaks(h.record.text) == [] for h in seen_by_b.recalled)


async def test_b_search_memory_tool_finds_none_of_a_secrets(runtime: remem.Runtime) -> None:
    await write_as_a(runtime)
    query = "Zanzibar Initech OCELOT secret code lives works"
    outputs = {}
    for ns in ("A", "B"):
        brain = ScriptedBrain([search_call(query), "done"])
        result = await Companion(brain, runtime, config=CompanionConfig(namespace=ns)).turn(
            "search please", session_id=f"search-{ns}"
        )
        outputs[ns] = result.tool_results[0].result
    assert leaks(outputs["A"]) == list(SECRETS)
    assert outputs["B"] == f"No memories match {query!r}."  # it echoes the query, nothing else


async def test_b_priming_has_none_of_a_entities_or_facts(runtime: remem.Runtime) -> None:
    await write_as_a(runtime)
    controller = runtime.controller
    config = CompanionConfig().priming
    assert isinstance(config, PrimingConfig)
    primed_a = await controller.prime("sA3", config=config, namespace="A")
    primed_b = await controller.prime("sB", config=config, namespace="B")
    assert leaks(f"{primed_a.candidates}") == ["Zanzibar", "Initech"]  # entities and facts
    assert leaks(f"{primed_b.candidates}{primed_b.history}") == []


async def test_b_extraction_writes_b_entities_not_a_shared_user(runtime: remem.Runtime) -> None:
    await write_as_a(runtime)
    b = Companion(
        ScriptedBrain(default="Noted."),
        runtime,
        config=CompanionConfig(namespace="B"),
        extractor=PatternExtractor(),
    )
    result = await b.turn("I moved to Lisbon", session_id="sB")
    assert {r.namespace for r in result.post_turn.records} == {"B"}
    graph = (await runtime.controller.settled()).graph
    users = [e for e in await graph.list_entities() if e.name == "user"]
    assert sorted(e.namespace for e in users) == ["A", "B"]
    b_names = {e.name for e in await graph.list_entities(namespace="B")}
    assert b_names == {"user", "Lisbon"}


async def test_b_cannot_continue_a_session(runtime: remem.Runtime) -> None:
    await write_as_a(runtime)
    b = Companion(ScriptedBrain(default="ok"), runtime, config=CompanionConfig(namespace="B"))
    with pytest.raises(InvalidArgumentError, match="belongs to namespace"):
        await b.turn(QUESTION, session_id="sA")
    with pytest.raises(InvalidArgumentError, match="belongs to namespace"):
        await b.build_prompt(QUESTION, session_id="sA")
