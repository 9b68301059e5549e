"""``remem chat`` as a person uses it: a real pseudo-terminal, typed lines, the screen read back.

Every test runs the real command (``python -m remem chat``) on a real embedded memory in
``tmp_path``; the model is the offline companion, or Gemini's API served by a local stub
(selected through the memory directory's ``remem.toml``, as a user would configure it).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.cli.pty_screen import SGR, chat

CTRL_C, CTRL_D = "\x03", "\x04"


def test_talk_inspect_and_restart_finds_the_previous_session(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    with chat("--dir", str(memory)) as screen:
        screen.expect(r"remem chat")
        first = screen.expect(r"session (chat-\d{8}-\d{6}) \(0 turns\)").group(1)
        screen.prompt()
        screen.line("My name is Ada and I live in Lisbon.")
        screen.expect(r"remem> Got it")
        screen.expect(r"\(1 turns\) · \d+ memories")
        screen.prompt()
        screen.line("Where do I live?")
        screen.expect(r"remem> The user lives in Lisbon\.")
        screen.prompt()
        screen.send(CTRL_D)
        screen.expect(r"saved: 2 turn\(s\) this run")
        assert screen.wait() == 0
    assert (memory / "chat_history").read_text().count("Lisbon") == 1  # readline history

    with chat("--dir", str(memory)) as screen:
        screen.prompt()
        screen.line("/sessions")
        screen.expect(rf"{first}\s+\S+ \S+\s+2 turns")
        screen.prompt()
        screen.line(f"/transcript {first} --last 1")
        screen.expect(r"#2 .* you: Where do I live\?")
        screen.expect(r"me: The user lives in Lisbon\.")
        screen.prompt()
        screen.line("/blocks")
        screen.expect(r"<user> .*\[\d+% — [\d,]+/[\d,]+ chars\]")
        screen.expect(r"- The user lives in Lisbon\.")
        screen.prompt()
        screen.line("What is my name?")  # a new session: the fact comes from memory
        screen.expect(r"remem> The user's name is Ada\.")
        screen.prompt()
        screen.send("\x1b[A\x1b[A")  # history: Up twice recalls the earlier /blocks
        screen.expect(r"/blocks")
        screen.send("\x15")  # Ctrl-U clears the line
        screen.send(CTRL_D)
        assert screen.wait() == 0


def test_every_slash_command(tmp_path: Path) -> None:
    with chat("--dir", str(tmp_path / "m"), "--session", "s1") as screen:
        screen.prompt()
        screen.line("/context")
        screen.expect(r"error: no turn yet in this session; say something first\nusage: /context")
        screen.prompt()
        screen.line("I work as a nurse in Porto.")
        screen.expect(r"remem> ")
        screen.prompt()
        screen.line("/help")
        for usage in (
            "/help [command]",
            "/transcript [session] [--last N]",
            "/reorganize [--execute]",
            "/migrate [--execute]",
            "/snapshot [DIR]",
            "/reset",
        ):
            screen.expect(rf"  {__import__('re').escape(usage)}")
        screen.prompt()
        screen.line("/help lifecycle")
        screen.expect(r"usage: /lifecycle \[--execute\]\n.*\n\nPreviews which memories")
        screen.prompt()
        screen.line("/help reorganize")
        screen.expect(r"usage: /reorganize \[--execute\]\n.*\n\nQuiesces the memory")
        screen.expect(r"  embedding-model: every active collection was built by the embedder")
        screen.prompt()
        screen.line("/sessions")
        screen.expect(r"\* s1 .* 1 turns")
        screen.prompt()
        screen.line("/transcript")
        screen.expect(r"#1 .* you: I work as a nurse in Porto\.")
        screen.prompt()
        screen.line("/context")
        screen.expect(r"the last turn's prompt: \d+ tokens, sections system, .*query")
        screen.expect(r"section\s+kept dropped\s+tokens")
        screen.expect(r"core_memory\s+2\s+0\s+\d+")
        screen.expect(r"block:user\s+\d+ tok\s+score\s+1\.000\s+kept")
        screen.prompt()
        screen.line("/prompt")
        screen.expect(r"── system ──\nYou are a warm, attentive companion")
        screen.expect(r"── user ──\n<context>")
        screen.expect(r"I work as a nurse in Porto\.")
        screen.prompt()
        screen.line("/remember My sister's name is Rita.")
        memory_id = screen.expect(r"remembered (mem-[0-9a-f]+): My sister's name is Rita\.").group(
            1
        )
        screen.prompt()
        screen.line("/recall sister Rita")
        screen.expect(rf" 1\. \d\.\d+ \[[a-z+]*\] short_term fact {memory_id}: My sister's")
        screen.expect(r"= fusion")
        screen.prompt()
        screen.line(f"/forget {memory_id}")
        screen.expect(rf"forgot 1 memory: {memory_id}")
        screen.prompt()
        screen.line("/recall Rita --k 3")
        screen.expect(r"you> |nothing recalled")
        assert memory_id not in screen.text.rsplit("/recall Rita --k 3", 1)[1]
        screen.line("/forget mem-nope")
        screen.expect(r"error: .*unknown record ids \['mem-nope'\]")
        screen.prompt()
        screen.line("/lifecycle")
        screen.expect(r"lifecycle plan \S+ at .*: 0 change\(s\) among \d+ record\(s\)")
        screen.prompt()
        screen.line("/lifecycle --execute")
        screen.expect(r"executed plan \S+: 0 change\(s\)")
        screen.prompt()
        screen.line("/lifecycle --now")
        screen.expect(r"error: the only option is --execute, got '--now'\nusage: /lifecycle")
        screen.prompt()
        screen.line("/reorganize")
        screen.expect(r"\[ok\] extraction-drained: nothing pending")
        screen.expect(r"planned change\(s\); only the exact option /reorganize --execute")
        screen.prompt()
        screen.line("/reorganize --exec")
        screen.expect(r"error: the only option is --execute, got '--exec'\nusage: /reorganize")
        screen.prompt()
        screen.line("/reorganize --execute")
        screen.expect(r"consolidation: \d+ supersessions, \d+ merges, \d+ day summaries")
        screen.expect(r"lifecycle: executed plan \S+")
        screen.prompt()
        screen.line("/migrate")
        screen.expect(r"schema of the embedded memory:\n  records .* v1 of v1  current")
        screen.expect(r"nothing to migrate")
        screen.prompt()
        screen.line("/blocks extra")
        screen.expect(r"error: takes no arguments, got 'extra'\nusage: /blocks")
        screen.prompt()
        screen.line("/transcript --last zero")
        screen.expect(r"error: --last needs a positive whole number, got 'zero'")
        screen.prompt()
        screen.line('/new "unclosed')
        screen.expect(r"error: No closing quotation\nusage: /new \[session\]")
        screen.prompt()
        screen.line("/frobnicate")
        screen.expect(r"error: unknown command /frobnicate\nusage: /help \[command\]")
        screen.prompt()
        screen.line(f"/snapshot {tmp_path / 'snap'}")
        screen.expect(r"snapshot \S+/snap: \d+ files, [\d,]+ bytes, verified")
        screen.prompt()
        screen.line("/snapshot a b")
        screen.expect(r"error: give at most one snapshot directory\nusage: /snapshot \[DIR\]")
        screen.prompt()
        screen.line("/new s2")
        screen.expect(r"new session s2")
        screen.prompt()
        screen.line("/transcript")
        screen.expect(r"session s2 has no turns")
        screen.prompt()
        screen.line("/reset")
        screen.expect(
            r"moves .*/m aside to .*/m\.reset-\d+-\d+ and starts an empty memory\. Reset\?"
        )
        screen.line("n")
        screen.expect(r"not reset")
        screen.prompt()
        screen.line("/reset")
        screen.expect(r"Reset\? \[y/N\]")
        screen.line("y")
        screen.expect(r"memory reset; the old one is kept in \S+")
        screen.prompt()
        screen.line("/sessions")
        screen.expect(r"no sessions stored yet")
        screen.prompt()
        screen.line("/quit")
        screen.expect(r"saved: 1 turn\(s\) this run")
        assert screen.wait() == 0
    assert "Traceback" not in screen.text
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("m.reset-")]
    assert len(kept) == 1
    assert (kept[0] / "transcript.db").exists()
    assert (tmp_path / "snap" / "manifest.json").exists()


class SlowGemini:
    """A local Gemini stub streaming ``:streamGenerateContent?alt=sse``: the first reply sends
    two pieces, then hangs until released (a slow reply to cancel midway); later replies come
    in pieces of a few characters, ``PIECE_DELAY`` seconds apart, and end with STOP."""

    PIECE_DELAY = 0.05
    FIRST_PIECES = ("Let me think ", "about Oslo…")

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.first_shown = threading.Event()
        self.release = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append({"path": self.path, "key": self.headers["x-goog-api-key"]})
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()  # HTTP/1.0: the body ends when the connection closes
                if len(stub.requests) == 1:
                    for text in stub.FIRST_PIECES:
                        self._event({"candidates": [{"content": {"parts": [{"text": text}]}}]})
                    stub.first_shown.set()
                    stub.release.wait(30)
                    return  # the client has gone; the reply never ends
                said = body["contents"][-1]["parts"][-1]["text"].rpartition("</context>")[2]
                text = f"Gemini heard: {said.strip()}"
                pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
                for n, piece in enumerate(pieces):
                    candidate: dict[str, Any] = {"content": {"parts": [{"text": piece}]}}
                    if n == len(pieces) - 1:
                        candidate["finishReason"] = "STOP"
                    time.sleep(stub.PIECE_DELAY)
                    self._event({"candidates": [candidate], "modelVersion": "gemini-stub"})

            def _event(self, data: dict[str, Any]) -> None:
                self.wfile.write(f"data: {json.dumps(data, ensure_ascii=False)}\r\n\r\n".encode())
                self.wfile.flush()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1beta"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)


@pytest.fixture
def gemini() -> Iterator[SlowGemini]:
    stub = SlowGemini()
    stub.thread.start()
    try:
        yield stub
    finally:
        stub.release.set()
        stub.server.shutdown()
        stub.server.server_close()


def test_the_reply_streams_and_ctrl_c_cancels_it_midway_keeping_the_turn(
    tmp_path: Path, gemini: SlowGemini
) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "remem.toml").write_text(
        f'[brain]\nprovider = "gemini:gemini-2.0-flash"\nbase_url = "{gemini.url}"\n'
    )
    with chat("--dir", str(memory), "--session", "g", GEMINI_API_KEY="test-key") as screen:
        screen.expect(r"gemini:gemini-2\.0-flash@127\.0\.0\.1:\d+ · session g")
        screen.prompt()
        screen.line("I live in Oslo now.")
        assert gemini.first_shown.wait(30)
        screen.expect(r"remem> Let me think about Oslo…")  # shown while the reply goes on
        screen.send(CTRL_C)
        screen.expect(r"\(reply cancelled — your message is kept in the transcript\)")
        screen.prompt()
        screen.line("/transcript")
        screen.expect(r"#1 .* you: I live in Oslo now\.\n\s+me: \(reply cancelled\)")
        assert "Let me think" not in screen.text.rsplit("/transcript", 1)[1]  # no half reply
        screen.prompt()
        screen.line("Are you there?")
        screen.expect(r"remem> Gemi")
        screen.expect(r"ni heard: Are you there\?\n")
        screen.prompt()
        screen.line("/transcript --last 1")
        screen.expect(r"#2 .* you: Are you there\?\n\s+me: Gemini heard: Are you there\?")
        screen.prompt()
        screen.send(CTRL_C)  # at the prompt: clears the line, chat goes on
        screen.expect(r"\^C")
        screen.prompt()
        screen.send(CTRL_D)
        screen.expect(r"saved: 2 turn\(s\) this run")
        assert screen.wait() == 0
    assert "Traceback" not in screen.text
    paths = {r["path"] for r in gemini.requests}
    assert paths == {"/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"}
    assert {r["key"] for r in gemini.requests} == {"test-key"}


def test_colours_only_on_a_tty_and_never_with_no_color(tmp_path: Path) -> None:
    with chat("--dir", str(tmp_path / "a")) as screen:
        screen.prompt()
        screen.send(CTRL_D)
        assert screen.wait() == 0
    assert SGR.search(screen.raw)
    with chat("--dir", str(tmp_path / "b"), NO_COLOR="1") as screen:
        screen.prompt()
        screen.line("hello")
        screen.expect("remem> ")
        screen.prompt()
        screen.send(CTRL_D)
        assert screen.wait() == 0
    assert not SGR.search(screen.raw)


def test_a_bad_brain_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with chat("--dir", str(tmp_path), "--brain", "gemini:gemini-2.0-flash") as screen:
        screen.expect(r"error: gemini brain needs an API key in the environment variable ")
        assert screen.wait() == 2
    with chat("--dir", str(tmp_path), "--brain", "bard:x") as screen:
        screen.expect(r"remem chat: error: unknown brain provider 'bard'")
        assert screen.wait() == 2
    assert "Traceback" not in screen.text
