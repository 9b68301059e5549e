"""The chat's maintenance commands at the dispatch level (``run_command`` on a real
``ChatSession``), embedded and PostgreSQL: the same implementations as ``remem reorganize`` &
co. (the pty case is in test_chat_terminal.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from remem.cli.chat_commands import run_command
from remem.cli.chat_session import ChatSession
from remem.runtime_config import RuntimeConfig


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
async def chat(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ChatSession]:
    config = RuntimeConfig(path=tmp_path / "m", embedding_provider="hashing")
    if request.param == "postgres":
        config = RuntimeConfig(
            path=tmp_path / "m",
            embedding_provider="hashing",
            backend="postgres",
            dsn=request.getfixturevalue("pg_dsn"),
        )
    session = await ChatSession.open(config, session_id="s1")
    try:
        yield session
    finally:
        await session.close()


async def _yes(question: str) -> bool:
    return True


async def test_reorganize_lifecycle_and_migrate(chat: ChatSession) -> None:
    await chat.turn("My name is Ada and I live in Lisbon.")
    preview = await run_command(chat, "/reorganize")
    assert not preview.error
    assert "[ok] embedding-model: remem-hashing-v1-384" in preview.text
    assert "only the exact option /reorganize --execute applies them" in preview.text
    done = await run_command(chat, "/reorganize --execute")
    assert "lifecycle: executed plan" in done.text, done.text

    lifecycle = await run_command(chat, "/lifecycle")
    assert lifecycle.text.startswith("lifecycle plan "), lifecycle.text
    migrate = await run_command(chat, "/migrate")
    assert "nothing to migrate" in migrate.text, migrate.text
    backend = chat.runtime.config.backend
    assert f"schema of the {backend} memory:" in migrate.text
    # The memory was closed and reopened around /migrate: it still answers.
    assert "Lisbon" in (await run_command(chat, "/blocks")).text


async def test_reorganize_execute_is_refused_when_a_check_fails(chat: ChatSession) -> None:
    (chat.directory / "reembed.json").write_text("{}")
    refused = await run_command(chat, "/reorganize --execute")
    assert refused.error
    assert refused.text.count("\n") == 0
    assert refused.text.startswith("error: refused: preflight check(s) failed — no-reembed")
    assert "/help reorganize" in refused.text
    help_text = (await run_command(chat, "/help reorganize")).text
    assert "no-reembed-in-progress: no unfinished `remem reembed`" in help_text


async def test_snapshot_and_reset(chat: ChatSession, tmp_path: Path) -> None:
    await chat.turn("I work as a nurse in Porto.")
    snap = await run_command(chat, f"/snapshot {tmp_path / 'snap'}")
    if chat.runtime.config.backend == "postgres":
        assert snap.error
        assert "embedded backend only" in snap.text
    else:
        assert "verified" in snap.text, snap.text
        assert (tmp_path / "snap" / "manifest.json").is_file()
    reset = await run_command(chat, "/reset", confirm=_yes)
    assert reset.text.startswith("memory reset"), reset.text
    assert (await run_command(chat, "/sessions")).text == "no sessions stored yet"
