"""The slash commands of ``remem chat``: one table, one parser, one handler each.

:func:`run_command` takes a line starting with ``/`` and a :class:`ChatSession` and returns
what to print (:class:`Output`); nothing here touches a terminal, so the tests call it as the
terminal does. A bad command or bad arguments give one ``error:`` line and the command's usage
(:class:`CommandError`); a RememError from the memory gives one ``error:`` line — never a
traceback. ``/reset`` asks first through the ``confirm`` callable it is given.

The maintenance commands (``/reorganize``, ``/lifecycle``, ``/migrate``, ``/snapshot``,
``/reset``) call the same implementations as ``remem reorganize`` & co.
(:mod:`remem.maintenance`, :mod:`remem.recovery`); those that need the memory closed run
between a close and a reopen of the session's runtime (:func:`_closed`); ``/snapshot``
holds it still with its quiescence token instead (:func:`remem.maintenance.snapshot_live`).
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from remem.cli.chat_session import CANCELLED, ChatSession
from remem.errors import RememError
from remem.maintenance import (
    CHECKS,
    describe_reset,
    execute_reorganize,
    preview_reorganize,
    reset_memory,
    run_lifecycle,
    schema_plan,
    snapshot_live,
)
from remem.models import MemoryKind

T = TypeVar("T")

__all__ = ["COMMANDS", "UNAVAILABLE", "Command", "CommandError", "Output", "run_command"]

Confirm = Callable[[str], Awaitable[bool]]
"""Asks the user a yes/no question (``/reset``); True to go ahead."""


@dataclass(frozen=True)
class Output:
    """What a command prints: ``text`` lines, whether it is an error, whether chat ends."""

    text: str = ""
    error: bool = False
    quit: bool = False


class CommandError(RememError):
    """A slash command that does not parse: the message and the command's usage."""

    def __init__(self, message: str, usage: str) -> None:
        super().__init__(message)
        self.usage = usage


Handler = Callable[[ChatSession, "Args"], Awaitable[Output]]


@dataclass(frozen=True)
class Args:
    """A command's arguments: ``words`` (shell-split), ``rest`` (the raw text after the name),
    ``confirm`` (for commands that ask first) and ``usage`` (for their errors)."""

    words: list[str]
    rest: str
    usage: str
    confirm: Confirm

    def fail(self, message: str) -> CommandError:
        return CommandError(message, self.usage)

    def count(self, option: str, default: int) -> int:
        """``option N`` (a positive int) if present, else ``default``; removed from ``words``."""
        if option not in self.words:
            return default
        at = self.words.index(option)
        if at + 1 >= len(self.words):
            raise self.fail(f"{option} needs a number")
        value = self.words[at + 1]
        if not value.isdigit() or int(value) < 1:
            raise self.fail(f"{option} needs a positive whole number, got {value!r}")
        del self.words[at : at + 2]
        return int(value)


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    summary: str
    details: str
    handler: Handler = field(repr=False)
    raw: bool = False
    """Free text (split on whitespace only): an apostrophe is not a shell quote."""


# -- handlers ---------------------------------------------------------------------------------


async def _help(session: ChatSession, args: Args) -> Output:
    if len(args.words) > 1:
        raise args.fail("give at most one command name")
    if args.words:
        name = args.words[0].lstrip("/")
        if name in UNAVAILABLE:
            return Output(f"/{name}: {UNAVAILABLE[name]}")
        command = COMMANDS.get(name)
        if command is None:
            raise args.fail(f"unknown command /{name}; /help lists them")
        about = f"usage: {command.usage}\n{command.summary}"
        return Output(f"{about}\n\n{command.details}" if command.details else about)
    width = max(len(c.usage) for c in COMMANDS.values())
    lines = ["Type a message to talk; commands start with /.", ""]
    lines += [f"  {c.usage:<{width}}  {c.summary}" for c in COMMANDS.values()]
    if UNAVAILABLE:
        lines += ["", "Not available in this build: " + ", ".join(f"/{n}" for n in UNAVAILABLE)]
    lines.append("Ctrl-C cancels a reply; Ctrl-D (or /quit) saves and exits.")
    return Output("\n".join(lines))


