"""Snapshot and restore of a real embedded directory: round trip, refusals, tampering."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from remem.blocks import BlockEdit
from remem.recovery import (
    ChecksumMismatchError,
    IncompatibleSnapshotError,
    Manifest,
    ManifestInvalidError,
    RecoveryError,
    TargetNotEmptyError,
    WritersActiveError,
    export_memory,
    restore,
    snapshot,
)
from tests.recovery.memory_dirs import (
    build_memory,
    entries,
    file_digests,
    open_runtime,
    recalled,
    table_rows,
)


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    asyncio.run(build_memory(path))
    return path


def test_round_trip_is_row_identical_and_recalls_the_same(memory: Path, tmp_path: Path) -> None:
    before_files, before_rows = file_digests(memory), table_rows(memory)
    manifest = snapshot(memory, tmp_path / "snap")

    assert file_digests(memory) == before_files  # the source is untouched, no side files left
    assert (tmp_path / "snap" / "manifest.json").is_file()
    assert {p.path for p in manifest.participants} == {
        "episodic.db",
        "memory.duckdb",
        "transcript.db",
        "vectors/vectors.duckdb",
        "writebehind.db",
    }
    assert manifest.participants_by_path()["memory.duckdb"].rows["memory_records"] == 40
    assert manifest.participants_by_path()["transcript.db"].rows["transcript_entries"] == 5
    assert {(e.model, e.dimension) for e in manifest.embeddings} == {("remem-hashing-v1-384", 384)}

    restored = tmp_path / "restored"
    assert restore(tmp_path / "snap", restored) == Manifest.read(tmp_path / "snap")
    assert table_rows(restored) == before_rows
    snap_digests = {p.path: p.sha256 for p in manifest.participants}
    assert file_digests(restored) == snap_digests
    for entry in manifest.participants:  # the counts in the manifest are the real ones
        assert {t: len(r) for t, r in table_rows(restored).get(entry.path, {}).items()} == (
            entry.rows
        )

    expected = asyncio.run(recalled(memory))
    assert any(expected), "the queries must recall something for the comparison to mean anything"
    assert asyncio.run(recalled(restored)) == expected


async def test_the_manifest_lists_the_scopes_present(tmp_path: Path) -> None:
    path = tmp_path / "memory"
    async with open_runtime(path) as rt:
        await rt.controller.record_turn("s-ana", "I moved to Porto", "Noted.")
        await rt.controller.record_turn("s-bob", "I like tea", "Noted.")
        await rt.controller.remember("Ana lives in Porto", namespace="ana")
        await rt.controller.remember("Bob likes tea", namespace="bob")
        core = await rt.blocks("cyd")  # a namespace that holds only a core block
        await core.apply("user", [BlockEdit.add("Prefers short answers")])
    manifest = await asyncio.to_thread(snapshot, path, tmp_path / "snap")
    assert manifest.scopes.namespaces == ("ana", "bob", "cyd", "default")
    assert manifest.scopes.sessions == ("s-ana", "s-bob")
    assert Manifest.read(tmp_path / "snap").scopes == manifest.scopes
    # The portable export of the same memory names the same namespaces and sessions.
    exported = await asyncio.to_thread(export_memory, path, tmp_path / "x")
    assert exported.scopes == manifest.scopes


async def test_a_live_runtime_is_refused(memory: Path, tmp_path: Path) -> None:
    async with open_runtime(memory):
        with pytest.raises(WritersActiveError, match="writers active"):
            snapshot(memory, tmp_path / "snap")
    assert not (tmp_path / "snap").exists()
    assert entries(tmp_path) == ["memory"]  # no partial directory left


def test_a_runtime_in_another_process_is_refused(memory: Path, tmp_path: Path) -> None:
    holder = textwrap.dedent(
        f"""
        import asyncio, sys
        from tests.recovery.memory_dirs import open_runtime
        async def main():
            async with open_runtime({str(memory)!r}):
                print("ready", flush=True)
                sys.stdin.readline()
        asyncio.run(main())
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        with pytest.raises(WritersActiveError, match="writers active"):
            snapshot(memory, tmp_path / "snap")
    finally:
        proc.communicate("\n", timeout=60)
    assert proc.returncode == 0
    assert not (tmp_path / "snap").exists()


