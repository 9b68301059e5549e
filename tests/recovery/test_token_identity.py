"""A quiescence token names its memory: handed to an operation on another memory, it is refused.

The dangerous case is the one tested: memory B is *open and writing* in this process while the
token of memory A is passed to an operation on B — before tokens named a memory, a snapshot of B
then skipped its live-Runtime probe and copied B while it was written.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

import remem
from remem.maintenance.reembed import reembed
from remem.models import ManualClock
from remem.recovery import (
    ForeignTokenError,
    Manifest,
    RecoveryError,
    WritersActiveError,
    export_memory,
    memory_identity,
    restore,
    restore_postgres,
    snapshot,
    snapshot_postgres,
)
from remem.runtime_config import RuntimeConfig
from tests.postgres import _with_database
from tests.recovery.memory_dirs import T0, build_memory, entries, open_runtime


def test_an_identity_names_the_memory_not_the_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "a")
    monkeypatch.chdir(tmp_path)
    same = {memory_identity(p) for p in ("a", "./a/", tmp_path / "a", str(tmp_path / "link"))}
    assert same == {f"directory {tmp_path.resolve() / 'a'}"}
    assert memory_identity("b") != memory_identity("a")
    dsn = memory_identity("postgresql://ada:secret@db.example:5432/remem")
    assert dsn == "postgresql://db.example:5432/remem"  # no user, no password
    assert memory_identity("postgres://grace@db.example/remem") == dsn  # default port spelled out
    assert memory_identity("postgresql://ada@db.example:5433/remem") != dsn
    assert memory_identity("postgresql://ada@db.example/other") != dsn
    schema = memory_identity("postgresql://ada@db.example/remem?options=-csearch_path%3Dtenant")
    assert schema == "postgresql://db.example:5432/remem options=-csearch_path=tenant"
    with pytest.raises(RecoveryError, match="does not parse") as info:
        memory_identity("postgresql://ada:secret@db.example/remem?nonsense=1")
    assert "secret" not in str(info.value)


@pytest.fixture
def two_memories(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    asyncio.run(build_memory(a, memories=8))
    asyncio.run(build_memory(b, memories=5))
    return a, b


async def test_a_token_of_memory_a_is_refused_by_every_operation_on_b(
    two_memories: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = two_memories
    async with open_runtime(a) as rt_a, open_runtime(b) as rt_b:
        snap_a = tmp_path / "snap-a"
        async with rt_a.quiesce() as token:
            assert token.memory == memory_identity(a)
            await rt_b.controller.record_turn("s2", "B goes on writing", "ok")
            refusals = {
                "snapshot": lambda: snapshot(b, tmp_path / "snap-b", quiesced=token),
                "export": lambda: export_memory(b, tmp_path / "x-b", quiesced=token),
                "restore into": lambda: restore(snap_a, b, force=True, quiesced=token),
            }
            for operation, call in refusals.items():
                with pytest.raises(ForeignTokenError) as info:
                    await asyncio.to_thread(call)
                message = str(info.value)
                assert f"given to {operation} {memory_identity(b)}" in message
                assert f"holds {memory_identity(a)} still" in message
                assert "rt.quiesce()" in message  # what to do
            with pytest.raises(ForeignTokenError, match="given to re-embed"):
                await reembed(rt_b.config, "hashing", dimension=64, quiesced=token)
            # The token does prove A still: the same operation on A goes through.
            manifest = await asyncio.to_thread(snapshot, a, snap_a, quiesced=token)
            assert manifest.participants_by_path()["memory.duckdb"].rows["memory_records"] == 8
            # A restore or re-embed never runs under the Runtime holding its own memory.
            with pytest.raises(WritersActiveError, match="close it"):
                restore(snap_a, a, force=True, quiesced=token)
            with pytest.raises(WritersActiveError, match="close it"):
                await reembed(rt_a.config, "hashing", dimension=64, quiesced=token)
        await rt_b.controller.record_turn("s2", "and after", "ok")
    Manifest.read(snap_a).verify(snap_a)
    assert entries(tmp_path) == ["a", "b", "snap-a"]  # no partial, no reembed snapshot
    assert not (a / "reembed.json").exists()
    assert not (b / "reembed.json").exists()


@pytest.fixture
def second_dsn(pg_server: str) -> Iterator[str]:
    name = f"remem_token_{os.getpid()}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(pg_server, name)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _open_pg(path: Path, dsn: str) -> remem.Runtime:
    return remem.Runtime.open(
        path, backend="postgres", dsn=dsn, embedding_provider="hashing", clock=ManualClock(T0)
    )


async def _turn_count(rt: remem.Runtime) -> int:
    store = (await rt.controller.settled()).transcript
    assert store is not None
    total = 0
    for session in await store.list_sessions():
        total += len(await store.get_entries(session.session_id))
    return total


@pytest.mark.postgres
async def test_postgres_tokens_name_the_database(
    pg_dsn: str, second_dsn: str, tmp_path: Path
) -> None:
    async with (
        _open_pg(tmp_path / "pa", pg_dsn) as rt_a,
        _open_pg(tmp_path / "pb", second_dsn) as rt_b,
    ):
        await rt_a.controller.record_turn("s1", "in A", "ok")
        await rt_b.controller.record_turn("s1", "in B", "ok")
        async with rt_a.quiesce() as token:
            assert token.memory == memory_identity(pg_dsn)
            refusals = {
                "snapshot": lambda: snapshot_postgres(second_dsn, tmp_path / "s-b", quiesced=token),
                "export": lambda: export_memory(second_dsn, tmp_path / "x-b", quiesced=token),
                "restore into": lambda: restore_postgres(
                    tmp_path / "s-a", second_dsn, force=True, quiesced=token
                ),
            }
            for operation, call in refusals.items():
                with pytest.raises(ForeignTokenError, match=f"given to {operation} postgresql://"):
                    await asyncio.to_thread(call)
            with pytest.raises(ForeignTokenError, match="given to re-embed"):
                await reembed(rt_b.config, "hashing", dimension=64, quiesced=token)
            manifest = await asyncio.to_thread(
                snapshot_postgres, pg_dsn, tmp_path / "s-a", quiesced=token
            )
            assert manifest.file("tables/turns.jsonl").rows == 1
            with pytest.raises(WritersActiveError, match="close it"):
                restore_postgres(tmp_path / "s-a", pg_dsn, force=True, quiesced=token)
        async with rt_b.quiesce() as token_b:
            # A database token is no proof for a directory, nor the other way round.
            with pytest.raises(ForeignTokenError):
                snapshot(tmp_path / "pb", tmp_path / "s-dir", quiesced=token_b)
        assert await _turn_count(rt_b) == 1  # B was not restored over
    assert entries(tmp_path) == ["pa", "pb", "s-a"]  # no partial of any refused operation


async def test_a_token_for_a_memory_of_another_backend_is_refused(
    two_memories: tuple[Path, Path], tmp_path: Path
) -> None:
    a, _ = two_memories
    async with open_runtime(a) as rt_a, rt_a.quiesce() as token:
        with pytest.raises(ForeignTokenError, match="postgresql://"):
            await asyncio.to_thread(
                export_memory, "postgresql://ada@db.example/remem", tmp_path / "x", quiesced=token
            )
        config = RuntimeConfig(path=tmp_path / "c", backend="postgres", dsn="postgresql://h/db")
        with pytest.raises(ForeignTokenError):
            await reembed(config, "hashing", quiesced=token)
    assert not (tmp_path / "x").exists()
