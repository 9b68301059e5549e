"""The terminal loop of ``remem chat``: read a line, run a turn or a slash command, print.

The memory runs on an asyncio loop in a background thread (so write-behind and extraction go
on while the user types); the main thread owns the terminal. Line editing and history use the
stdlib ``readline`` when stdin is a terminal (history in ``<memory dir>/chat_history``, Tab
completes commands). Colours only when stdout is a terminal, ``NO_COLOR`` is unset and
``TERM`` is not ``dumb``.

The reply is printed as the model produces it (streamed where the provider streams; the
offline companion answers at once). Keys: Ctrl-C while a reply is produced cancels it (what
was shown stays on screen, the message stays in the transcript without a reply, see
:mod:`remem.cli.chat_session`); Ctrl-C at the prompt clears the line; Ctrl-D (or ``/quit``)
drains extraction, applies what is journaled, closes the stores and exits 0.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

if TYPE_CHECKING:  # the memory's modules load on the loop thread, after the prompt is shown
    from remem.cli.chat_commands import Output
    from remem.cli.chat_session import ChatSession
    from remem.runtime_config import RuntimeConfig

__all__ = ["HISTORY_FILE", "Style", "Terminal"]

HISTORY_FILE = "chat_history"
"""The readline history file, in the memory directory."""
HISTORY_LENGTH = 1000

T = TypeVar("T")


class Style:
    """ANSI colours, or plain text when colour is off (see the module docstring)."""

    def __init__(self, stream: TextIO) -> None:
        self.on = (
            stream.isatty()
            and not os.environ.get("NO_COLOR")
            and os.environ.get("TERM", "") != "dumb"
        )

    def _wrap(self, code: str, text: str, prompt: bool = False) -> str:
        if not self.on:
            return text
        start, end = f"\x1b[{code}m", "\x1b[0m"
        if prompt:  # readline must not count escape codes as printed width
            start, end = f"\001{start}\002", f"\001{end}\002"
        return f"{start}{text}{end}"

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def bold(self, text: str, prompt: bool = False) -> str:
        return self._wrap("1", text, prompt)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def cyan(self, text: str, prompt: bool = False) -> str:
        return self._wrap("36", text, prompt)


class Terminal:
    """One interactive ``remem chat`` (module docstring)."""

    def __init__(
        self,
        load_config: Callable[[], RuntimeConfig],
        directory: Path,
        *,
        session_id: str | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        self._load_config = load_config
        self.directory = directory
        self.session_id = session_id
        self.stdin = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.style = Style(self.out)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._readline: Any = None
        self._lock = threading.Lock()
        self._at_prompt = False
        self._announced = False
        self._prompt = self.style.cyan("you", prompt=True) + "> "
        self._opening: concurrent.futures.Future[tuple[ChatSession, str]]

    # -- plumbing -------------------------------------------------------------------------------

    def _call(self, coro: Coroutine[Any, Any, T], session: ChatSession | None = None) -> T:
        """Run ``coro`` on the memory's loop; Ctrl-C meanwhile interrupts ``session``'s reply."""
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        while True:
            try:
                return future.result(timeout=0.05)
            except concurrent.futures.TimeoutError:
                continue
            except KeyboardInterrupt:
                if session is not None:
                    self._loop.call_soon_threadsafe(session.interrupt)

    def _print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def _setup_readline(self) -> None:
        if not self.stdin.isatty():
            return
        try:
            import readline
        except ImportError:  # a Python built without it: plain input()
            return
        self._readline = readline

        def complete(text: str, state: int) -> str | None:
            from remem.cli.chat_commands import COMMANDS, UNAVAILABLE  # loaded by then

            names = [f"/{n}" for n in (*COMMANDS, *UNAVAILABLE)]
            matches = [n for n in names if n.startswith(text)] if text.startswith("/") else []
            return matches[state] if state < len(matches) else None

        readline.set_completer(complete)
        readline.set_completer_delims(" \t")
        readline.parse_and_bind("tab: complete")
        readline.set_history_length(HISTORY_LENGTH)
        with contextlib.suppress(OSError):  # no history yet
            readline.read_history_file(self._history_path)

    @property
    def _history_path(self) -> Path:
        return self.directory / HISTORY_FILE

    def _save_history(self) -> None:
        if self._readline is not None:
            try:
                self._readline.write_history_file(self._history_path)
            except OSError as exc:
                self._print(self.style.dim(f"(history not saved: {exc})"))

    async def _confirm(self, question: str) -> bool:
        try:
            answer = await asyncio.to_thread(input, f"{question} [y/N] ")
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")

    # -- the loop -------------------------------------------------------------------------------

    def run(self) -> int:
        """Talk until Ctrl-D or /quit; 0 on a clean exit, 2 when the memory cannot open.

        The prompt is shown at once and the memory opens meanwhile on the loop thread (its
        imports included): the status line appears above the prompt when it is ready, and a
        line typed before that waits for it. An opening failure prints one error line, and
        interrupts the prompt (SIGINT) to exit 2.
        """
        self._thread.start()
        try:
            self._setup_readline()
            s = self.style
            self._print(
                s.bold("remem chat")
                + s.dim(f" — memory in {self.directory}. /help for commands, Ctrl-D to exit.")
            )
            self._opening = asyncio.run_coroutine_threadsafe(self._open(), self._loop)
            self._opening.add_done_callback(self._opened)
            try:
                return self._converse()
            except KeyboardInterrupt:  # the opening failed just before a prompt
                return 2
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            if not self._loop.is_running():
                self._loop.close()

    async def _open(self) -> tuple[ChatSession, str]:
        from remem.cli.chat_session import ChatSession  # the heavy imports, off the prompt

        session = await ChatSession.open(self._load_config(), session_id=self.session_id)
        return session, await session.status()

    def _opened(self, future: concurrent.futures.Future[tuple[ChatSession, str]]) -> None:
        """On the loop thread: announce the status line, or the failure (module doc)."""
        exc = future.exception()
        with self._lock:
            if exc is not None:
                self._redraw(f"remem chat: error: {exc}", prompt=False)
                os.kill(os.getpid(), signal.SIGINT)  # wakes input() in the main thread
                return
            if self._at_prompt:
                self._redraw(self.style.dim(future.result()[1]), prompt=True)
                self._announced = True

    def _redraw(self, text: str, *, prompt: bool) -> None:
        """Print ``text`` above the prompt the user may be typing at, then redraw it."""
        tty = self._readline is not None
        self.out.write(("\r\x1b[K" if tty else "") + text + "\n")
        if prompt and tty:
            self.out.write(self._prompt.replace("\001", "").replace("\002", ""))
            self.out.write(self._readline.get_line_buffer())
        self.out.flush()

    def _session(self) -> ChatSession | None:
        """The opened session (waiting for it), or None when opening failed."""
        future = self._opening
        if not future.done() and self.style.on:
            self._print(self.style.dim("(opening the memory…)"))
        while True:
            try:
                exc = future.exception(timeout=0.05)
                break
            except concurrent.futures.TimeoutError:
                continue
            except KeyboardInterrupt:
                continue
        if exc is not None:
            return None
        session, status = future.result()
        with self._lock:
            if not self._announced:
                self._announced = True
                self._print(self.style.dim(status))
        return session

    def _converse(self) -> int:
        while True:
            if self._opening.done() and self._opening.exception() is not None:
                return 2
            try:
                with self._lock:
                    self._at_prompt = True
                line = input(self._prompt)
            except EOFError:
                self._print()
                return self._finish()
            except KeyboardInterrupt:
                if self._opening.done() and self._opening.exception() is not None:
                    return 2
                self._print("^C")
                continue
            finally:
                with self._lock:
                    self._at_prompt = False
            line = line.strip()
            if not line:
                continue
            session = self._session()
            if session is None:
                return 2
            if line.startswith("/"):
                from remem.cli.chat_commands import run_command

                out = self._guarded(run_command(session, line, self._confirm))
                if out.quit:
                    return self._finish()
                if out.text:
                    self._print(self.style.red(out.text) if out.error else out.text)
                continue
            self._turn(session, line)

    def _finish(self) -> int:
        session = self._session()
        if session is None:
            return 2
        self._save_history()
        self._call(session.close())
        self._print(
            self.style.dim(
                f"saved: {session.turns_this_run} turn(s) this run; memory in {self.directory}"
            )
        )
        return 0

    def _guarded(self, coro: Coroutine[Any, Any, Output]) -> Output:
        from remem.cli.chat_commands import Output

        try:
            return self._call(coro)
        except Exception as exc:  # a bug must not end the chat or show a traceback
            return Output(f"error: internal error ({type(exc).__name__}: {exc})", error=True)

    def _turn(self, session: ChatSession, line: str) -> None:
        """Run a turn, printing the reply as it arrives (module docstring)."""
        from remem.companion import TurnResult
        from remem.errors import RememError

        s = self.style
        if s.on:
            self.out.write(s.dim("thinking… (Ctrl-C cancels)"))
            self.out.flush()
        started = False

        def show(delta: str) -> None:  # on the loop thread, while this one waits in _call
            nonlocal started
            if not started:
                started = True
                self._clear_thinking()
                self.out.write(s.bold("remem") + "> ")
            self.out.write(delta)
            self.out.flush()

        def end_reply() -> None:
            if started:
                self.out.write("\n")
                self.out.flush()
            else:
                self._clear_thinking()

        try:
            result = self._call(session.turn(line, show), session)
        except RememError as exc:
            end_reply()
            self._print(s.red(f"error: {exc}"))
            return
        except Exception as exc:
            end_reply()
            self._print(s.red(f"error: internal error ({type(exc).__name__}: {exc})"))
            return
        end_reply()
        if not isinstance(result, TurnResult):
            self._print(s.dim("(reply cancelled — your message is kept in the transcript)"))
            return
        if not started:  # an empty reply: say so rather than print nothing
            self._print(s.bold("remem") + "> " + result.reply)
        for failure in result.failures:
            self._print(s.dim(f"note: {failure}"))
        self._print(s.dim(self._call(session.status())))

    def _clear_thinking(self) -> None:
        if self.style.on:
            self.out.write("\r\x1b[K")
            self.out.flush()
