"""WholeHistoryBaseline: no memory at all, just the newest transcript that fits the budget.

The long-context answer to "does memory help?": every turn is recorded, and the prompt is the
question plus as much of the whole history (every session, newest turn first, then put back in
time order) as fits ``budget`` tokens. While a persona's history fits, this baseline sees
everything and sets the bar a memory strategy has to justify its tokens against; once the
history outgrows the budget, the oldest facts fall off — exactly what memory is for.

    Variant("whole-history", lambda runtime, brain: WholeHistoryBaseline(runtime, brain))

With a brain, :meth:`answer` asks it from that prompt (the same model the companion variants
answer with); without one it returns the history line sharing the most words with the question.
"""

from __future__ import annotations

import re
from datetime import datetime

from remem import kernels
from remem.brains import Brain, Message
from remem.companion import CompanionConfig
from remem.eval.persona.baseline import BaselinePrompt
from remem.models import TranscriptEntry
from remem.runtime import Runtime

__all__ = ["WholeHistoryBaseline"]

_DEFAULT = CompanionConfig()
_BUDGET = _DEFAULT.budget - _DEFAULT.output_reserve
"""The same prompt budget the companion variants get."""


class WholeHistoryBaseline:
    """Answers from the newest ``budget`` tokens of the raw transcript (see module docstring)."""

    def __init__(
        self,
        runtime: Runtime,
        brain: Brain | None = None,
        *,
        budget: int = _BUDGET,
        name: str = "whole-history",
    ) -> None:
        self._runtime = runtime
        self._brain = brain
        self._budget = budget
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    async def turn(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> str:
        await self._runtime.controller.record_turn(
            session_id, user_message, "Noted.", created_at=now
        )
        return "Noted."

    async def _history(self) -> list[TranscriptEntry]:
        store = self._runtime.controller.transcript_store
        if store is None:  # the Runtime always has one; a bare controller may not
            return []
        entries: list[TranscriptEntry] = []
        for session in await store.list_sessions():
            entries.extend(await store.get_entries(session.session_id))
        entries.sort(key=lambda e: (e.created_at, e.session_id, e.turn_number))
        return entries

    async def build_prompt(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> BaselinePrompt:
        question = f"User: {user_message}"
        lines = [f"[{e.created_at:%Y-%m-%d}] user: {e.user_message}" for e in await self._history()]
        costs = kernels.estimate_tokens([question, *lines]) if lines else [0]
        left = self._budget - int(costs[0])
        kept: list[str] = []
        for line, cost in zip(reversed(lines), reversed(costs[1:]), strict=True):
            if cost > left:
                break
            kept.append(line)
            left -= int(cost)
        text = "History:\n" + "\n".join(reversed(kept)) + f"\n\n{question}"
        return BaselinePrompt(text, kernels.estimate_tokens_one(text))

    async def answer(
        self, question: str, *, session_id: str = "default", now: datetime | None = None
    ) -> str:
        prompt = await self.build_prompt(question, session_id=session_id, now=now)
        if self._brain is not None:
            completion = await self._brain.complete(
                [Message.system(_ANSWER_SYSTEM), Message.user(prompt.text)]
            )
            return completion.text
        words = _words(question)
        lines = prompt.text.splitlines()[1:-2]
        best = max(lines, key=lambda line: len(words & _words(line)), default="")
        return best.split("user: ", 1)[-1] if best else "I don't know."

    async def aclose(self) -> None:
        return None  # the harness closes the runtime; the brain belongs to whoever made it


_ANSWER_SYSTEM = (
    "Answer the user's question from the conversation history above it. Be brief; if the "
    "history does not say, answer that you don't know."
)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9']+", text.lower()) if len(w) > 2}
