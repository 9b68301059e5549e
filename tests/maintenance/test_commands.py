"""``remem reorganize``, ``lifecycle``, ``migrate`` and ``reset`` through ``remem.cli.main``, on
the embedded default and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import duckdb
import psycopg
import pytest

from remem.cli import main
from tests.maintenance.conftest import (
    fill,
    keyed_fact_texts,
    open_memory,
    recall_texts,
    record_count,
)

run = asyncio.run


@pytest.mark.parametrize("command", ["reorganize", "lifecycle", "migrate", "reset", "reembed"])
def test_help_has_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert f"remem {command} " in capsys.readouterr().out.split("examples:")[1]


@pytest.mark.parametrize("command", ["reorganize", "lifecycle", "migrate"])
def test_only_the_exact_execute_mutates(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for near in ("--exec", "--execute=yes", "-e"):
        with pytest.raises(SystemExit) as exit_:
            main([command, "--dir", str(tmp_path / "m"), near])
        assert exit_.value.code == 2
    assert not (tmp_path / "m").exists()


def test_reorganize_previews_then_executes(
    memory: Path,
    backend: dict[str, str],
    cli_options: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run(fill(memory, backend))
    assert main(["reorganize", *cli_options]) == 0
    preview = capsys.readouterr().out
    assert "[ok] extraction-drained" in preview
    assert (
        "fact supersessions: 1\n  'The user lives in Lisbon' -> 'The user moved to Porto'"
        in preview
    )
    assert "only the exact option --execute applies them" in preview
    # the preview changed nothing
    assert "The user lives in Lisbon" in run(
        recall_texts(memory, backend, "where does the user live")
    )

    assert main(["reorganize", *cli_options, "--execute"]) == 0
    done = capsys.readouterr().out
    assert "consolidation: 1 supersessions" in done
    assert "lifecycle: executed plan" in done
    assert main(["reorganize", *cli_options]) == 0
    assert "fact supersessions: 0" in capsys.readouterr().out


def test_reorganize_refuses_when_a_preflight_check_fails(
    memory: Path,
    backend: dict[str, str],
    cli_options: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run(fill(memory, backend))
    (memory / "reembed.json").write_text("{}")  # an unfinished re-embed
    assert main(["reorganize", *cli_options, "--execute"]) == 1
    captured = capsys.readouterr()
    assert "[FAIL] no-reembed-in-progress" in captured.out
    err = captured.err.strip()
    assert err.count("\n") == 0
    assert err.startswith("remem reorganize: error: refused: preflight check(s) failed")
    assert "no-reembed-in-progress" in err
    # nothing was superseded
    assert run(keyed_fact_texts(memory, backend)) == [
        "The user lives in Lisbon",
        "The user moved to Porto",
    ]


def test_lifecycle_previews_then_executes(
    memory: Path,
    backend: dict[str, str],
    cli_options: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run(fill(memory, backend, memories=5))
    # The clock is the system's: the memories written at T0 (months ago) have decayed.
    assert main(["lifecycle", *cli_options]) == 0
    preview = capsys.readouterr().out
    assert "decay: 7" in preview
    assert "(preview only; --execute applies it)" in preview
    assert main(["lifecycle", *cli_options, "--execute"]) == 0
    assert "decayed 7" in capsys.readouterr().out
    assert main(["lifecycle", *cli_options]) == 0
    assert "decay: 0" in capsys.readouterr().out


def _forget_blocks_schema(memory: Path, backend: dict[str, str]) -> None:
    """Make the memory look as if made before the blocks component existed."""
    if backend:
        with psycopg.connect(backend["dsn"]) as conn:
            conn.execute("DROP TABLE core_block_history, core_blocks")
            conn.execute("DELETE FROM remem_schema_migrations WHERE component = 'blocks'")
        return
    ddb = duckdb.connect(str(memory / "memory.duckdb"))
    try:
        ddb.execute("DROP TABLE core_block_history")
        ddb.execute("DROP TABLE core_blocks")
        ddb.execute("DELETE FROM remem_schema_migrations WHERE component = 'duckdb-blocks'")
    finally:
        ddb.close()


def test_migrate_lists_the_pending_steps_then_applies_them(
    memory: Path,
    backend: dict[str, str],
    cli_options: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run(fill(memory, backend, memories=3))
    assert main(["migrate", *cli_options]) == 0
    assert "nothing to migrate" in capsys.readouterr().out
    _forget_blocks_schema(memory, backend)
    assert main(["migrate", *cli_options]) == 0
    preview = capsys.readouterr().out
    assert "v0 of v1  1 step(s) to apply" in preview
    assert "step v1: " in preview
    assert "1 step(s) pending; only the exact option --execute applies them" in preview
    assert main(["migrate", *cli_options]) == 0  # a preview applies nothing
    assert "1 step(s) pending" in capsys.readouterr().out
    assert main(["migrate", *cli_options, "--execute"]) == 0
    assert "applied 1 step(s); every component is current" in capsys.readouterr().out
    assert main(["migrate", *cli_options]) == 0
    assert "nothing to migrate" in capsys.readouterr().out
    assert len(run(recall_texts(memory, backend, "cats", k=3))) == 3


def test_reset_asks_and_keeps_or_drops(
    memory: Path,
    backend: dict[str, str],
    cli_options: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run(fill(memory, backend, memories=3))
    assert main(["reset", *cli_options]) == 1  # stdin is not a terminal: it will not guess
    assert "pass --yes" in capsys.readouterr().err
    assert run(record_count(memory, backend)) == 5
    assert main(["reset", *cli_options, "--yes"]) == 0
    said = capsys.readouterr().out
    if backend:
        assert "every remem table was dropped" in said
        with psycopg.connect(backend["dsn"]) as conn:
            left = conn.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
            ).fetchone()
            assert left == (0,)
    else:
        kept = [p for p in memory.parent.iterdir() if p.name.startswith("memory.reset-")]
        assert len(kept) == 1
        assert (kept[0] / "memory.duckdb").is_file()
        assert not memory.exists()
        assert f"kept in {kept[0]}" in said
    assert run(record_count(memory, backend)) == 0


def test_reset_refuses_while_the_memory_is_open(
    memory: Path, cli_options: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    run(fill(memory, {}, memories=3))

    async def reset_while_open() -> int:
        async with open_memory(memory, {}):
            return await asyncio.to_thread(main, ["reset", *cli_options[:4], "--yes"])

    assert run(reset_while_open()) == 1
    assert "writers active" in capsys.readouterr().err
    assert (memory / "memory.duckdb").is_file()
