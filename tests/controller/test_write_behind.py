"""Write-behind through the Runtime (the embedded default): reads see every acknowledged write,
a crash at any point loses nothing and duplicates nothing, and failures are visible."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from remem import Runtime
from remem.controller import MemoryController
from remem.embeddings import HashingEmbedder
from remem.errors import ConfigError, PendingWritesError
from remem.failures import FailureLog
from remem.models import MemoryStage, TranscriptEntry
from remem.runtime_config import RuntimeConfig
from remem.staging import CollectionManager
from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
from remem.stores.hnsw import HnswVectorStore
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.writebehind import DirectWrites, JournaledWrites, JournalFile, WriteBehind


def journal_of(rt: Runtime) -> WriteBehind:
    wb = rt.controller.write_behind
    assert wb is not None
    return wb


async def test_every_reader_sees_a_journaled_write(tmp_path: Path) -> None:
    async with Runtime.open(tmp_path / "m") as rt:
        c = rt.controller
        wb = journal_of(rt)
        wb.max_delay = 60.0  # keep the writes pending: the reads below must apply them
        turn = await c.record_turn("s1", "I adopted a cat named Miso", "Lovely!")
        memory = await c.remember("The user's cat is named Miso")
        assert wb.pending == 2
        assert [r.id for r in await (await c.settled()).records.get([memory.id])] == [memory.id]
        assert wb.pending == 0

        other = await c.remember("The user drinks green tea")
        hits = await c.recall("green tea", k=3)
        assert hits[0].record.id == other.id

        late = await c.record_turn("s1", "My sister lives in Porto", "Noted")
        transcript = (await c.settled()).transcript
        assert transcript is not None
        assert [e.id for e in await transcript.get_entries("s1")] == [turn.id, late.id]

        await c.record_turn("s2", "Ferrari is my favourite team", "")
        found = await (await c.settled()).episodic.search("Ferrari")
        assert [h.session_id for h in found] == ["s2"]

        doomed = await c.remember("a memory to forget at once")
        assert await c.forget([doomed.id]) == 1

        await c.remember("planned memory")
        assert rt.lifecycle is not None
        plan = await rt.lifecycle.preview()  # scans every record, the journaled one included
        assert plan.scanned == await (await c.settled()).records.count() == 4
        assert await c.collection_manager.count(MemoryStage.SHORT_TERM) == 3  # one forgotten
        assert c.failures() == []


async def test_closing_applies_everything(tmp_path: Path) -> None:
    async with Runtime.open(tmp_path / "m") as rt:
        # Through the runtime's quiescence gate, the port names the journal it wraps.
        assert rt.controller.writes.journal is journal_of(rt)
        journal_of(rt).max_delay = 60.0
        ids = [(await rt.controller.remember(f"fact number {i}")).id for i in range(5)]
        await rt.controller.record_turn("s", "hello", "hi")
    direct = Runtime.open(tmp_path / "m", write_behind=False)
    async with direct as rt:
        assert rt.controller.write_behind is None
        assert [r.id for r in await (await rt.controller.settled()).records.get(ids)] == ids
        transcript = (await rt.controller.settled()).transcript
        assert transcript is not None
        assert len(await transcript.get_entries("s")) == 1


CRASHER = textwrap.dedent(
    """
    import asyncio, json, os, sys
    from remem import Runtime

    root, point = sys.argv[1], sys.argv[2]

    async def main() -> None:
        rt = Runtime.open(root)
        await rt.start()
        c = rt.controller
        wb = c.write_behind
        wb.max_delay = 60.0
        ids = {"memories": [], "turns": []}
        for i in range(6):
            ids["turns"].append((await c.record_turn("s", f"turn {i} about kites", "ok")).id)
            ids["memories"].append((await c.remember(f"kite fact {i}")).id)
            if i == 2:
                await wb.flush()  # half applied, half pending at the crash
        print(json.dumps(ids), flush=True)
        raw_vectors = rt.stores.vectors  # the store the write port writes (no barrier: no apply)

        async def die(*args, **kwargs):
            os._exit(0)

        if point == "before_apply":
            os._exit(0)
        if point == "between_stores":  # records committed, vectors not
            raw_vectors.add = die
        if point == "before_journal_delete":  # every store committed, journal not cleared
            wb.file.remove = die
        await wb.flush()
        print("survived", flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("point", ["before_apply", "between_stores", "before_journal_delete"])
async def test_a_crash_loses_and_duplicates_nothing(tmp_path: Path, point: str) -> None:
    root = tmp_path / "m"
    out = subprocess.run(  # noqa: ASYNC221 (the child must run to its crash; nothing to await)
        [sys.executable, "-c", CRASHER, str(root), point],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = out.stdout.splitlines()
    assert len(lines) == 1, lines  # it died where it was told to, before "survived"
    ids = json.loads(lines[0])
    assert (root / "writebehind.db").exists()
    async with Runtime.open(root) as rt:  # opening replays the journal
        c = rt.controller
        assert journal_of(rt).pending == 0
        records = await (await c.settled()).records.scan()
        assert sorted(r.id for r in records) == sorted(ids["memories"])
        assert await c.collection_manager.count(MemoryStage.SHORT_TERM) == 6
        transcript = (await c.settled()).transcript
        assert transcript is not None
        entries = await transcript.get_entries("s")
        assert [e.id for e in entries] == ids["turns"]
        assert [e.turn_number for e in entries] == list(range(1, 7))
        days = await (await c.settled()).episodic.days("s")
        assert sorted(e.id for day in days.values() for e in day) == sorted(ids["turns"])
        hits = await (await c.settled()).episodic.search("kite fact", limit=50)
        assert sorted(h.id for h in hits if h.id.startswith("mem-")) == sorted(ids["memories"])
        assert (await c.recall("kite fact 5", k=1))[0].record.id == ids["memories"][5]
        assert c.failures() == []
        # the next turn continues the numbering
        assert (await c.record_turn("s", "one more", "")).turn_number == 7


async def test_a_store_failure_keeps_the_writes_and_a_retry_applies_them_once(
    tmp_path: Path,
) -> None:
    async with Runtime.open(tmp_path / "m") as rt:
        c = rt.controller
        wb = journal_of(rt)
        wb.max_delay = 60.0
        raw: Any = rt.stores.vectors  # the store the write port writes
        real_add = raw.add
        calls = 0

        async def flaky_add(*args: object, **kwargs: object) -> None:
            nonlocal calls
            calls += 1
            if calls == 1:
                raise OSError("disk full (simulated)")
            await real_add(*args, **kwargs)

        raw.add = flaky_add
        memory = await c.remember("The user's bike is blue")  # accepted: journaled
        with pytest.raises(PendingWritesError, match="nothing is lost"):
            await c.recall("bike")
        failure = c.failures()[-1]
        assert failure.operation == "write_behind"
        assert failure.ids == (memory.id,)
        assert wb.pending == 1
        hits = await c.recall("blue bike", k=1)  # the retry completes the vector
        assert hits[0].record.id == memory.id
        assert await (await c.settled()).records.count() == 1
        assert await c.collection_manager.count(MemoryStage.SHORT_TERM) == 1


async def test_a_turn_number_taken_directly_is_rejected_not_lost(tmp_path: Path) -> None:
    async with Runtime.open(tmp_path / "m") as rt:
        c = rt.controller
        journal_of(rt).max_delay = 60.0
        first = await c.record_turn("s", "first", "")
        transcript = (await c.settled()).transcript
        assert transcript is not None
        # Someone appends turn 2 straight to the transcript (the controller's cache says 1).
        await transcript.append_entry(
            first.model_copy(update={"id": "direct", "turn_number": 2, "user_message": "x"})
        )
        clash = await c.record_turn("s", "second", "")
        assert clash.turn_number == 2
        await c.settled()  # applies: the clash is refused
        entries = await transcript.get_entries("s")
        assert [e.id for e in entries] == [first.id, "direct"]
        assert [f.ids for f in c.failures() if f.operation == "write_behind"] == [(clash.id,)]
        rejected = await journal_of(rt).file.rejected()
        assert len(rejected) == 1
        assert TranscriptEntry.model_validate_json(rejected[0][2]) == clash
        assert "already exists" in rejected[0][3]


async def test_callers_own_ids_take_the_direct_path(tmp_path: Path) -> None:
    async with Runtime.open(tmp_path / "m") as rt:
        c = rt.controller
        wb = journal_of(rt)
        wb.max_delay = 60.0
        await c.remember("mine", memory_id="m1")
        await c.record_turn("s", "numbered", "", turn_number=5)
        assert wb.pending == 0


def test_write_behind_defaults_by_backend() -> None:
    assert RuntimeConfig(path=Path("x")).uses_write_behind
    pg = RuntimeConfig(path=Path("x"), backend="postgres", dsn="postgresql://u@h/db")
    assert not pg.uses_write_behind
    assert RuntimeConfig(
        path=Path("x"), backend="postgres", dsn="postgresql://u@h/d", write_behind=True
    ).uses_write_behind
    assert "write_behind = false" in pg.describe()
    assert not RuntimeConfig.from_mapping({"write_behind": False}).uses_write_behind
    with pytest.raises(ConfigError, match="write_behind"):
        RuntimeConfig(write_behind="yes")  # type: ignore[arg-type]


async def test_full_durability_runtime(tmp_path: Path) -> None:
    async with Runtime.open(tmp_path / "m", durability="full") as rt:
        memory = await rt.controller.remember("durable even through power loss")
        assert (await rt.controller.recall("power loss", k=1))[0].record.id == memory.id


async def test_a_hand_built_controller_reads_its_journaled_writes(tmp_path: Path) -> None:
    """No store is wrapped: the controller awaits the port's barrier before each read, and
    ``settled()`` hands code above it the stores once they hold every acknowledged write."""
    db = DuckDBDatabase(tmp_path / "memory.duckdb")
    vectors = HnswVectorStore(tmp_path / "vectors")
    episodic = SQLiteEpisodicStore(tmp_path / "e.db")
    records = DuckDBRecordStore(db)
    graph = DuckDBGraphStore(db)
    collections = CollectionManager(vectors, HashingEmbedder())
    direct = DirectWrites(
        transcript_store=None,
        episodic_store=episodic,
        record_store=records,
        collection_manager=collections,
        failures=FailureLog(),
        now=lambda: datetime.now(UTC),
    )
    writes = JournaledWrites(JournalFile(tmp_path / "wb.db"), direct, dimension=384)
    for store in (episodic, records, graph, vectors, collections, writes):
        await store.open()
    try:
        c = MemoryController.from_parts(
            vectors, graph, episodic, collections, record_store=records, writes=writes
        )
        # The journal is an explicit attribute of every write port (None when direct).
        assert c.write_behind is writes.journal
        assert direct.journal is None
        assert (
            MemoryController.from_parts(
                vectors, graph, episodic, collections, record_store=records, writes=direct
            ).write_behind
            is None
        )
        writes.journal.max_delay = 60.0
        turn = await c.record_turn("s", "I found a map of Lisbon from 1755", "")
        memory = await c.remember("The user collects old maps")
        assert writes.journal.pending == 2
        assert await records.count() == 0  # bare: nothing applied yet
        assert (await c.recall("old maps", k=1))[0].record.id == memory.id
        await c.record_turn("s", "It shows the old harbour", "")
        stores = await c.settled()
        assert writes.journal.pending == 0
        days = await stores.episodic.days("s")
        turn_ids = [e.id for d in days.values() for e in d]
        assert len(turn_ids) == 2
        assert turn_ids[0] == turn.id
        assert [r.id for r in await stores.records.scan()] == [memory.id]
        await c.aclose()
    finally:
        for store in (writes, collections, vectors, graph, records, episodic):
            await store.aclose()


async def test_write_behind_on_postgres_when_asked(pg_dsn: str, tmp_path: Path) -> None:
    root = tmp_path / "m"
    async with Runtime.open(root, backend="postgres", dsn=pg_dsn, write_behind=True) as rt:
        c = rt.controller
        wb = journal_of(rt)
        wb.max_delay = 60.0
        turn = await c.record_turn("s", "I keep bees on the roof", "")
        memory = await c.remember("The user keeps bees")
        assert wb.pending == 2
        assert (await c.recall("bees", k=1))[0].record.id == memory.id
        transcript = (await c.settled()).transcript
        assert transcript is not None
        assert [e.id for e in await transcript.get_entries("s")] == [turn.id]
    async with Runtime.open(root, backend="postgres", dsn=pg_dsn) as rt:  # the default: off
        assert rt.controller.write_behind is None
        assert [r.id for r in await (await rt.controller.settled()).records.scan()] == [memory.id]
