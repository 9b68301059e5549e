"""Snapshot and export of a running Runtime: writers quiesced first, or "writers active"."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from remem import Runtime
from remem.controller import ControllerConfig, ExtractionConfig
from remem.controller.extraction import ExtractionContext, ExtractionResult
from remem.maintenance import export_live, snapshot_live
from remem.models import ManualClock, TranscriptEntry
from remem.recovery import (
    Manifest,
    WritersActiveError,
    export_memory,
    import_memory,
    restore,
    snapshot,
)
from tests.recovery.memory_dirs import T0, build_memory, entries, open_runtime


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    asyncio.run(build_memory(path, memories=20))
    return path


async def _write_while(rt: Runtime, stop: asyncio.Event, session: str) -> int:
    """Record turns until ``stop``; return how many were written."""
    n = 0
    while not stop.is_set():
        await rt.controller.record_turn(session, f"turn {n} of the writer", "ok")
        n += 1
        await asyncio.sleep(0)
    return n


def _turns(path: Path, session: str) -> int:
    conn = sqlite3.connect(path / "transcript.db")
    try:
        row = conn.execute(
            "SELECT count(*) FROM transcript_entries WHERE session_id = ?", (session,)
        ).fetchone()
    finally:
        conn.close()
    return int(row[0])


async def test_a_live_snapshot_quiesces_writers_and_the_runtime_goes_on(
    memory: Path, tmp_path: Path
) -> None:
    async with open_runtime(memory) as rt:
        with pytest.raises(WritersActiveError, match="writers active"):
            snapshot(memory, tmp_path / "refused")  # without the token: a live directory
        stop = asyncio.Event()
        writer = asyncio.create_task(_write_while(rt, stop, "w1"))
        await asyncio.sleep(0.05)
        manifest = await snapshot_live(rt, tmp_path / "snap")
        stop.set()
        written = await writer
        await rt.controller.record_turn("w1", "after the snapshot", "ok")  # writes flow again
    assert written > 0
    Manifest.read(tmp_path / "snap").verify(tmp_path / "snap")
    assert manifest.participants_by_path()["memory.duckdb"].rows["memory_records"] == 20
    restore(tmp_path / "snap", tmp_path / "restored")
    in_snapshot = _turns(tmp_path / "restored", "w1")
    assert 0 < in_snapshot <= written  # a prefix of the writer's turns: taken while held
    assert _turns(memory, "w1") == written + 1
    async with open_runtime(tmp_path / "restored") as restored:
        hits = await restored.controller.recall("fact about cats")
        assert hits, "the restored memory recalls"
        status = await (await restored.controller.settled()).vectors.list_collections()
        assert sum(c.count for c in status) == 20
    assert "refused" not in entries(tmp_path)


async def test_a_live_export_quiesces_writers_and_imports_whole(
    memory: Path, tmp_path: Path
) -> None:
    async with open_runtime(memory) as rt:
        stop = asyncio.Event()
        writer = asyncio.create_task(_write_while(rt, stop, "w2"))
        await asyncio.sleep(0.05)
        manifest = await export_live(rt, tmp_path / "x", vectors=True)
        stop.set()
        written = await writer
    turns = manifest.file("tables/turns.jsonl").rows
    assert 5 < turns <= 5 + written
    await asyncio.to_thread(import_memory, tmp_path / "x", tmp_path / "copy")  # runs its own loop
    again = export_memory(tmp_path / "copy", tmp_path / "y", vectors=True)
    assert [(f.path, f.sha256) for f in again.files] == [(f.path, f.sha256) for f in manifest.files]


class _StuckExtractor:
    """An extraction that does not end until released: the memory cannot be quiesced."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()

    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        self.started.set()
        await self.release.wait()
        return ExtractionResult()


async def test_a_memory_that_cannot_be_quiesced_is_refused_and_writes_go_on(
    memory: Path, tmp_path: Path
) -> None:
    extractor = _StuckExtractor()
    rt = Runtime.open(
        memory,
        embedding_provider="hashing",
        clock=ManualClock(T0),
        extractor=extractor,
        controller=ControllerConfig(extraction=ExtractionConfig(interval=1)),
    )
    async with rt:
        await rt.controller.record_turn("s9", "this starts an extraction", "ok")
        await asyncio.wait_for(extractor.started.wait(), 30)
        with pytest.raises(WritersActiveError, match="writers active: extraction did not stop"):
            await snapshot_live(rt, tmp_path / "snap", pause_timeout=0.2)
        with pytest.raises(WritersActiveError, match="writers active"):
            await export_live(rt, tmp_path / "x", pause_timeout=0.2)
        assert entries(tmp_path) == ["memory"]  # nothing written, not even a partial
        await asyncio.wait_for(rt.controller.record_turn("s9", "not held back", "ok"), 30)
        extractor.release.set()
        await snapshot_live(rt, tmp_path / "snap")  # once it can stop, the snapshot goes
    Manifest.read(tmp_path / "snap").verify(tmp_path / "snap")


async def test_a_released_token_is_no_proof(memory: Path, tmp_path: Path) -> None:
    async with open_runtime(memory) as rt:
        async with rt.quiesce() as token:
            pass
        with pytest.raises(WritersActiveError, match="already released"):
            await asyncio.to_thread(snapshot, memory, tmp_path / "snap", quiesced=token)
    assert not (tmp_path / "snap").exists()
