"""Context engineering: one token budget per turn, packed, laid out and explained.

* :class:`ContextAssembler` — screens, values and packs candidates into the turn's budget
  (:mod:`remem.context.packing` explains the algorithm and why the seed's history rules hold).
* :class:`PromptArchitect` — the fixed layout: system, history, supporting context, query.
* :class:`AssembledContext` — the prompt (OpenAI, Anthropic, plain text) and, per item, its
  tokens, score and whether it was kept or why not; ``explain()`` renders it.
* :class:`PrimingConfig`, :class:`Primer`, :class:`Priming` — session-start priming.
"""

from __future__ import annotations

from remem.context.architect import ChatMessage, PromptArchitect
from remem.context.assembled import (
    AssembledContext,
    BudgetAccount,
    DropReason,
    ItemReport,
    SectionReport,
)
from remem.context.assembler import ContextAssembler
from remem.context.candidates import ContextCandidate, HistoryTurn
from remem.context.config import DEFAULT_SECTION_WEIGHTS, AssemblerConfig, ToolBudget
from remem.context.counting import EXACT_ENCODINGS, TokenCounter
from remem.context.fact_values import EarlierValue, FactTimeline, format_age
from remem.context.priming import Primer, Priming, PrimingConfig
from remem.context.sections import SECTION_TITLES, SUPPORTING_ORDER, Section

__all__ = [
    "DEFAULT_SECTION_WEIGHTS",
    "EXACT_ENCODINGS",
    "SECTION_TITLES",
    "SUPPORTING_ORDER",
    "AssembledContext",
    "AssemblerConfig",
    "BudgetAccount",
    "ChatMessage",
    "ContextAssembler",
    "ContextCandidate",
    "DropReason",
    "EarlierValue",
    "FactTimeline",
    "HistoryTurn",
    "ItemReport",
    "Primer",
    "Priming",
    "PrimingConfig",
    "PromptArchitect",
    "Section",
    "SectionReport",
    "TokenCounter",
    "ToolBudget",
    "format_age",
]
