"""``remem chat`` at 10,000 stored memories: time to the first prompt, and one offline turn.

World: an embedded memory directory with 10,000 memories (hashing embedder, the default) and
an earlier session of 20 turns, built once per module.

* ``first prompt`` — ``python -m remem chat --dir …`` started on a real pseudo-terminal:
  ``prompt`` until ``you>`` is shown (the memory opens meanwhile, on the loop thread),
  ``ready`` until the status line with the memory counts is shown above it (imports, every
  store opened, counts read), against ``version``: ``python -m remem --version`` (the
  interpreter and ``import remem`` alone) in the same run. Target ≤ 1 s.
* ``offline turn`` — :meth:`ChatSession.turn` end to end with the offline companion: recall
  (k=32) → prompt assembly → the scripted brain → record → store the message → rule
  extraction → block updates; against ``build_prompt`` alone (recall + assembly), the part a
  turn cannot skip. Target p50 ≤ 50 ms.

``extra_info["correct"]``: the prompt was shown / the reply answered from memory.

    python -m pytest benches/bench_chat.py --benchmark-only
"""

from __future__ import annotations

import asyncio
import itertools
import random
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.cli.pty_screen import Screen, chat_env

from benches.bench_controller import NAMES, WORDS
from remem.cli.chat_session import ChatSession
from remem.companion import TurnResult
from remem.runtime_config import RuntimeConfig

N = 10_000
ANSWER = "Ana keeps the spare house key under the blue flowerpot"


class _World:
    def __init__(self, root: Path) -> None:
        self.path = root / "memory"
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self._fill())
        self.session: ChatSession = self.loop.run_until_complete(
            ChatSession.open(RuntimeConfig(path=self.path), session_id="bench")
        )
        self._turn = itertools.count()

    async def _fill(self) -> None:
        rng = random.Random(11)
        texts = [
            f"{rng.choice(NAMES)} note {i}: " + " ".join(rng.choice(WORDS) for _ in range(8))
            for i in range(N)
        ]
        texts[N // 2] = ANSWER
        chat = await ChatSession.open(RuntimeConfig(path=self.path), session_id="earlier")
        try:
            for lo in range(0, N, 500):
                await chat.controller.remember_many(texts[lo : lo + 500])
            pairs = [(f"we talked about {WORDS[i]} and {WORDS[-i]}", "nice") for i in range(20)]
            await chat.controller.record_turns("earlier", pairs)
        finally:
            await chat.close()

    def turn(self) -> TurnResult:
        n = next(self._turn)
        message = (
            "where is the spare house key?" if n % 2 else f"today I tried {WORDS[n % len(WORDS)]}"
        )
        result = self.loop.run_until_complete(self.session.turn(message))
        assert isinstance(result, TurnResult)
        return result

    def close(self) -> None:
        self.loop.run_until_complete(self.session.close())
        self.loop.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_World]:
    w = _World(tmp_path_factory.mktemp("chat"))
    yield w
    w.close()


class _Starts:
    """Starts the command and times it until ``shown``; the exit (Ctrl-D, stores closed) is
    left to the next round's untimed setup."""

    def __init__(self, argv: list[str], shown: str) -> None:
        self.argv, self.shown = argv, shown
        self.seconds: list[float] = []
        self.screen: Screen | None = None

    def run(self) -> None:
        started = time.perf_counter()
        self.screen = Screen(self.argv, chat_env())
        self.screen.expect(self.shown, timeout=60)
        self.seconds.append(time.perf_counter() - started)

    def finish(self) -> None:
        screen, self.screen = self.screen, None
        if screen is None:
            return
        try:
            if "chat" in self.argv:
                if not re.search(READY, screen.text):
                    screen.expect(READY, timeout=60)
                screen.send("\x04")
            screen.wait(timeout=60)
        finally:
            screen.close()


READY = r"10\d{3} memories .*\n.*you> "
SHOWN = {"prompt": r"you> ", "ready": READY, "version": r"\d+\.\d+"}


@pytest.mark.parametrize("impl", ["prompt", "ready", "version"])
def test_first_prompt(benchmark: Any, world: _World, impl: str) -> None:
    benchmark.group = "chat first prompt 10k"
    world.loop.run_until_complete(world.session.close())  # one process owns the directory
    base = [sys.executable, "-m", "remem"]
    argv = [*base, "--version"] if impl == "version" else [*base, "chat", "--dir", str(world.path)]
    starts = _Starts(argv, SHOWN[impl])
    try:
        benchmark.pedantic(starts.run, setup=starts.finish, rounds=5, iterations=1, warmup_rounds=1)
        starts.finish()
    finally:
        world.session = world.loop.run_until_complete(
            ChatSession.open(RuntimeConfig(path=world.path), session_id="bench")
        )
    benchmark.extra_info["seconds"] = sorted(starts.seconds)
    benchmark.extra_info["correct"] = len(starts.seconds) == 6


@pytest.mark.parametrize("impl", ["turn", "build_prompt"])
def test_offline_turn(benchmark: Any, world: _World, impl: str) -> None:
    benchmark.group = "chat offline turn 10k"
    if impl == "turn":
        answered = world.loop.run_until_complete(
            world.session.turn("where is the spare house key?")
        )
        assert isinstance(answered, TurnResult)
        benchmark.pedantic(world.turn, rounds=40, iterations=1, warmup_rounds=2)
        benchmark.extra_info["reply"] = answered.reply
        benchmark.extra_info["correct"] = ANSWER in answered.reply
        return
    companion = world.session.companion

    def build() -> Any:
        return world.loop.run_until_complete(
            companion.build_prompt("where is the spare house key?", session_id="bench")
        )

    prompt = benchmark.pedantic(build, rounds=40, iterations=1, warmup_rounds=2)
    benchmark.extra_info["correct"] = ANSWER in prompt.text
