"""Scoped reads through the controller: what scope A wrote never reaches a reader of scope B.

Every read path the controller offers is driven as B after A wrote a secret through turns, a
memory (with a graph entity) and a keyed fact; B's own turns stay findable, also through
``filters={"namespace": "B"}``; a multi-scope controller refuses every unscoped read and turn
write with ScopeRequiredError. Real embedded stores, direct and write-behind (the fixture).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

import pytest

from remem.context.priming import PrimingConfig
from remem.controller import ControllerConfig
from remem.errors import InvalidArgumentError, ScopeRequiredError
from remem.models import ScoredMemory
from remem.scopes import scope_name
from tests.controller.conftest import Factory, Stack

SECRET = "zanzibar"
A = scope_name(user="alice")
B = scope_name(user="bob")


def texts(hits: list[ScoredMemory]) -> str:
    return "\n".join(h.record.text for h in hits)


async def write_secrets(s: Stack) -> None:
    c = s.controller
    await c.record_turn("sa", f"my password is {SECRET} tulip", "noted", namespace=A)
    await c.remember(f"Alice's locker code is {SECRET}", namespace=A, entities=["Quolbert"])
    await c.remember(
        f"alice pin is {SECRET}",
        namespace=A,
        metadata={"subject": "alice", "attribute": "pin", "value": SECRET},
    )
    await c.record_turn("sb", "my favourite flower is the tulip", "lovely", namespace=B)
    await c.record_turn("sb", "I walk my dog at noon", "nice", namespace=B)


async def test_a_secret_of_a_never_reaches_b(make_stack: Factory) -> None:
    s = await make_stack()
    await write_secrets(s)
    c = s.controller
    queries = [f"what is the password {SECRET}", "Quolbert locker", f"pin {SECRET}", "tulip"]

    for query in queries:
        assert SECRET not in texts(await c.recall(query, namespace=B, k=20))
        assert SECRET not in texts(await c.recall(query, namespace=[B], session_id="sa", k=20))
    for hits in await c.recall_many(queries, namespace=B, k=20):
        assert SECRET not in texts(hits)
    for query in queries:
        assert all(SECRET not in h.text for h in await c.search_text(query, namespace=B))
    assert await c.keyed_facts(namespace=B) == []
    assert [s.session_id for s in await c.list_sessions(namespace=B)] == ["sb"]
    # Every section on: entities, facts, insights, summaries and earlier sessions' turns.
    everything = dataclasses.replace(
        PrimingConfig.controller_fallback(), previous_sessions=5, previous_session_turns=5
    )
    priming = await c.prime("sb-next", namespace=B, config=everything)
    assert SECRET not in repr(priming)
    assert "tulip" in repr(priming)  # B's own earlier session is primed
    assert SECRET in repr(await c.prime("sa-next", namespace=A, config=everything))

    # A sees its own secret on the same paths, so the assertions above are not vacuous.
    assert SECRET in texts(await c.recall(f"password {SECRET}", namespace=A, k=20))
    assert [f.metadata["value"] for f in await c.keyed_facts(namespace=A)] == [SECRET]
    assert any(SECRET in h.text for h in await c.search_text(SECRET, namespace=A))
    assert [s.session_id for s in await c.list_sessions(namespace=[A, B])] == ["sa", "sb"]


async def test_b_finds_its_own_turns_also_through_a_namespace_filter(make_stack: Factory) -> None:
    s = await make_stack()
    await write_secrets(s)
    c = s.controller
    for call in (
        c.recall("tulip flower", filters={"namespace": B}, k=20),
        c.recall("tulip flower", namespace=B, k=20),
        c.recall("tulip flower", namespace=B, session_id="sb", k=20),
    ):
        hits = await call
        assert "favourite flower is the tulip" in texts(hits)
        assert SECRET not in texts(hits)
        assert {h.record.namespace for h in hits} == {B}
    unscoped = texts(await c.recall(f"tulip {SECRET}", k=20))
    assert SECRET in unscoped  # a single-scope controller: an unscoped read sees every scope
    assert "favourite flower" in unscoped


async def test_a_session_keeps_its_scope(make_stack: Factory) -> None:
    s = await make_stack()
    await s.controller.record_turn("sa", "hello", "hi", namespace=A)
    await s.controller.record_turn("sa", "again", "hi")  # no namespace: the session's own
    with pytest.raises(InvalidArgumentError, match="belongs to namespace"):
        await s.controller.record_turn("sa", "sneaky", "no", namespace=B)
    assert [x.session_id for x in await s.controller.list_sessions(namespace=A)] == ["sa"]
    hits = await s.controller.search_text("again", namespace=A)
    assert [h.namespace for h in hits] == [A]


async def test_a_multi_scope_controller_refuses_unscoped_reads_and_writes(
    make_stack: Factory,
) -> None:
    s = await make_stack(config=ControllerConfig(scopes="multi"))
    c = s.controller
    await c.record_turn("sa", "scoped turn", "ok", namespace=A)
    unscoped: list[Callable[[], Awaitable[object]]] = [
        lambda: c.recall("turn"),
        lambda: c.recall_many(["turn"]),
        lambda: c.search_text("turn"),
        lambda: c.keyed_facts(),
        lambda: c.prime("sa"),
        lambda: c.list_sessions(),
        lambda: c.record_turn("sb", "unscoped", "no"),
        lambda: c.record_turns("sb", [("unscoped", "no")]),
    ]
    for call in unscoped:
        with pytest.raises(ScopeRequiredError, match="pass namespace="):
            await call()
    assert [h.namespace for h in await c.search_text("scoped", namespace=A)] == [A]
    assert await c.recall("scoped turn", namespace=B) == []
    assert "scoped turn" in texts(await c.recall("scoped turn", namespace=A))


def test_the_runtime_config_names_the_mode() -> None:
    from remem.errors import ConfigError
    from remem.runtime_config import RuntimeConfig

    assert RuntimeConfig().scopes == "single"
    assert RuntimeConfig.from_mapping({"scopes": "multi"}).scopes == "multi"
    with pytest.raises(ConfigError, match="single"):
        RuntimeConfig(scopes="many")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="single"):
        ControllerConfig(scopes="x")  # type: ignore[arg-type]
