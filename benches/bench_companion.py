"""Companion prompt building at 1,000 stored memories: ours vs concatenating the recall.

World: an embedded Runtime with 1,000 memories (one of them the answer), a user block of ten
entries, 20 turns of the current session, 10 of an earlier one (primed) and 8 short messages of
another, each also stored as a message memory (the companion's ``remember_messages``). Query:
"where is the spare house key". Every implementation recalls the same top 50 (hybrid recall)
each round.

* ``ours`` — :meth:`Companion.build_prompt`: recall, then blocks with gauges, priming, history
  and memories packed by the ContextAssembler into a 2,000-token budget (400 reserved for the
  answer, tool schemas counted);
* ``ours-no-windows`` — the same with conversation windows off (``window_max_words=0``): what
  reading the next message of the best short recalled messages from the transcript costs
  (:mod:`remem.companion.windows`; here the recalled turns of the sessions are short);
* ``naive`` — recall, then the system message, the rendered blocks, the history and every
  recalled text concatenated, counted once, no packing (what a simple RAG loop does).

``extra_info["correct"]``: the answer memory is in the prompt and the prompt fits the prompt
budget (the naive prompt often does not: that is the point of packing); ``tokens`` is the
prompt's size.

    python -m pytest benches/bench_companion.py --benchmark-only
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from benches.bench_controller import NAMES as CONTROLLER_NAMES
from benches.bench_controller import WORDS
from remem import Runtime
from remem.blocks import BlockEdit
from remem.brains import ScriptedBrain
from remem.companion import Companion, CompanionConfig
from remem.context import TokenCounter
from remem.models import ManualClock

N = 1_000
K = 50
ANSWER = "Ana keeps the spare house key under the blue flowerpot"
QUERY = "where is the spare house key"
NAMES = tuple(CONTROLLER_NAMES[:8])
CONFIG = CompanionConfig(budget=2000, output_reserve=400, recall_k=K)


class _World:
    def __init__(self, root: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.clock = ManualClock(datetime(2026, 5, 1, 9, tzinfo=UTC))
        self.rt = Runtime.open(root / "memory", clock=self.clock)
        self.loop.run_until_complete(self.rt.start())
        self.loop.run_until_complete(self._fill())
        self.companion = Companion(ScriptedBrain(default="ok"), self.rt, config=CONFIG)
        self.no_windows = Companion(
            ScriptedBrain(default="ok"),
            self.rt,
            config=dataclasses.replace(CONFIG, window_max_words=0),
        )
        self.counter = TokenCounter()

    async def _fill(self) -> None:
        rng = random.Random(7)
        texts = [
            f"{rng.choice(NAMES)} note {i}: " + " ".join(rng.choice(WORDS) for _ in range(8))
            for i in range(N)
        ]
        texts[N // 2] = ANSWER
        c = self.rt.controller
        for lo in range(0, N, 250):
            await c.remember_many(texts[lo : lo + 250])
        blocks = await self.rt.blocks()
        edits = [BlockEdit.add(f"Fact {i} about the user: likes {WORDS[i]}") for i in range(10)]
        await blocks.apply("user", edits)
        pairs = [(f"earlier chat {i} about {WORDS[i]}", "ok") for i in range(10)]
        await c.record_turns("earlier", pairs)
        # Short messages of an earlier session, stored as the companion stores them (a memory
        # naming its turn): the best of them get a conversation window.
        said = [(f"Lost the house key again, day {i}!", "oh no") for i in range(8)]
        for e in await c.record_turns("keys", said):
            meta = {"origin": "user_message", "turn_id": e.id, "turn_number": e.turn_number}
            await c.remember(e.user_message, kind="note", session_id="keys", metadata=meta)
        self.clock.advance(timedelta(days=1))
        pairs = [(f"today we talk about {WORDS[i]} and {WORDS[-i]}", "nice") for i in range(20)]
        await c.record_turns("today", pairs)

    async def naive(self) -> str:
        c = self.rt.controller
        hits = await c.recall(QUERY, k=K, stages=CONFIG.recall_stages)
        blocks = await self.rt.blocks()
        transcript = (await c.settled()).transcript
        assert transcript is not None
        history = await transcript.get_entries("today")
        parts = [CONFIG.system_prompt, blocks.render()]
        parts += [f"user: {e.user_message}\nassistant: {e.assistant_message}" for e in history]
        parts += [f"- {h.record.text}" for h in hits]
        parts.append(QUERY)
        return "\n\n".join(parts)

    def close(self) -> None:
        self.loop.run_until_complete(self.rt.aclose())
        self.loop.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_World]:
    w = _World(tmp_path_factory.mktemp("companion"))
    yield w
    w.close()


@pytest.mark.parametrize("impl", ["ours", "ours-no-windows", "naive"])
def test_build_prompt(benchmark: Any, world: _World, impl: str) -> None:
    benchmark.group = "companion prompt 1k"
    budget = world.companion.config.assembler_config()
    prompt_budget = budget.budget - budget.output_reserve
    if impl != "naive":
        companion = world.companion if impl == "ours" else world.no_windows

        def run() -> tuple[str, int, int]:
            p = world.loop.run_until_complete(companion.build_prompt(QUERY, session_id="today"))
            return p.text, p.tokens, p.context.account.prompt_budget

        text, tokens, prompt_budget = benchmark(run)
    else:

        def run_naive() -> tuple[str, int, int]:
            text = world.loop.run_until_complete(world.naive())
            return text, world.counter.count_one(text), prompt_budget

        text, tokens, prompt_budget = benchmark(run_naive)
    benchmark.extra_info["tokens"] = tokens
    benchmark.extra_info["prompt_budget"] = prompt_budget
    benchmark.extra_info["correct"] = bool(ANSWER in text and tokens <= prompt_budget)
