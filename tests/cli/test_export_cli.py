"""``remem export`` / ``remem import`` (and ``--dsn`` snapshots) through ``remem.cli.main``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from remem.cli import main
from tests.recovery.memory_dirs import build_memory, recalled
from tests.recovery.rich_memory import table_lines


def test_export_then_import_both_ways(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = tmp_path / "memory"
    asyncio.run(build_memory(memory, memories=8))
    assert main(["export", str(memory), "--out", str(tmp_path / "x")]) == 0
    out = capsys.readouterr().out
    assert "verified" in out
    assert "tables/memories.jsonl" in out

    assert main(["import", str(tmp_path / "x"), "--dir", str(tmp_path / "copy")]) == 0
    assert "re-embedded (hashing)" in capsys.readouterr().out
    assert main(["import", str(tmp_path / "x"), "--dir", str(tmp_path / "copy")]) == 1
    assert "remem import: error:" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "copy"), "--out", str(tmp_path / "y")]) == 0
    assert table_lines(tmp_path / "y") == table_lines(tmp_path / "x")
    assert asyncio.run(recalled(tmp_path / "copy")) == asyncio.run(recalled(memory))


@pytest.mark.postgres
def test_snapshot_and_restore_with_a_dsn(
    tmp_path: Path, pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = tmp_path / "memory"
    asyncio.run(build_memory(memory, memories=5))
    assert main(["export", str(memory), "--out", str(tmp_path / "x"), "--vectors"]) == 0
    assert main(["import", str(tmp_path / "x"), "--dir", pg_dsn]) == 0
    assert main(["snapshot", "--dsn", pg_dsn, str(tmp_path / "snap")]) == 0
    assert "PostgreSQL" in capsys.readouterr().out
    assert main(["restore", str(tmp_path / "snap"), "--dsn", pg_dsn]) == 1
    assert "not empty" in capsys.readouterr().err
    assert main(["restore", str(tmp_path / "snap"), "--dsn", pg_dsn, "--force"]) == 0
    assert "rows verified" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["export", "import"])
def test_help_has_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert f"remem {command} " in capsys.readouterr().out.split("examples:")[1]
