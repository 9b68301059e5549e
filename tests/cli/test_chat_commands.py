"""The chat's slash commands, config and reply cancellation, without a terminal: the same
``run_command`` and ``ChatSession`` the terminal drives, on real stores (embedded and
PostgreSQL)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from remem.brains import Brain, Completion, GeminiBrain, Message
from remem.cli import build_parser
from remem.cli.chat import load_config
from remem.cli.chat_commands import COMMANDS, UNAVAILABLE, run_command
from remem.cli.chat_session import CANCELLED, ChatSession
from remem.companion import Companion, TurnResult
from remem.errors import ConfigError
from remem.runtime_config import RuntimeConfig


@pytest.fixture
async def session(tmp_path: Path) -> AsyncIterator[ChatSession]:
    chat = await ChatSession.open(RuntimeConfig(path=tmp_path / "m"), session_id="s1")
    try:
        yield chat
    finally:
        await chat.close()


async def test_bad_arguments_are_one_error_line_and_the_usage(session: ChatSession) -> None:
    cases = {
        "/context": "no turn yet in this session",
        "/prompt extra": "takes no arguments",
        "/transcript a b": "at most one session id",
        "/transcript --last": "--last needs a number",
        "/transcript --last -3": "--last needs a positive whole number",
        "/recall": "give the words to recall",
        "/recall x --k 0": "--k needs a positive whole number",
        "/remember   ": "give the text to remember",
        "/forget": "give the id of a memory",
        "/lifecycle --exec": "the only option is --execute",
        "/help a b": "at most one command name",
        "/help nope": "unknown command /nope",
        "/new 'x": "No closing quotation",
        "/quit now": "takes no arguments",
    }
    for line, message in cases.items():
        out = await run_command(session, line)
        assert out.error, line
        first, second = out.text.split("\n")
        assert first.startswith("error: "), line
        assert message in first, (line, first)
        name = line.split()[0].removeprefix("/")
        assert second == f"usage: {COMMANDS[name].usage}", line


async def test_every_command_has_help(session: ChatSession) -> None:
    listing = (await run_command(session, "/help")).text
    for command in COMMANDS.values():
        assert command.usage in listing
        assert command.summary in listing
        shown = (await run_command(session, f"/help {command.name}")).text
        assert shown.startswith(f"usage: {command.usage}\n{command.summary}")
    assert UNAVAILABLE == {}  # every command the specification names is wired
    assert "Not available" not in listing
    assert (await run_command(session, "/QUIT")).quit


async def test_turns_recall_remember_forget_and_context(session: ChatSession) -> None:
    result = await session.turn("I moved to Lisbon last month")
    assert isinstance(result, TurnResult)
    remembered = (await run_command(session, "/remember Ada's cat is called Miso")).text
    memory_id = remembered.split()[1].rstrip(":")
    recalled = (await run_command(session, "/recall what's the cat called")).text
    top = recalled.splitlines()[0]
    assert memory_id in top
    assert "[" in top
    assert "vector" in top.split("]")[0]
    context = (await run_command(session, "/context")).text
    assert context.startswith(f"the last turn's prompt: {result.prompt.tokens} tokens")
    assert result.prompt.context.explain(max_items=40).splitlines()[0] in context
    prompt = (await run_command(session, "/prompt")).text
    for message in result.prompt.messages:
        assert f"── {message.role} ──\n{message.content}" in prompt
    assert (await run_command(session, f"/forget {memory_id}")).text.startswith("forgot 1 memory")
    after = (await run_command(session, "/recall what's the cat called")).text
    assert memory_id not in after
    status = await session.status()
    assert "scripted:offline-companion · session s1 (1 turns) · " in status
    assert "blocks user " in status


class _Hanging(Brain):
    """A brain whose reply never comes (until cancelled)."""

    name = "hanging:test"

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def complete(
        self, messages: Sequence[Message], **kwargs: Any
    ) -> Completion:  # pragma: no cover - signature as the protocol's
        self.started.set()
        await asyncio.sleep(3600)
        raise AssertionError("not cancelled")

    async def aclose(self) -> None:
        pass


async def test_a_cancelled_reply_keeps_the_message(tmp_path: Path) -> None:
    brain = _Hanging()
    chat = await ChatSession.open(RuntimeConfig(path=tmp_path), session_id="c", brain=brain)
    try:
        turn = asyncio.ensure_future(chat.turn("Remember that I am vegetarian"))
        await brain.started.wait()
        assert chat.interrupt()
        entry = await turn
        assert not isinstance(entry, TurnResult)
        assert entry.user_message == "Remember that I am vegetarian"
        assert entry.metadata["reply"] == CANCELLED
        stored = await chat.entries("c")
        assert [e.user_message for e in stored] == ["Remember that I am vegetarian"]
        assert not chat.interrupt()  # nothing in flight: a late Ctrl-C cancels nothing
    finally:
        await chat.close()


def _args(*argv: str) -> argparse.Namespace:
    return build_parser("chat").parse_args(["chat", *argv])


def test_brain_from_the_config_file_and_flags_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = tmp_path / "m"
    memory.mkdir()
    (memory / "remem.toml").write_text(
        '[brain]\nprovider = "gemini:gemini-2.0-flash"\nbase_url = "http://127.0.0.1:9/v1beta"\n'
    )
    config = load_config(_args("--dir", str(memory)))
    assert (config.brain, config.brain_url) == (
        "gemini:gemini-2.0-flash",
        "http://127.0.0.1:9/v1beta",
    )
    assert "brain = gemini:gemini-2.0-flash at http://127.0.0.1:9/v1beta" in config.describe()
    flagged = load_config(_args("--dir", str(memory), "--brain", "anthropic:claude-x"))
    assert (flagged.brain, flagged.brain_url) == ("anthropic:claude-x", None)
    assert load_config(_args("--dir", str(tmp_path / "none"))).brain is None
    assert "brain = offline" in RuntimeConfig().describe()


async def test_the_configured_brain_is_the_one_chat_talks_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    config = RuntimeConfig(
        path=tmp_path, brain="gemini:gemini-2.0-flash", brain_url="http://127.0.0.1:9/v1beta"
    )
    chat = await ChatSession.open(config)
    try:
        assert isinstance(chat.brain, GeminiBrain)
        assert chat.model == "gemini:gemini-2.0-flash@127.0.0.1:9"
    finally:
        await chat.close()


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ({"brain": {"provider": "bard:x"}}, "unknown brain provider 'bard'"),
        ({"brain": {"provider": "gemini"}}, "must be PROVIDER:MODEL"),
        ({"brain": {"base_url": "http://x"}}, "base_url was given without a provider"),
        ({"brain": {"model": "x"}}, r"\[brain\] has unknown keys \['model'\]"),
    ],
)
def test_bad_brain_tables(table: Mapping[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        RuntimeConfig.from_mapping(table)


@pytest.mark.postgres
async def test_chat_on_postgres(pg_dsn: str, tmp_path: Path) -> None:
    args = _args("--dir", str(tmp_path), "--backend", "postgres", "--dsn", pg_dsn)
    config = load_config(args)
    chat = await ChatSession.open(config, session_id="pg")
    try:
        await chat.turn("My name is Ada and I live in Lisbon.")
        assert "pg " in (await run_command(chat, "/sessions")).text
        assert "you: My name is Ada" in (await run_command(chat, "/transcript")).text
        assert "Lisbon" in (await run_command(chat, "/blocks")).text
        reset = await run_command(chat, "/reset")  # the default confirm answers no
        assert reset.text == "not reset"
        assert "Lisbon" in (await run_command(chat, "/blocks")).text
    finally:
        await chat.close()


async def test_no_interrupt_once_the_reply_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    finishing, release = asyncio.Event(), asyncio.Event()
    finish = Companion._finish_turn

    async def held(self: Companion, *args: Any) -> TurnResult:
        finishing.set()
        await release.wait()
        return await finish(self, *args)

    monkeypatch.setattr(Companion, "_finish_turn", held)
    chat = await ChatSession.open(RuntimeConfig(path=tmp_path), session_id="w")
    try:
        shown: list[str] = []
        turn = asyncio.ensure_future(chat.turn("My name is Ada.", shown.append))
        await finishing.wait()
        assert not chat.interrupt()  # the turn is being written: not cut short
        release.set()
        result = await turn
        assert isinstance(result, TurnResult)
        assert "".join(shown) == result.reply
        assert [e.assistant_message for e in await chat.entries("w")] == [result.reply]
    finally:
        await chat.close()
