"""Consolidation: merge duplicate entities, supersede contradicted facts, summarise days.

    from remem.consolidation import MemoryConsolidator
    report = await MemoryConsolidator(rt.controller).consolidate(session_id="s1")

See :mod:`remem.consolidation.consolidator` for the steps, :mod:`.contradictions`,
:mod:`.merges` and :mod:`.days` for their rules.
"""

from __future__ import annotations

from remem.consolidation.attributes import MULTI_VALUED, SINGLE_VALUED
from remem.consolidation.consolidator import MemoryConsolidator
from remem.consolidation.days import is_consolidated
from remem.consolidation.extractive import extractive_summary
from remem.consolidation.report import (
    ConsolidationFailure,
    ConsolidationReport,
    EntityMerge,
    SummaryRun,
    Supersession,
)

__all__ = [
    "MULTI_VALUED",
    "SINGLE_VALUED",
    "ConsolidationFailure",
    "ConsolidationReport",
    "EntityMerge",
    "MemoryConsolidator",
    "SummaryRun",
    "Supersession",
    "extractive_summary",
    "is_consolidated",
]
