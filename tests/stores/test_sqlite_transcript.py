"""SQLite transcript store specifics: the seed example, lazy open, processes, SIGKILL, WAL."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from remem.errors import BackendError, ConfigError, DuplicateIdError, IntegrityError
from remem.models import TranscriptEntry, TranscriptSession
from remem.stores.sqlite.transcript import SQLiteTranscriptStore

SEED_EXAMPLE = """
import asyncio
from pathlib import Path
from tempfile import TemporaryDirectory
from remem import SQLiteTranscriptStore, TranscriptEntry, TranscriptSession

async def main() -> None:
    with TemporaryDirectory() as directory:
        store = SQLiteTranscriptStore(Path(directory) / "transcript.db")
        await store.create_session(TranscriptSession(
            session_id="demo", model_name="offline-example",
        ))
        await store.append_entry(TranscriptEntry(
            id="entry-1", session_id="demo", turn_number=1,
            user_message="Name the project.", assistant_message="Friday",
        ))
        entries = await store.get_entries("demo")
        print(entries[0].assistant_message)

asyncio.run(main())
"""

WRITER = """
import asyncio, sys
from remem import SQLiteTranscriptStore, TranscriptEntry, TranscriptSession
from remem.errors import DuplicateIdError

async def main(path, name, batches, size):
    store = SQLiteTranscriptStore(path)
    try:
        await store.create_session(TranscriptSession(session_id="s"))
    except DuplicateIdError:
        pass
    for b in range(batches):
        turns = [TranscriptEntry(id=f"{name}-{b}-{i}", session_id="s",
                                 turn_number=ord(name[0]) * 10**7 + b * size + i + 1,
                                 user_message="x" * 2000)
                 for i in range(size)]
        if size == 1:
            await store.append_entry(turns[0])
        else:
            await store.append_entries(turns)
        print(b, flush=True)
    await store.aclose()

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
"""


def _env() -> dict[str, str]:
    python_dir = str(Path(__file__).resolve().parents[2] / "python")
    return {**os.environ, "PYTHONPATH": python_dir}


def _run(code: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(),
        check=False,
    )


def test_seed_example_prints_friday_and_exits_cleanly() -> None:
    result = _run(SEED_EXAMPLE, timeout=30)
    assert result.stderr == ""
    assert result.returncode == 0
    assert result.stdout == "Friday\n"


async def test_works_without_open_and_cleans_up_when_dropped(tmp_path: Path) -> None:
    before = threading.active_count()
    store = SQLiteTranscriptStore(tmp_path / "t.db")
    await store.create_session(TranscriptSession(session_id="s"))
    assert threading.active_count() == before + 1
    del store
    gc.collect()
    for _ in range(100):
        if threading.active_count() == before:
            break
        await asyncio.sleep(0.01)
    assert threading.active_count() == before
    async with SQLiteTranscriptStore(tmp_path / "t.db") as reopened:
        assert [s.session_id for s in await reopened.list_sessions()] == ["s"]


async def test_data_persists_across_reopen_in_both_durability_modes(tmp_path: Path) -> None:
    for durability in ("normal", "full"):
        path = tmp_path / f"{durability}.db"
        async with SQLiteTranscriptStore(path, durability=durability) as store:
            assert store.durability == durability
            await store.create_session(TranscriptSession(session_id="s"))
            await store.append_entry(TranscriptEntry(id="e", session_id="s", turn_number=1))
        async with SQLiteTranscriptStore(path) as store:
            assert [e.id for e in await store.get_entries("s")] == ["e"]
            conn = sqlite3.connect(path)
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            conn.close()


def test_unknown_durability_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        SQLiteTranscriptStore(tmp_path / "t.db", durability="eventually")


async def test_group_commit_fails_only_the_offending_call(tmp_path: Path) -> None:
    async with SQLiteTranscriptStore(tmp_path / "t.db") as store:
        await store.create_session(TranscriptSession(session_id="s"))
        await store.append_entry(TranscriptEntry(id="taken", session_id="s", turn_number=1))
        calls = [
            store.append_entry(TranscriptEntry(id=f"e{n}", session_id="s", turn_number=n))
            for n in range(2, 40)
        ]
        calls.insert(
            10, store.append_entry(TranscriptEntry(id="taken", session_id="s", turn_number=99))
        )
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert isinstance(results[10], DuplicateIdError)
        assert sum(r is None for r in results) == len(calls) - 1
        assert len(await store.get_entries("s")) == 39


async def test_refuses_a_newer_schema_and_a_non_database(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    async with SQLiteTranscriptStore(path) as store:
        await store.list_sessions()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE remem_schema SET version = 99 WHERE component = 'transcript'")
    conn.commit()
    conn.close()
    with pytest.raises(IntegrityError, match="newer"):
        await SQLiteTranscriptStore(path).list_sessions()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(BackendError):
        await SQLiteTranscriptStore(junk).list_sessions()


def test_two_processes_appending_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, path, name, str(batches), str(size)],
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, batches, size in [("a", 150, 1), ("b", 30, 10)]
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    conn = sqlite3.connect(path)
    ids = [r[0] for r in conn.execute("SELECT id FROM transcript_entries")]
    conn.close()
    assert len(ids) == len(set(ids)) == 450
    assert sum(i.startswith("a-") for i in ids) == 150


def test_sigkill_mid_batch_leaves_whole_batches_and_a_sound_file(tmp_path: Path) -> None:
    path = str(tmp_path / "killed.db")
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, path, "k", "1000", "400"],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert writer.stdout is not None
    for _ in range(3):  # let a few batches commit, then kill during the next ones
        writer.stdout.readline()
    time.sleep(0.05)
    writer.send_signal(signal.SIGKILL)
    assert writer.wait(timeout=30) == -signal.SIGKILL
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    ids = [r[0] for r in conn.execute("SELECT id FROM transcript_entries")]
    conn.close()
    counts = Counter(i.rsplit("-", 1)[0] for i in ids)
    assert len(counts) >= 3
    assert set(counts.values()) == {400}
