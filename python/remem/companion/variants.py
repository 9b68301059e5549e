"""Companion variants: the configurations the evaluation compares, as subclasses.

Each variant forces a few :class:`~remem.companion.CompanionConfig` fields (its ``preset``)
over whatever config it is given; everything else (budget, retries, priming) is shared.

============== ================================================================================
variant        what it changes
============== ================================================================================
Full           nothing: blocks, recall of memories and past turns, optimal packing, hybrid recall
BlocksOnly     core blocks only: no recall section, no search_memory tool
EpisodicOnly   recall of verbatim past turns only: no blocks, no extracted memories
GreedyPacking  Full, packed greedily by value density instead of optimally
FullTextRecall Full, recalled by full text alone (no vectors, no graph)
============== ================================================================================

>>> [v.__name__ for v in VARIANTS]
['Full', 'BlocksOnly', 'EpisodicOnly', 'GreedyPacking', 'FullTextRecall']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from remem.companion.companion import Companion

__all__ = ["VARIANTS", "BlocksOnly", "EpisodicOnly", "Full", "FullTextRecall", "GreedyPacking"]


class Full(Companion):
    """Every memory feature on (the defaults, stated explicitly)."""

    preset: ClassVar[Mapping[str, Any]] = {
        "use_blocks": True,
        "use_recall": True,
        "use_episodic": True,
        "packing": "optimal",
        "recall_mode": "hybrid",
    }


class BlocksOnly(Companion):
    """Core memory blocks and the session history; nothing recalled."""

    preset: ClassVar[Mapping[str, Any]] = {
        "use_blocks": True,
        "use_recall": False,
        "use_episodic": False,
    }


class EpisodicOnly(Companion):
    """Plain retrieval over past turns: no blocks, no extracted memories in the prompt."""

    preset: ClassVar[Mapping[str, Any]] = {
        "use_blocks": False,
        "use_recall": False,
        "use_episodic": True,
    }


class GreedyPacking(Full):
    """Full, with the greedy packer."""

    preset: ClassVar[Mapping[str, Any]] = {**Full.preset, "packing": "greedy"}


class FullTextRecall(Full):
    """Full, with full-text recall only."""

    preset: ClassVar[Mapping[str, Any]] = {**Full.preset, "recall_mode": "fulltext"}


VARIANTS: tuple[type[Companion], ...] = (
    Full,
    BlocksOnly,
    EpisodicOnly,
    GreedyPacking,
    FullTextRecall,
)
"""Every variant, in report order."""
