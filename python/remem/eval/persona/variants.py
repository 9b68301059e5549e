"""The variants ``remem eval --variants`` knows, by name.

The :mod:`remem.companion` variants (``full``, ``blocks-only``, ``episodic-only``, ``greedy``,
``fulltext``), each with the offline :class:`~remem.extraction.RuleExtractor`; ``raw-recall``,
the naive memory baseline (:class:`~remem.eval.persona.baseline.RawRecallBaseline`); and
``whole-history``, no memory at all but the newest transcript that fits the same budget
(:class:`~remem.eval.persona.history_baseline.WholeHistoryBaseline`). The first variant
listed is the one the others are compared with.

    variants = resolve_variants(["raw-recall"])
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from remem.brains import Brain
from remem.companion import (
    BlocksOnly,
    Companion,
    EpisodicOnly,
    Full,
    FullTextRecall,
    GreedyPacking,
)
from remem.errors import ConfigError
from remem.eval.persona.baseline import RawRecallBaseline
from remem.eval.persona.history_baseline import WholeHistoryBaseline
from remem.eval.persona.protocol import EvalCompanion, Variant
from remem.extraction import RuleExtractor
from remem.runtime import Runtime

__all__ = ["DEFAULT_VARIANTS", "QUICK_VARIANTS", "available_variants", "resolve_variants"]

DEFAULT_VARIANTS: tuple[str, ...] = (
    "full",
    "blocks-only",
    "episodic-only",
    "greedy",
    "fulltext",
    "raw-recall",
    "whole-history",
)
QUICK_VARIANTS: tuple[str, ...] = (
    "full",
    "blocks-only",
    "episodic-only",
    "raw-recall",
    "whole-history",
)

_COMPANIONS: dict[str, tuple[type[Companion], str]] = {
    "full": (Full, "blocks, recalled memories and past turns, optimal packing, hybrid recall"),
    "blocks-only": (BlocksOnly, "core memory blocks only, nothing recalled"),
    "episodic-only": (EpisodicOnly, "recall of verbatim past turns only, no blocks"),
    "greedy": (GreedyPacking, "full, packed greedily instead of optimally"),
    "fulltext": (FullTextRecall, "full, recalled by full text only"),
}


def _companion(cls: type[Companion], name: str) -> Callable[[Runtime, Brain], EvalCompanion]:
    def build(runtime: Runtime, brain: Brain) -> EvalCompanion:
        # The offline rule extractor keeps the default run model-free; a configured brain only
        # answers and writes blocks, so variants differ in memory strategy, not extractor.
        return cls(
            brain,
            runtime,
            extractor=RuleExtractor(),
            consolidator=_consolidator(runtime),
            name=name,
        )

    return build


def _consolidator(runtime: Runtime) -> Any:
    """A MemoryConsolidator on the runtime's controller and clock, when remem.consolidation is
    installed (it is built in parallel; without it the companion supersedes nothing)."""
    try:
        module = importlib.import_module("remem.consolidation")
    except ImportError:
        return None
    return module.MemoryConsolidator(runtime.controller, clock=runtime.clock)


def available_variants() -> dict[str, Variant]:
    out = {
        name: Variant(name, _companion(cls, name), description)
        for name, (cls, description) in _COMPANIONS.items()
    }
    out["raw-recall"] = Variant(
        "raw-recall",
        lambda runtime, brain: RawRecallBaseline(runtime),
        "baseline: every user message stored verbatim, as many recalled as the companion",
    )
    out["whole-history"] = Variant(
        "whole-history",
        lambda runtime, brain: WholeHistoryBaseline(runtime, brain),
        "baseline: no memory, the newest transcript that fits the companion's token budget",
    )
    return out


def resolve_variants(names: Sequence[str]) -> list[Variant]:
    known = available_variants()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(
            f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(known)}"
        )
    if len(set(names)) != len(names):
        raise ConfigError(f"variant names repeat in {', '.join(names)}; list each once")
    return [known[n] for n in names]
