"""One namespace rule at every entry point: a blank or whitespace-only scope name is refused.

The controller, the service (which REST and MCP translate), the companion and the multi-agent
controller all check names with :func:`remem.scopes.check_namespace`; each refuses ``""``,
``" "``, ``"\\t\\n"`` and a Unicode-whitespace-only name with a typed error that names the value
and says what to pass, before anything is written. A real embedded memory underneath.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.companion import CompanionConfig
from remem.controller import ExtractionResult, MemorySpec
from remem.errors import ConfigError, InvalidArgumentError
from remem.models import ManualClock
from remem.multiagent import MultiAgentMemoryController, private_scope
from remem.scopes import check_namespace, normalize_namespaces
from remem.service import MemoryService, ServiceConfig

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
BLANKS = ["", " ", "   ", "\t\n", "\u3000\u00a0"]


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[remem.Runtime]:
    async with remem.Runtime.open(
        tmp_path / "memory", embedding_provider="hashing", clock=ManualClock(T0)
    ) as rt:
        yield rt


@pytest.mark.parametrize("blank", BLANKS)
def test_the_rule_refuses_blank_names_and_says_what_to_pass(blank: str) -> None:
    with pytest.raises(InvalidArgumentError, match="scope_name") as caught:
        check_namespace(blank)
    assert repr(blank) in str(caught.value) or "str naming a scope" in str(caught.value)
    with pytest.raises(InvalidArgumentError):
        normalize_namespaces(["ok", blank])
    assert check_namespace(" alice") == " alice"  # used as given, never stripped


async def test_every_controller_entry_point_refuses_a_blank_scope(runtime: remem.Runtime) -> None:
    c = runtime.controller
    calls: dict[str, Callable[[str], Awaitable[Any]]] = {
        "remember": lambda ns: c.remember("a fact", namespace=ns),
        "remember_many": lambda ns: c.remember_many(["a fact"], namespace=ns),
        "remember_many spec": lambda ns: c.remember_many([MemorySpec("a fact", namespace=ns)]),
        "record_turn": lambda ns: c.record_turn("s1", "hi", "hello", namespace=ns),
        "record_turns": lambda ns: c.record_turns("s2", [("hi", "hello")], namespace=ns),
        "recall": lambda ns: c.recall("fact", namespace=ns),
        "recall_many": lambda ns: c.recall_many(["fact"], namespace=ns),
        "search_text": lambda ns: c.search_text("fact", namespace=ns),
        "keyed_facts": lambda ns: c.keyed_facts(namespace=ns),
        "prime": lambda ns: c.prime("s3", namespace=ns),
        "list_sessions": lambda ns: c.list_sessions(namespace=ns),
        "apply_extraction": lambda ns: c.apply_extraction(ExtractionResult(), [], namespace=ns),
    }
    for name, call in calls.items():
        for blank in BLANKS:
            with pytest.raises(InvalidArgumentError, match="namespace") as caught:
                await call(blank)
            assert "scope" in str(caught.value), name
    # Nothing was written by any refused call.
    assert await c.list_sessions() == []
    assert await c.recall("a fact", k=5) == []


async def test_the_service_refuses_a_blank_scope_the_same_way(runtime: remem.Runtime) -> None:
    service = MemoryService(runtime)
    for blank in BLANKS[1:]:  # "" is refused too, with the same rule
        with pytest.raises(InvalidArgumentError, match="blank"):
            await service.remember("a fact", namespace=blank)
        with pytest.raises(InvalidArgumentError, match="blank"):
            await service.recall("a fact", namespace=blank)
        with pytest.raises(InvalidArgumentError, match="blank"):
            await service.list_sessions(namespace=blank)
        with pytest.raises(ConfigError, match="blank"):
            ServiceConfig(namespace=blank)
    with pytest.raises(InvalidArgumentError, match="at most 200"):
        await service.recall("a fact", namespace="x" * 201)  # the server's tighter bound stays


@pytest.mark.parametrize("blank", BLANKS)
def test_the_companion_refuses_a_blank_scope(blank: str) -> None:
    with pytest.raises(ConfigError, match=r"CompanionConfig\.namespace") as caught:
        CompanionConfig(namespace=blank)
    assert "scope_name" in str(caught.value)


@pytest.mark.parametrize("blank", BLANKS)
async def test_the_multi_agent_controller_refuses_blank_scopes_and_agents(
    runtime: remem.Runtime, blank: str
) -> None:
    with pytest.raises(InvalidArgumentError, match="shared_scope"):
        MultiAgentMemoryController(runtime.controller, shared_scope=blank)
    multi = MultiAgentMemoryController(runtime.controller)
    with pytest.raises(InvalidArgumentError, match="non-blank"):
        await multi.register_agent(blank)
    with pytest.raises(InvalidArgumentError, match="non-blank"):
        private_scope(blank)
    assert multi.agents == frozenset()
