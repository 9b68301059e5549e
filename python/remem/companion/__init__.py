"""The companion: a chat turn loop with core memory blocks, recall and post-turn memory work.

* :class:`Companion` — ``turn`` (prompt → brain with memory tools → reply → record → extract →
  block updates), ``stream_turn`` (the same, its reply a :class:`TurnStream` of deltas),
  ``answer`` (read-only), ``build_prompt``; :class:`TurnResult`.
* :class:`CompanionConfig` — the knobs; :mod:`~remem.companion.variants` — the subclasses the
  evaluation compares (:data:`VARIANTS`).
* :class:`CompanionPrompt`, :data:`PROMPT_ORDER` — the prompt and its fixed section order.
* :class:`MemoryTools` — block tools plus ``search_memory``, one dispatcher.
* :func:`offline_brain` — a ScriptedBrain that makes a companion work offline.
"""

from __future__ import annotations

from remem.companion.block_updates import BlockWrite, PostTurnReport, RetryBudget
from remem.companion.companion import Companion, TurnResult
from remem.companion.config import DEFAULT_SYSTEM_PROMPT, CompanionConfig
from remem.companion.offline import offline_brain
from remem.companion.prompt import PROMPT_ORDER, CompanionPrompt
from remem.companion.protocols import Consolidator, SupersessionLike
from remem.companion.tools import SEARCH_MEMORY, MemoryTools, ToolOutcome, search_memory_schema
from remem.companion.turn_stream import CANCELLED_REPLY, TurnStream
from remem.companion.variants import (
    VARIANTS,
    BlocksOnly,
    EpisodicOnly,
    Full,
    FullTextRecall,
    GreedyPacking,
)

__all__ = [
    "CANCELLED_REPLY",
    "DEFAULT_SYSTEM_PROMPT",
    "PROMPT_ORDER",
    "SEARCH_MEMORY",
    "VARIANTS",
    "BlockWrite",
    "BlocksOnly",
    "Companion",
    "CompanionConfig",
    "CompanionPrompt",
    "Consolidator",
    "EpisodicOnly",
    "Full",
    "FullTextRecall",
    "GreedyPacking",
    "MemoryTools",
    "PostTurnReport",
    "RetryBudget",
    "SupersessionLike",
    "ToolOutcome",
    "TurnResult",
    "TurnStream",
    "offline_brain",
    "search_memory_schema",
]
