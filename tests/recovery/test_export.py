"""Portable export/import on real directories and a real PostgreSQL: round trips, refusals."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import remem
from remem.embeddings import HashingEmbedder
from remem.recovery import (
    ChecksumMismatchError,
    ExportManifest,
    IncompatibleSnapshotError,
    ManifestInvalidError,
    TargetNotEmptyError,
    WritersActiveError,
    export_memory,
    import_memory,
)
from tests.recovery.memory_dirs import entries, open_runtime, recalled
from tests.recovery.rich_memory import build_rich_memory, table_lines, vector_lines

Item = dict[str, object]


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    asyncio.run(build_rich_memory(path))
    return path


def test_the_export_holds_every_table_scopes_and_checksums(memory: Path, tmp_path: Path) -> None:
    manifest = export_memory(memory, tmp_path / "x", vectors=True)
    assert manifest == ExportManifest.read(tmp_path / "x")
    rows = {f.path: f.rows for f in manifest.files}
    assert rows["tables/turns.jsonl"] == 5
    assert rows["tables/memories.jsonl"] == 33
    assert rows["tables/entities.jsonl"] == 2
    assert rows["tables/entity_aliases.jsonl"] >= 1
    assert rows["tables/relationships.jsonl"] == 1
    assert rows["tables/day_summaries.jsonl"] == 1
    assert rows["tables/blocks.jsonl"] >= 1
    assert rows["tables/block_history.jsonl"] == 2
    assert manifest.source == "embedded"
    assert manifest.remem_version
    assert set(manifest.scopes.namespaces) >= {"default", "bob", "ada"}
    assert set(manifest.scopes.sessions) == {"s1", "s2"}
    assert {(c.model, c.dimension) for c in manifest.collections} == {("remem-hashing-v1-384", 384)}
    tables = table_lines(tmp_path / "x")
    old = next(r for r in tables["memories.jsonl"] if r["id"] == "mem-ada-berlin")
    assert old["superseded_by"] == "mem-ada-lisbon"  # the supersession chain travels
    history = tables["block_history.jsonl"]
    assert [h["op"] for h in history] == ["add", "replace"]
    assert (
        sum(len(v) for v in vector_lines(tmp_path / "x").values()) == 32
    )  # the superseded one has none
    assert entries(tmp_path) == ["memory", "x"]  # no partial directory left


@pytest.mark.postgres
def test_embedded_to_postgres_and_back_is_row_identical_and_recalls_the_same(
    memory: Path, tmp_path: Path, pg_dsn: str
) -> None:
    first = export_memory(memory, tmp_path / "x1", vectors=True)
    import_memory(tmp_path / "x1", pg_dsn)
    via_pg = export_memory(pg_dsn, tmp_path / "x2", vectors=True)
    assert via_pg.source == "postgres"
    import_memory(tmp_path / "x2", tmp_path / "back")
    again = export_memory(tmp_path / "back", tmp_path / "x3", vectors=True)

    expected = table_lines(tmp_path / "x1")
    assert sum(len(rows) for rows in expected.values()) > 50
    assert table_lines(tmp_path / "x2") == expected
    assert table_lines(tmp_path / "x3") == expected
    _same_items(vector_lines(tmp_path / "x2"), vector_lines(tmp_path / "x1"))
    _same_items(vector_lines(tmp_path / "x3"), vector_lines(tmp_path / "x1"))
    assert [(f.path, f.sha256) for f in again.files] == [(f.path, f.sha256) for f in first.files]
    assert via_pg.scopes == first.scopes
    assert via_pg.collections == first.collections

    want = asyncio.run(recalled(memory))
    assert any(want), "the queries must recall something for the comparison to mean anything"
    assert asyncio.run(recalled(tmp_path / "back")) == want


@pytest.mark.postgres
def test_a_non_empty_postgres_target_is_refused_without_force(
    memory: Path, tmp_path: Path, pg_dsn: str
) -> None:
    export_memory(memory, tmp_path / "x", vectors=True)
    import_memory(tmp_path / "x", pg_dsn)
    with pytest.raises(TargetNotEmptyError, match="not empty"):
        import_memory(tmp_path / "x", pg_dsn)
    import_memory(tmp_path / "x", pg_dsn, force=True)  # replaced, not doubled
    export_memory(pg_dsn, tmp_path / "y", vectors=True)
    assert table_lines(tmp_path / "y") == table_lines(tmp_path / "x")
    _same_items(vector_lines(tmp_path / "y"), vector_lines(tmp_path / "x"))


def test_without_vectors_the_import_re_embeds_and_recalls_the_same(
    memory: Path, tmp_path: Path
) -> None:
    manifest = export_memory(memory, tmp_path / "x")
    assert not manifest.vectors
    assert not (tmp_path / "x" / "vectors").exists()
    with pytest.raises(IncompatibleSnapshotError, match="no vectors"):
        import_memory(tmp_path / "x", tmp_path / "back")
    with pytest.raises(IncompatibleSnapshotError, match="embedded with"):
        import_memory(tmp_path / "x", tmp_path / "back", embedder=HashingEmbedder(dimension=64))
    assert not (tmp_path / "back").exists()
    import_memory(tmp_path / "x", tmp_path / "back", embedder=HashingEmbedder(dimension=384))
    export_memory(tmp_path / "back", tmp_path / "y")
    assert table_lines(tmp_path / "y") == table_lines(tmp_path / "x")
    assert asyncio.run(recalled(tmp_path / "back")) == asyncio.run(recalled(memory))


def test_a_non_empty_directory_is_refused_without_force(memory: Path, tmp_path: Path) -> None:
    export_memory(memory, tmp_path / "x", vectors=True)
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine")
    with pytest.raises(TargetNotEmptyError, match="not empty"):
        import_memory(tmp_path / "x", occupied)
    assert entries(occupied) == ["keep.txt"]
    import_memory(tmp_path / "x", occupied, force=True)
    assert "keep.txt" not in entries(occupied)
    assert sorted(entries(tmp_path)) == ["memory", "occupied", "x"]  # nothing left beside
    with pytest.raises(TargetNotEmptyError, match="already exists"):
        export_memory(memory, tmp_path / "x")


async def test_a_live_runtime_is_refused(memory: Path, tmp_path: Path) -> None:
    async with open_runtime(memory):
        with pytest.raises(WritersActiveError, match="writers active"):
            export_memory(memory, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_tampered_or_invalid_exports_are_refused(memory: Path, tmp_path: Path) -> None:
    export_memory(memory, tmp_path / "x", vectors=True)
    turns = tmp_path / "x" / "tables" / "turns.jsonl"
    turns.write_text(turns.read_text().replace("Lisbon", "Madrid").replace("city 1", "city 9"))
    with pytest.raises(ChecksumMismatchError, match=r"turns\.jsonl"):
        import_memory(tmp_path / "x", tmp_path / "back")
    assert not (tmp_path / "back").exists()

    (tmp_path / "x" / "manifest.json").write_text("{not json")
    with pytest.raises(ManifestInvalidError, match="cannot be read as JSON"):
        import_memory(tmp_path / "x", tmp_path / "back")
    with pytest.raises(ManifestInvalidError, match=r"no manifest\.json"):
        import_memory(tmp_path / "nothing", tmp_path / "back")

    export_memory(memory, tmp_path / "v2")
    manifest = json.loads((tmp_path / "v2" / "manifest.json").read_text())
    manifest["format_version"] = 99
    (tmp_path / "v2" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IncompatibleSnapshotError, match="format version 99"):
        import_memory(tmp_path / "v2", tmp_path / "back")


def _same_items(got: dict[str, list[Item]], want: dict[str, list[Item]]) -> None:
    """Item by item: ids, documents and metadata exactly; vectors within float32 rounding
    (PgVectorStore keeps cosine vectors unit-normalised beside their norm)."""
    assert sorted(got) == sorted(want)
    for name, items in want.items():
        assert [i["id"] for i in got[name]] == [i["id"] for i in items], name
        for mine, theirs in zip(got[name], items, strict=True):
            assert (mine["document"], mine["metadata"]) == (theirs["document"], theirs["metadata"])
            np.testing.assert_allclose(_vector(mine), _vector(theirs), rtol=1e-6, atol=1e-7)


def _vector(item: Item) -> NDArray[np.float32]:
    return np.frombuffer(base64.b64decode(str(item["vector"])), dtype="<f4")


@pytest.mark.postgres
def test_a_postgres_import_failing_in_its_vectors_keeps_nothing(
    memory: Path, tmp_path: Path, pg_dsn: str
) -> None:
    export_memory(memory, tmp_path / "x", vectors=True)
    bad = tmp_path / "x"
    vectors = max((bad / "vectors").glob("*.jsonl"), key=lambda f: f.stat().st_size)
    lines = vectors.read_text().splitlines()
    item = json.loads(lines[-1])
    item["vector"] = base64.b64encode(b"\0" * 8).decode("ascii")  # 2 dimensions, not 384
    vectors.write_text("\n".join([*lines[:-1], json.dumps(item)]) + "\n")
    manifest = json.loads((bad / "manifest.json").read_text())
    rel = vectors.relative_to(bad).as_posix()
    for entry in manifest["files"]:  # a consistent manifest: the damage is found while loading
        if entry["path"] == rel:
            entry["sha256"] = hashlib.sha256(vectors.read_bytes()).hexdigest()
            entry["bytes"] = vectors.stat().st_size
    (bad / "manifest.json").write_text(json.dumps(manifest))

    with pytest.raises(ManifestInvalidError, match="dimensions"):
        import_memory(bad, pg_dsn)
    export_memory(pg_dsn, tmp_path / "empty", vectors=True)
    assert all(not rows for rows in table_lines(tmp_path / "empty").values())
    assert vector_lines(tmp_path / "empty") == {}

    export_memory(memory, tmp_path / "good", vectors=True)
    import_memory(tmp_path / "good", pg_dsn)
    with pytest.raises(ManifestInvalidError, match="dimensions"):
        import_memory(bad, pg_dsn, force=True)  # the forced replacement is rolled back too
    export_memory(pg_dsn, tmp_path / "kept", vectors=True)
    assert table_lines(tmp_path / "kept") == table_lines(tmp_path / "good")
    _same_items(vector_lines(tmp_path / "kept"), vector_lines(tmp_path / "good"))


@pytest.mark.postgres
def test_without_vectors_a_postgres_import_re_embeds_in_the_same_transaction(
    memory: Path, tmp_path: Path, pg_dsn: str
) -> None:
    export_memory(memory, tmp_path / "x")
    import_memory(tmp_path / "x", pg_dsn, embedder=HashingEmbedder(dimension=384))
    export_memory(pg_dsn, tmp_path / "y", vectors=True)
    export_memory(memory, tmp_path / "want", vectors=True)
    assert table_lines(tmp_path / "y") == table_lines(tmp_path / "x")
    _same_items(vector_lines(tmp_path / "y"), vector_lines(tmp_path / "want"))


async def _sessions_in(path: Path, namespace: str, **options: Any) -> list[str]:
    rt = remem.Runtime.open(path, embedding_provider="hashing", **options)
    async with rt:
        store = (await rt.controller.settled()).transcript
        assert store is not None
        return sorted(s.session_id for s in await store.list_sessions(namespace=namespace))


@pytest.mark.parametrize("via", ["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_sessions_and_episodes_keep_their_scope_through_export_and_import(
    tmp_path: Path, via: str, request: pytest.FixtureRequest
) -> None:
    source = tmp_path / "memory"
    async with open_runtime(source) as rt:
        await rt.controller.record_turn("s-ana", "I moved to Porto", "Noted.", namespace="ana")
        await rt.controller.record_turn("s-def", "Hello", "Hi.")
    manifest = await asyncio.to_thread(export_memory, source, tmp_path / "x", vectors=True)
    tables = table_lines(tmp_path / "x")
    assert {r["session_id"]: r["namespace"] for r in tables["sessions.jsonl"]} == {
        "s-ana": "ana",
        "s-def": "default",
    }
    turns = [r for r in tables["episodes.jsonl"] if r["kind"] == "turn"]
    assert {r["session_id"]: r["namespace"] for r in turns} == {"s-ana": "ana", "s-def": "default"}
    assert manifest.scopes.namespaces == ("ana", "default")
    target: str | Path = tmp_path / "copy"
    options: dict[str, Any] = {}
    if via == "postgres":
        dsn = request.getfixturevalue("pg_dsn")
        target, options = dsn, {"backend": "postgres", "dsn": dsn}
    await asyncio.to_thread(import_memory, tmp_path / "x", target)
    copy = tmp_path / "copy"
    assert await _sessions_in(copy, "ana", **options) == ["s-ana"]
    assert await _sessions_in(copy, "default", **options) == ["s-def"]
    again = await asyncio.to_thread(export_memory, target, tmp_path / "y", vectors=True)
    assert table_lines(tmp_path / "y") == tables
    assert again.scopes == manifest.scopes


def test_an_export_from_before_sessions_had_a_scope_imports_into_default(
    tmp_path: Path,
) -> None:
    source = tmp_path / "memory"
    asyncio.run(build_memory_with_turns(source))
    export_memory(source, tmp_path / "x", vectors=True)
    for name in ("sessions.jsonl", "episodes.jsonl"):  # as an older remem wrote them
        file = tmp_path / "x" / "tables" / name
        rows = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
        for row in rows:
            del row["namespace"]
        file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        _reseal(tmp_path / "x", f"tables/{name}")
    import_memory(tmp_path / "x", tmp_path / "copy")
    assert asyncio.run(_sessions_in(tmp_path / "copy", "default")) == ["s1"]


async def build_memory_with_turns(path: Path) -> None:
    async with open_runtime(path) as rt:
        await rt.controller.record_turn("s1", "Ada moved to Porto", "Noted.")


def _reseal(export: Path, rel: str) -> None:
    """Rewrite the manifest entry of ``rel`` (its sha256), as the writer of that file would."""
    raw = json.loads((export / "manifest.json").read_text(encoding="utf-8"))
    digest = hashlib.sha256((export / rel).read_bytes()).hexdigest()
    for entry in raw["files"]:
        if entry["path"] == rel:
            entry["sha256"] = digest
            entry["bytes"] = (export / rel).stat().st_size
    (export / "manifest.json").write_text(json.dumps(raw), encoding="utf-8")
