"""Cancelling a write at every await point loses nothing acknowledged and wedges nothing.

The three defects of issue #16: a cancelled ``record_turns`` let the next journaled
``record_turn`` reuse its turn number (it landed in the journal's ``rejected`` table); a
cancelled ``record_turn``/``record_turns`` wedged the session (every later auto-numbered turn
raised DuplicateIdError); a cancelled ``remember_many`` left memories without their vector or
note. Each test cancels the write at every checkpoint of the real stores (tests/cancellation.py:
deterministic, no timeouts), with write-behind on and off and on PostgreSQL, and checks after
every cancellation and again after reopening.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from remem import Runtime
from remem.controller import MemorySpec
from remem.embeddings import HashingEmbedder
from remem.models import EpisodeKind, MemoryStage
from remem.staging import CollectionManager
from remem.stores.duckdb import DuckDBRecordStore
from remem.stores.hnsw import HnswVectorStore
from remem.stores.postgres.episodic import PostgresEpisodicStore
from remem.stores.postgres.records import PostgresRecordStore
from remem.stores.postgres.transcript import PostgresTranscriptStore
from remem.stores.postgres.vector import PgVectorStore
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.sqlite.transcript import SQLiteTranscriptStore
from remem.writebehind import JournalFile
from tests.cancellation import CancelInjector, Phase, cancel_everywhere

STORES: tuple[type, ...] = (
    SQLiteTranscriptStore,
    SQLiteEpisodicStore,
    DuckDBRecordStore,
    HnswVectorStore,
    PostgresTranscriptStore,
    PostgresEpisodicStore,
    PostgresRecordStore,
    PgVectorStore,
    CollectionManager,
    JournalFile,
    HashingEmbedder,
)

SESSION = "s1"


@pytest.fixture(params=["before", "during", "after"])
def injector(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> CancelInjector:
    phase: Phase = request.param
    inj = CancelInjector(phase=phase)
    inj.patch(monkeypatch, *STORES)
    return inj


@pytest.fixture(params=["write_behind", "direct", "postgres"])
def options(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    base: dict[str, Any] = {"embedding_provider": "hashing"}
    if request.param == "postgres":
        dsn = request.getfixturevalue("pg_dsn")
        yield {**base, "backend": "postgres", "dsn": dsn}
    else:
        yield {**base, "write_behind": request.param == "write_behind"}


def open_runtime(path: Path, options: dict[str, Any]) -> Runtime:
    return Runtime.open(path, **options)


async def started(path: Path, options: dict[str, Any]) -> Runtime:
    rt = await open_runtime(path, options).start()
    if rt.controller.write_behind is not None:
        rt.controller.write_behind.max_delay = 3600.0  # no timer: applying is deterministic
    return rt


async def check_transcript(
    rt: Runtime, acknowledged: list[str], attempts: dict[int, list[str]]
) -> None:
    """Numbers 1..K without a gap or a repeat, every acknowledged turn there and indexed, each
    cancelled write wholly there or wholly absent, and nothing refused by the journal."""
    c = rt.controller
    transcript = (await c.settled()).transcript
    assert transcript is not None
    entries = await transcript.get_entries(SESSION)
    assert [e.turn_number for e in entries] == list(range(1, len(entries) + 1))
    ids = {e.id for e in entries}
    assert set(acknowledged) <= ids
    users = {e.user_message for e in entries}
    for n, messages in attempts.items():
        present = [m in users for m in messages]
        assert all(present) or not any(present), f"attempt {n} is half-written: {present}"
    days = await (await c.settled()).episodic.days(SESSION)
    assert {e.id for d in days.values() for e in d} == ids
    if c.write_behind is not None:
        assert await c.write_behind.file.rejected() == []
    assert c.failures() == []


async def cancelled_turns(
    tmp_path: Path, options: dict[str, Any], injector: CancelInjector, *, many: bool
) -> None:
    path = tmp_path / "m"
    acknowledged: list[str] = []
    attempts: dict[int, list[str]] = {}
    rt = await started(path, options)
    try:
        c = rt.controller
        acknowledged.append((await c.record_turn(SESSION, "first", "ok")).id)

        async def write(n: int) -> object:
            if many:
                attempts[n] = [f"batch {n} turn {j}" for j in range(3)]
                return await c.record_turns(SESSION, [(m, "ok") for m in attempts[n]])
            attempts[n] = [f"single {n}"]
            return await c.record_turn(SESSION, attempts[n][0], "ok")

        async def check(n: int, cancelled: bool) -> None:
            # The session is not wedged: the next auto-numbered turn is acknowledged...
            entry = await c.record_turn(SESSION, f"after {n}", "ok")
            acknowledged.append(entry.id)
            # ...and everything acknowledged so far is readable, numbered without a clash.
            await check_transcript(rt, acknowledged, attempts)

        reached = await cancel_everywhere(injector, write, check)
        assert reached > 1  # the write had at least one checkpoint to cancel at
    finally:
        await rt.aclose()
    reopened = await started(path, options)
    try:
        await check_transcript(reopened, acknowledged, attempts)
        entry = await reopened.controller.record_turn(SESSION, "after reopening", "ok")
        transcript = (await reopened.controller.settled()).transcript
        assert transcript is not None
        assert entry.turn_number == len(await transcript.get_entries(SESSION))
    finally:
        await reopened.aclose()


async def test_a_cancelled_record_turn_wedges_nothing(
    tmp_path: Path, options: dict[str, Any], injector: CancelInjector
) -> None:
    await cancelled_turns(tmp_path, options, injector, many=False)


async def test_a_cancelled_record_turns_wedges_nothing(
    tmp_path: Path, options: dict[str, Any], injector: CancelInjector
) -> None:
    await cancelled_turns(tmp_path, options, injector, many=True)


async def check_memories(
    rt: Runtime, acknowledged: list[str], attempts: dict[int, list[str]]
) -> None:
    """Each memory is whole (record + vector + note) or absent; each remember_many wholly."""
    c = rt.controller
    records = {r.id for r in await (await c.settled()).records.scan()}
    everything = [i for ids in attempts.values() for i in ids] + acknowledged
    vectors = {v.id for v in await c.collection_manager.vectors(everything, MemoryStage.SHORT_TERM)}
    hits = await (await c.settled()).episodic.search("ledger", limit=10_000)
    notes = {h.id for h in hits if h.kind is EpisodeKind.NOTE}
    assert set(acknowledged) <= records
    assert records == vectors == notes, "a memory is missing its vector or its note"
    for n, ids in attempts.items():
        present = [i in records for i in ids]
        assert all(present) or not any(present), f"remember_many {n} is half-written: {present}"
    assert c.failures() == []


async def test_a_cancelled_remember_many_is_all_or_nothing(
    tmp_path: Path, options: dict[str, Any], injector: CancelInjector
) -> None:
    path = tmp_path / "m"
    acknowledged: list[str] = []
    attempts: dict[int, list[str]] = {}
    rt = await started(path, options)
    try:
        c = rt.controller

        async def write(n: int) -> object:
            attempts[n] = [f"m-{n}-{j}" for j in range(3)]
            specs = [
                MemorySpec(f"ledger entry {n} {j}", memory_id=i) for j, i in enumerate(attempts[n])
            ]
            return await c.remember_many(specs)

        async def check(n: int, cancelled: bool) -> None:
            memory = await c.remember(f"ledger acknowledged {n}")
            acknowledged.append(memory.id)
            await check_memories(rt, acknowledged, attempts)

        assert await cancel_everywhere(injector, write, check) > 1
    finally:
        await rt.aclose()
    reopened = await started(path, options)
    try:
        await check_memories(reopened, acknowledged, attempts)
    finally:
        await reopened.aclose()