async def _sessions(session: ChatSession, args: Args) -> Output:
    _no_words(args)
    transcript = (await session.controller.settled()).transcript
    stored = [] if transcript is None else await transcript.list_sessions()
    if not stored:
        return Output("no sessions stored yet")
    lines = []
    for s in sorted(stored, key=lambda s: s.created_at):
        turns = len(await session.entries(s.session_id))
        mark = "*" if s.session_id == session.session_id else " "
        lines.append(f"{mark} {s.session_id}  {s.created_at:%Y-%m-%d %H:%M}  {turns} turns")
    if all(s.session_id != session.session_id for s in stored):
        lines.append(f"* {session.session_id}  (current, nothing said yet)")
    return Output("\n".join(lines))


async def _transcript(session: ChatSession, args: Args) -> Output:
    last = args.count("--last", 20)
    if len(args.words) > 1:
        raise args.fail("give at most one session id")
    session_id = args.words[0] if args.words else session.session_id
    entries = await session.entries(session_id)
    if not entries:
        return Output(f"session {session_id} has no turns; /sessions lists the stored ones")
    shown = entries[-last:]
    lines = [f"session {session_id}: turns {shown[0].turn_number}–{shown[-1].turn_number}"]
    for e in shown:
        lines.append(f"#{e.turn_number} {e.created_at:%Y-%m-%d %H:%M} you: {e.user_message}")
        reply = e.assistant_message
        if e.metadata.get("reply") == CANCELLED:
            reply = "(reply cancelled)"
        lines.append(f"{' ' * (len(str(e.turn_number)) + 18)}me: {reply}")
    return Output("\n".join(lines))


def _last_prompt(session: ChatSession, args: Args) -> None:
    _no_words(args)
    if session.last is None:
        raise args.fail("no turn yet in this session; say something first")


async def _context(session: ChatSession, args: Args) -> Output:
    _last_prompt(session, args)
    assert session.last is not None
    prompt = session.last.prompt
    head = f"the last turn's prompt: {prompt.tokens} tokens, sections {', '.join(prompt.sections)}"
    texts = {h.record.id: _one_line(h.record.text) for h in prompt.recalled}
    lines = []
    for line in prompt.context.explain(max_items=40).splitlines():
        item = line.split(maxsplit=1)[0] if line.startswith("  ") and line.strip() else ""
        lines.append(f"{line}  “{_clip(texts[item])}”" if item in texts else line)
    return Output(head + "\n" + "\n".join(lines))


def _one_line(text: str) -> str:
    return " ⏎ ".join(part.strip() for part in text.splitlines() if part.strip())


def _clip(text: str, width: int = 72) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


async def _prompt(session: ChatSession, args: Args) -> Output:
    _last_prompt(session, args)
    assert session.last is not None
    parts = [f"── {m.role} ──\n{m.content}" for m in session.last.prompt.messages]
    return Output("\n".join(parts))


async def _blocks(session: ChatSession, args: Args) -> Output:
    _no_words(args)
    return Output((await session.blocks()).render())


async def _recall(session: ChatSession, args: Args) -> Output:
    k = args.count("--k", 10)
    query = " ".join(args.words).strip()
    if not query:
        raise args.fail("give the words to recall")
    hits = await session.controller.recall(query, k=k)
    if not hits:
        return Output(f"nothing recalled for {query!r}")
    lines = []
    for rank, hit in enumerate(hits, 1):
        r = hit.record
        found = "+".join(hit.sources) or "-"
        lines.append(
            f"{rank:>2}. {hit.score:.4f} [{found}] {r.lifecycle.stage.value} {r.kind} {r.id}: "
            f"{_one_line(r.text)}"
        )
        if hit.explanation:
            lines.append(f"      {hit.explanation}")
    return Output("\n".join(lines))


async def _remember(session: ChatSession, args: Args) -> Output:
    text = args.rest.strip()
    if not text:
        raise args.fail("give the text to remember")
    record = await session.controller.remember(
        text, kind=MemoryKind.FACT, session_id=session.session_id
    )
    return Output(f"remembered {record.id}: {record.text}")


async def _forget(session: ChatSession, args: Args) -> Output:
    if not args.words:
        raise args.fail("give the id of a memory (/recall shows ids)")
    changed = await session.controller.forget(args.words)
    return Output(f"forgot {changed} memor{'y' if changed == 1 else 'ies'}: {' '.join(args.words)}")


