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

__all__ = ["WholeHistoryBaseline", "history_line"]

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
        store = (await self._runtime.controller.settled()).transcript
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
        """The question after the newest lines that fit ``budget`` exact ``o200k_base`` tokens
        (the figure companions are held to), oldest first."""
        question = f"User: {user_message}"
        lines = [history_line(e.created_at, e.user_message) for e in await self._history()]
        costs = kernels.count_tokens([question, *lines]).tolist()
        left = self._budget - costs[0] - 4  # "History:" and the blank line before the question
        start = len(lines)
        while start > 0 and costs[start] + 1 <= left:  # + 1: the newline joining the lines
            start -= 1
            left -= costs[start + 1] + 1
        while True:  # joins can tokenize differently; drop the oldest line until it fits
            text = "History:\n" + "\n".join(lines[start:]) + f"\n\n{question}"
            tokens = kernels.count_tokens_one(text)
            if tokens <= self._budget or start == len(lines):
                return BaselinePrompt(text, tokens)
            start += 1

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


def history_line(at: datetime, text: str) -> str:
    """One turn as the baseline shows it: ``[2026-03-05] user: …``."""
    return f"[{at:%Y-%m-%d}] user: {text}"


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9']+", text.lower()) if len(w) > 2}
