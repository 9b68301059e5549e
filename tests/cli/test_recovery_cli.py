"""``remem snapshot`` and ``remem restore`` on a real directory, through ``remem.cli.main``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from remem.cli import main
from tests.recovery.memory_dirs import build_memory, table_rows


def test_snapshot_then_restore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    memory = tmp_path / "memory"
    asyncio.run(build_memory(memory, memories=5))
    assert main(["snapshot", "--dir", str(memory), str(tmp_path / "snap")]) == 0
    out = capsys.readouterr().out
    assert "verified" in out
    assert "memory.duckdb" in out

    assert main(["restore", str(tmp_path / "snap"), "--dir", str(tmp_path / "copy")]) == 0
    assert table_rows(tmp_path / "copy") == table_rows(memory)

    assert main(["restore", str(tmp_path / "snap"), "--dir", str(memory)]) == 1
    assert "remem restore: error:" in capsys.readouterr().err
    assert main(["restore", str(tmp_path / "snap"), "--dir", str(memory), "--force"]) == 0


def test_a_snapshot_of_nothing_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["snapshot", "--dir", str(tmp_path / "none"), str(tmp_path / "snap")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "no embedded memory" in err


@pytest.mark.parametrize("command", ["snapshot", "restore"])
def test_help_has_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert f"remem {command} " in capsys.readouterr().out.split("examples:")[1]