async def _lifecycle(session: ChatSession, args: Args) -> Output:
    return Output(await run_lifecycle(session.runtime, execute=_execute(args)))


def _execute(args: Args) -> bool:
    """Whether the words are exactly ``--execute`` (nothing else is accepted)."""
    execute = args.words == ["--execute"]
    if args.words and not execute:
        raise args.fail(f"the only option is --execute, got {' '.join(args.words)!r}")
    return execute


async def _reorganize(session: ChatSession, args: Args) -> Output:
    execute = _execute(args)
    plan = await preview_reorganize(session.runtime)
    if not execute:
        return Output(plan.describe().replace("--execute", "/reorganize --execute"))
    report = await execute_reorganize(session.runtime, plan)
    return Output(report.describe())


async def _closed(session: ChatSession, action: Callable[[], T]) -> T:
    """Run ``action`` with the runtime closed (drained), then reopen it — even if it fails."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def between() -> None:
        try:
            outcome.append(action())
        except Exception as exc:  # re-raised once the memory is open again
            failure.append(exc)

    await session.reopen(between)
    if failure:
        raise failure[0]
    return outcome[0]


async def _migrate(session: ChatSession, args: Args) -> Output:
    execute = _execute(args)
    config = session.runtime.config
    # Opening a memory applies its migrations, so what this shows is read with it closed, and
    # reopening applies any step listed.
    plan = await _closed(session, lambda: schema_plan(config))
    text = plan.describe().replace("--execute", "/migrate --execute")
    if execute:
        text += f"\napplied {plan.steps} step(s) on reopening; every component is current"
    return Output(text)


async def _snapshot(session: ChatSession, args: Args) -> Output:
    if len(args.words) > 1:
        raise args.fail("give at most one snapshot directory")
    config = session.runtime.config
    if config.backend != "embedded":
        return Output(
            "error: /snapshot works on the embedded backend only; with postgres, use pg_dump",
            error=True,
        )
    stamp = f"{datetime.now(UTC):%Y%m%d-%H%M%S}"
    default = config.path.with_name(f"{config.path.name}.snapshot-{stamp}")
    out = Path(args.words[0]) if args.words else default
    # Held still by its quiescence token, not closed: the chat's memory stays open.
    manifest = await snapshot_live(session.runtime, out)
    total = sum(p.bytes for p in manifest.participants)
    return Output(
        f"snapshot {out}: {len(manifest.participants)} files, {total:,} bytes, verified "
        f"(remem restore {out} --dir DIR puts it back)"
    )


async def _new(session: ChatSession, args: Args) -> Output:
    if len(args.words) > 1:
        raise args.fail("give at most one session id")
    session_id = session.new_session(args.words[0] if args.words else None)
    return Output(f"new session {session_id}")


async def _quit(session: ChatSession, args: Args) -> Output:
    _no_words(args)
    return Output(quit=True)


async def _reset(session: ChatSession, args: Args) -> Output:
    _no_words(args)
    config = session.runtime.config
    if not await args.confirm("/" + describe_reset(config)):
        return Output("not reset")
    return Output(await _closed(session, lambda: reset_memory(config)))


def _no_words(args: Args) -> None:
    if args.words:
        raise args.fail(f"takes no arguments, got {' '.join(args.words)!r}")


# -- the table --------------------------------------------------------------------------------

COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command("help", "/help [command]", "list commands, or explain one", "", _help),
        Command(
            "sessions",
            "/sessions",
            "the stored sessions (* = current)",
            "Every session in the transcript store with when it started and its turn count.",
            _sessions,
        ),
        Command(
            "transcript",
            "/transcript [session] [--last N]",
            "the turns of a session (default: this one, last 20)",
            "What was said, as stored: the durable transcript, not what the model was shown.",
            _transcript,
        ),
        Command(
            "context",
            "/context",
            "what the last turn's prompt received, and why",
            "The assembler's account of the last turn: the budget arithmetic, each section "
            "with its item count and tokens, and every candidate item with its tokens, score "
            "and why it was kept or dropped.",
            _context,
        ),
        Command(
            "prompt",
            "/prompt",
            "the exact prompt of the last turn",
            "Every message the model received for the last turn, in order, as sent.",
            _prompt,
        ),
        Command(
            "blocks",
            "/blocks",
            "the core memory blocks with their gauges",
            "The blocks as they go into every prompt, each with how full it is.",
            _blocks,
        ),
        Command(
            "recall",
            "/recall QUERY [--k N]",
            "ranked memories for QUERY and the retrievers that found each",
            "What recall returns for QUERY (default 10 hits): rank, fused score, the "
            "retrievers (vector, fulltext, graph), stage, kind, id and text, then its signals.",
            _recall,
            raw=True,
        ),
        Command(
            "remember",
            "/remember TEXT",
            "store TEXT as a fact",
            "Stores TEXT as a short-term fact memory of this session and prints its id.",
            _remember,
            raw=True,
        ),
        Command(
            "forget",
            "/forget ID [ID ...]",
            "forget memories by id",
            "Moves the memories to the deleted stage: never recalled again. Ids from /recall.",
            _forget,
        ),
        Command(
            "lifecycle",
            "/lifecycle [--execute]",
            "preview lifecycle moves; --execute applies them",
            "Previews which memories would be promoted, decayed, deleted or reactivated now "
            "and why; only the exact option --execute applies that plan. Not a fix for "
            "missing recall.",
            _lifecycle,
        ),
        Command(
            "reorganize",
            "/reorganize [--execute]",
            "preview consolidation + lifecycle; --execute applies it",
            "Quiesces the memory (extraction drained, journaled writes applied), runs the "
            "preflight checks and previews the entity merges, fact and relationship "
            "supersessions, day summaries and lifecycle moves. Only the exact option "
            "--execute applies them, and it is refused — nothing changed — when a check "
            "fails:\n"
            + "\n".join(f"  {name}: {why}" for name, why in CHECKS.items())
            + "\nNot a fix for missing recall.",
            _reorganize,
        ),
        Command(
            "migrate",
            "/migrate [--execute]",
            "schema versions of every component; --execute applies pending steps",
            "Closes the memory, reads each component's stored schema version and the steps "
            "that would bring it to this remem's, and reopens it (opening applies them). "
            "Not a fix for missing recall.",
            _migrate,
        ),
        Command(
            "snapshot",
            "/snapshot [DIR]",
            "a verified snapshot of this memory (embedded)",
            "Closes the memory, copies it consistently into DIR (default "
            "<dir>.snapshot-<time>) with a manifest of row counts and checksums, verifies "
            "it and reopens. `remem restore DIR --dir …` puts it back.",
            _snapshot,
        ),
        Command("new", "/new [session]", "start a new session", "", _new),
        Command(
            "reset",
            "/reset",
            "start over with an empty memory (asks first)",
            "Closes the memory, moves its directory aside (kept, with a .reset-<time> "
            "suffix) — with postgres, drops every remem table — and opens an empty one. "
            "Not a fix for missing recall.",
            _reset,
        ),
        Command("quit", "/quit", "save and exit (as Ctrl-D)", "", _quit),
    )
}
"""Command name → :class:`Command`, in the order ``/help`` lists them."""

UNAVAILABLE: dict[str, str] = {}
"""Commands the specification names that have no backing API in this build, with why."""


async def _never(question: str) -> bool:
    return False


async def run_command(session: ChatSession, line: str, confirm: Confirm = _never) -> Output:
    """Run one slash command line (module docstring)."""
    name, _, rest = line.strip().removeprefix("/").partition(" ")
    name = name.lower()
    if name in UNAVAILABLE:
        return Output(f"error: /{name} is {UNAVAILABLE[name]}", error=True)
    command = COMMANDS.get(name)
    if command is None:
        return Output(f"error: unknown command /{name}\nusage: /help [command]", error=True)
    try:
        words = rest.split() if command.raw else shlex.split(rest)
    except ValueError as exc:
        return Output(f"error: {exc}\nusage: {command.usage}", error=True)
    try:
        return await command.handler(session, Args(words, rest, command.usage, confirm))
    except CommandError as exc:
        return Output(f"error: {exc}\nusage: {exc.usage}", error=True)
    except RememError as exc:
        return Output(f"error: {exc}", error=True)