def test_restore_refuses_a_non_empty_target_unless_forced(memory: Path, tmp_path: Path) -> None:
    snapshot(memory, tmp_path / "snap")
    other = tmp_path / "other"
    asyncio.run(build_memory(other, memories=3))
    other_files = file_digests(other)
    with pytest.raises(TargetNotEmptyError, match="--force"):
        restore(tmp_path / "snap", other)
    assert file_digests(other) == other_files

    restore(tmp_path / "snap", other, force=True)
    assert table_rows(other) == table_rows(memory)
    assert entries(tmp_path) == ["memory", "other", "snap"]


async def test_restore_with_force_refuses_a_live_target(memory: Path, tmp_path: Path) -> None:
    snapshot(memory, tmp_path / "snap")
    async with open_runtime(memory):
        with pytest.raises(WritersActiveError):
            restore(tmp_path / "snap", memory, force=True)
    assert entries(tmp_path) == ["memory", "snap"]


def test_a_tampered_file_is_a_checksum_mismatch(memory: Path, tmp_path: Path) -> None:
    snapshot(memory, tmp_path / "snap")
    victim = tmp_path / "snap" / "transcript.db"
    data = bytearray(victim.read_bytes())
    data[-100] ^= 0xFF
    victim.write_bytes(bytes(data))
    with pytest.raises(ChecksumMismatchError, match=re.escape("transcript.db")):
        restore(tmp_path / "snap", tmp_path / "restored")
    assert not (tmp_path / "restored").exists()


def test_missing_and_extra_files_are_checksum_mismatches(memory: Path, tmp_path: Path) -> None:
    snapshot(memory, tmp_path / "snap")
    (tmp_path / "snap" / "stray.txt").write_text("x")
    with pytest.raises(ChecksumMismatchError, match=re.escape("stray.txt")):
        restore(tmp_path / "snap", tmp_path / "restored")
    (tmp_path / "snap" / "stray.txt").unlink()
    (tmp_path / "snap" / "episodic.db").unlink()
    with pytest.raises(ChecksumMismatchError, match=re.escape("episodic.db")):
        restore(tmp_path / "snap", tmp_path / "restored")


@pytest.mark.parametrize(
    ("edit", "error", "words"),
    [
        (lambda m: None, ManifestInvalidError, "no manifest.json"),
        (lambda m: "{not json", ManifestInvalidError, "JSON"),
        (lambda m: {**m, "format": "other"}, ManifestInvalidError, "not a remem snapshot"),
        (lambda m: {**m, "format_version": 99}, IncompatibleSnapshotError, "version 99"),
        (
            lambda m: {k: v for k, v in m.items() if k != "embeddings"},
            ManifestInvalidError,
            "field",
        ),
        (lambda m: {**m, "participants": ["episodic.db"]}, ManifestInvalidError, "field"),
        (
            lambda m: {**m, "participants": [{**m["participants"][0], "path": "../escape"}]},
            ManifestInvalidError,
            "outside",
        ),
    ],
)
def test_a_bad_manifest_is_refused(
    memory: Path, tmp_path: Path, edit: object, error: type[RecoveryError], words: str
) -> None:
    snapshot(memory, tmp_path / "snap")
    file = tmp_path / "snap" / "manifest.json"
    changed = edit(json.loads(file.read_text()))  # type: ignore[operator]
    if changed is None:
        file.unlink()
    else:
        file.write_text(changed if isinstance(changed, str) else json.dumps(changed))
    with pytest.raises(error, match=words):
        restore(tmp_path / "snap", tmp_path / "restored")
    assert not (tmp_path / "restored").exists()


def test_snapshot_refuses_an_existing_out_and_a_non_memory(memory: Path, tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(TargetNotEmptyError, match="already exists"):
        snapshot(memory, tmp_path / "taken")
    with pytest.raises(RecoveryError, match="no embedded memory"):
        snapshot(tmp_path / "taken", tmp_path / "snap")


def test_check_model_refuses_another_embedder(memory: Path, tmp_path: Path) -> None:
    manifest = snapshot(memory, tmp_path / "snap")
    manifest.check_model("remem-hashing-v1-384", 384)
    with pytest.raises(IncompatibleSnapshotError, match="all-MiniLM"):
        manifest.check_model("all-MiniLM-L6-v2", 384)


def test_the_forced_swap_is_one_exchange(tmp_path: Path) -> None:
    from remem.recovery.snapshot import _exchange

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "from-a").write_text("a")
    (tmp_path / "b" / "from-b").write_text("b")
    assert _exchange(tmp_path / "a", tmp_path / "b")  # Linux: renameat2(RENAME_EXCHANGE)
    assert entries(tmp_path / "a") == ["from-b"]
    assert entries(tmp_path / "b") == ["from-a"]
