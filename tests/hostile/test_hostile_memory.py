"""Every public entry point of a Runtime (controller, stores, blocks, lifecycle) under hostile
arguments, on both backends: only a RememError escapes, and a refused call changes nothing.

One hostile value goes into one argument; the others are valid (the seeded ids of
``shared_memory``), so the check that refuses it is the one under test.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given

import remem
from remem.blocks import BlockEdit
from remem.errors import RememError, shown
from tests.hostile.conftest import Shared, snapshot
from tests.hostile.strategies import MEMORY_SETTINGS, hostile

T = datetime(2026, 5, 1, tzinfo=UTC)
Call = Callable[[remem.Runtime, dict[str, str], Any], Awaitable[Any]]


@dataclass(frozen=True)
class Entry:
    name: str
    call: Call
    writes: bool = False

    def __repr__(self) -> str:
        return self.name


def _c(rt: remem.Runtime) -> Any:
    return rt.controller


async def _blocks_apply_label(rt: remem.Runtime, ids: dict[str, str], x: Any) -> Any:
    blocks = await rt.blocks("default")
    return await blocks.apply(x, [BlockEdit.add("Ana reads novels")])


async def _blocks_apply_edits(rt: remem.Runtime, ids: dict[str, str], x: Any) -> Any:
    blocks = await rt.blocks("default")
    return await blocks.apply(blocks.labels[0], x)


async def _blocks_add_text(rt: remem.Runtime, ids: dict[str, str], x: Any) -> Any:
    blocks = await rt.blocks("default")
    return await blocks.apply(blocks.labels[0], [BlockEdit.add(x)])


async def _transcript(rt: remem.Runtime) -> Any:
    store = (await rt.controller.settled()).transcript
    assert store is not None
    return store


async def _get_entries_since(rt: remem.Runtime, ids: dict[str, str], x: Any) -> Any:
    return await (await _transcript(rt)).get_entries("s1", since_turn=x)


async def _get_entries_limit(rt: remem.Runtime, ids: dict[str, str], x: Any) -> Any:
    return await (await _transcript(rt)).get_entries("s1", limit=x)


def _transcript_call(method: str) -> Call:
    async def call(rt: remem.Runtime, ids: dict[str, str], x: Any) -> Any:
        return await getattr(await _transcript(rt), method)(x)

    return call


WRITES = [
    Entry("record_turn session_id", lambda rt, i, x: _c(rt).record_turn(x, "hi", "yo"), True),
    Entry("record_turn user", lambda rt, i, x: _c(rt).record_turn("s1", x, "yo"), True),
    Entry("record_turn assistant", lambda rt, i, x: _c(rt).record_turn("s1", "hi", x), True),
    Entry(
        "record_turn turn_number",
        lambda rt, i, x: _c(rt).record_turn("s9", "hi", "yo", turn_number=x),
        True,
    ),
    Entry(
        "record_turn entry_id",
        lambda rt, i, x: _c(rt).record_turn("s1", "a", "b", entry_id=x),
        True,
    ),
    Entry(
        "record_turn created_at",
        lambda rt, i, x: _c(rt).record_turn("s1", "a", "b", created_at=x),
        True,
    ),
    Entry(
        "record_turn metadata",
        lambda rt, i, x: _c(rt).record_turn("s1", "a", "b", metadata=x),
        True,
    ),
    Entry("record_turns turns", lambda rt, i, x: _c(rt).record_turns("s1", x), True),
    Entry("record_turns pair", lambda rt, i, x: _c(rt).record_turns("s1", [("ok", "ok"), x]), True),
    Entry("remember text", lambda rt, i, x: _c(rt).remember(x), True),
    Entry("remember kind", lambda rt, i, x: _c(rt).remember("Ana", kind=x), True),
    Entry("remember namespace", lambda rt, i, x: _c(rt).remember("Ana", namespace=x), True),
    Entry("remember session_id", lambda rt, i, x: _c(rt).remember("Ana", session_id=x), True),
    Entry("remember metadata", lambda rt, i, x: _c(rt).remember("Ana", metadata=x), True),
    Entry("remember entities", lambda rt, i, x: _c(rt).remember("Ana", entities=x), True),
    Entry("remember vector", lambda rt, i, x: _c(rt).remember("Ana", vector=x), True),
    Entry("remember memory_id", lambda rt, i, x: _c(rt).remember("Ana", memory_id=x), True),
    Entry("remember valid_from", lambda rt, i, x: _c(rt).remember("Ana", valid_from=x), True),
    Entry("remember provenance", lambda rt, i, x: _c(rt).remember("Ana", provenance=x), True),
    Entry("remember_many items", lambda rt, i, x: _c(rt).remember_many(x), True),
    Entry("remember_many item", lambda rt, i, x: _c(rt).remember_many(["Ana", x]), True),
    Entry("remember_many vectors", lambda rt, i, x: _c(rt).remember_many(["a"], vectors=x), True),
    Entry("forget ids", lambda rt, i, x: _c(rt).forget(x), True),
    Entry("forget id", lambda rt, i, x: _c(rt).forget([x]), True),
    Entry("supersede old", lambda rt, i, x: _c(rt).supersede(x, i["live"]), True),
    Entry("supersede new", lambda rt, i, x: _c(rt).supersede(i["superseded"], x), True),
    Entry(
        "supersede at", lambda rt, i, x: _c(rt).supersede(i["superseded"], i["live"], at=x), True
    ),
    Entry("supersede_many items", lambda rt, i, x: _c(rt).supersede_many(x), True),
    Entry("supersede_many item", lambda rt, i, x: _c(rt).supersede_many([x]), True),
    Entry("blocks apply label", _blocks_apply_label, True),
    Entry("blocks apply edits", _blocks_apply_edits, True),
    Entry("blocks add text", _blocks_add_text, True),
    Entry("transcript delete_session", _transcript_call("delete_session"), True),
    Entry("lifecycle execute", lambda rt, i, x: rt.lifecycle.execute(x), True),  # type: ignore[union-attr]
]

READS = [
    Entry("recall query", lambda rt, i, x: _c(rt).recall(x)),
    Entry("recall k", lambda rt, i, x: _c(rt).recall("Ana", k=x)),
    Entry("recall stages", lambda rt, i, x: _c(rt).recall("Ana", stages=x)),
    Entry("recall filters", lambda rt, i, x: _c(rt).recall("Ana", filters=x)),
    Entry("recall filter value", lambda rt, i, x: _c(rt).recall("Ana", filters={"kind": x})),
    Entry("recall include_decayed", lambda rt, i, x: _c(rt).recall("Ana", include_decayed=x)),
    Entry("recall vector", lambda rt, i, x: _c(rt).recall("Ana", vector=x)),
    Entry("recall sources", lambda rt, i, x: _c(rt).recall("Ana", sources=x)),
    Entry("recall session_id", lambda rt, i, x: _c(rt).recall("Ana", session_id=x)),
    Entry("recall_many queries", lambda rt, i, x: _c(rt).recall_many(x)),
    Entry("recall_many vectors", lambda rt, i, x: _c(rt).recall_many(["Ana"], vectors=x)),
    Entry("keyed_facts subjects", lambda rt, i, x: _c(rt).keyed_facts(subjects=x)),
    Entry("keyed_facts namespace", lambda rt, i, x: _c(rt).keyed_facts(namespace=x)),
    Entry(
        "keyed_facts include_superseded", lambda rt, i, x: _c(rt).keyed_facts(include_superseded=x)
    ),
    Entry("prime session_id", lambda rt, i, x: _c(rt).prime(x)),
    Entry("prime now", lambda rt, i, x: _c(rt).prime("s1", now=x)),
    Entry("prime namespace", lambda rt, i, x: _c(rt).prime("s1", namespace=x)),
    Entry("records get", lambda rt, i, x: rt.stores.records.get(x)),
    Entry("records scan stages", lambda rt, i, x: rt.stores.records.scan(stages=x)),
    Entry("records scan namespace", lambda rt, i, x: rt.stores.records.scan(namespace=x)),
    Entry("records count", lambda rt, i, x: rt.stores.records.count(stages=x)),
    Entry("transcript get_session", _transcript_call("get_session")),
    Entry("transcript get_entries", _transcript_call("get_entries")),
    Entry("transcript get_entries since_turn", _get_entries_since),
    Entry("transcript get_entries limit", _get_entries_limit),
    Entry("episodic search", lambda rt, i, x: rt.stores.episodic.search(x)),
    Entry("episodic search limit", lambda rt, i, x: rt.stores.episodic.search("Ana", limit=x)),
    Entry("episodic days", lambda rt, i, x: rt.stores.episodic.days(x)),
    Entry("vectors count", lambda rt, i, x: rt.stores.vectors.count(x)),
    Entry("vectors get_collection", lambda rt, i, x: rt.stores.vectors.get_collection(x)),
    Entry("blocks namespace", lambda rt, i, x: rt.blocks(x)),
    Entry("blocks config", lambda rt, i, x: rt.blocks("default", x)),
    Entry("lifecycle preview", lambda rt, i, x: rt.lifecycle.preview(x)),  # type: ignore[union-attr]
]


def drive(shared: Shared, entry: Entry, value: Any) -> None:
    """Call ``entry`` with ``value``; only a RememError may escape, and if it does, a write
    must have changed nothing stored."""
    rt = shared.runtime
    before = shared.run(snapshot(rt)) if entry.writes else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow notes
            shared.run(entry.call(rt, shared.ids, value))
    except RememError:
        if before is not None:
            assert shared.run(snapshot(rt)) == before, f"{entry.name}({shown(value)}) changed data"
    except Exception as exc:  # the assertion names the call and the input
        raise AssertionError(
            f"{entry.name}({shown(value)}) raised {type(exc).__name__}: {exc}"
        ) from exc


@pytest.mark.parametrize("entry", WRITES, ids=repr)
@MEMORY_SETTINGS
@given(value=hostile)
def test_writes_refuse_hostile_input_and_change_nothing(
    shared_memory: Shared, entry: Entry, value: Any
) -> None:
    drive(shared_memory, entry, value)


@pytest.mark.parametrize("entry", READS, ids=repr)
@MEMORY_SETTINGS
@given(value=hostile)
def test_reads_refuse_hostile_input(shared_memory: Shared, entry: Entry, value: Any) -> None:
    drive(shared_memory, entry, value)
