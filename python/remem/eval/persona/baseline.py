"""RawRecallBaseline: the naive memory every companion should beat.

Each user message is stored verbatim as a memory; the prompt is the question plus the ``k``
best recalled messages (``k`` defaults to the companion's ``recall_k``, so the comparison is
at equal recall depth), cut to ``budget`` exact tokens when one is given (the year horizon's
equal prompt budget). No extraction, no blocks, no supersession — so it finds old and new
values alike, which is exactly what the stale-only rate exposes. It also serves as a real
(not mocked) companion for harness tests, running on real stores.

    Variant("raw-recall", lambda runtime, brain: RawRecallBaseline(runtime))
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from remem import kernels
from remem.companion import CompanionConfig
from remem.runtime import Runtime

__all__ = ["BaselinePrompt", "RawRecallBaseline"]

_COMPANION_K = CompanionConfig().recall_k


@dataclass(frozen=True, slots=True)
class BaselinePrompt:
    text: str
    tokens: int


class RawRecallBaseline:
    """Stores raw user turns and answers from the top-``k`` recalled ones."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        k: int = _COMPANION_K,
        budget: int | None = None,
        name: str = "raw-recall",
    ) -> None:
        self._runtime = runtime
        self._k = k
        self._budget = budget
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    async def turn(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> str:
        controller = self._runtime.controller
        await controller.record_turn(session_id, user_message, "Noted.", created_at=now)
        await controller.remember(user_message, session_id=session_id)
        return "Noted."

    async def build_prompt(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> BaselinePrompt:
        hits = await self._runtime.controller.recall(user_message, k=self._k)
        lines = [f"- {hit.record.text}" for hit in hits]
        while True:  # the best hits that fit the budget (every hit when there is none)
            text = "Memories:\n" + "\n".join(lines) + f"\n\nUser: {user_message}"
            if self._budget is None:
                return BaselinePrompt(text, kernels.estimate_tokens_one(text))
            tokens = kernels.count_tokens_one(text)
            if tokens <= self._budget or not lines:
                return BaselinePrompt(text, tokens)
            lines.pop()

    async def answer(
        self, question: str, *, session_id: str = "default", now: datetime | None = None
    ) -> str:
        hits = await self._runtime.controller.recall(question, k=1)
        return hits[0].record.text if hits else "I don't know."

    async def aclose(self) -> None:
        return None
