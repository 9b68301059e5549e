"""The variants ``remem eval --variants`` knows, by name.

The :mod:`remem.companion` variants (``full``, ``blocks-only``, ``episodic-only``, ``greedy``,
``fulltext``), each with the offline :class:`~remem.extraction.RuleExtractor`; ``raw-recall``,
the naive memory baseline (:class:`~remem.eval.persona.baseline.RawRecallBaseline`); and
``whole-history``, no memory at all but the newest transcript that fits the same budget
(:class:`~remem.eval.persona.history_baseline.WholeHistoryBaseline`). The first variant
listed is the one the others are compared with.

With ``budget`` (the year horizon's equal prompt budget), every variant's prompt — the rendered
text the model reads, counted exactly in ``o200k_base`` — is held to the same ``budget`` tokens:
a companion's assembler gets ``budget`` plus its answer reserve plus its tool schemas (sent
beside the prompt, so they do not eat it), whole-history the newest ``budget`` tokens of
transcript, raw-recall its best hits that fit.

    variants = resolve_variants(["raw-recall"])
    equal = resolve_variants(["full", "whole-history"], budget=1000)
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from remem.blocks import tool_schemas as block_tool_schemas
from remem.brains import Brain
from remem.companion import (
    BlocksOnly,
    Companion,
    CompanionConfig,
    EpisodicOnly,
    Full,
    FullTextRecall,
    GreedyPacking,
    search_memory_schema,
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


def _companion(
    cls: type[Companion], name: str, budget: int | None
) -> Callable[[Runtime, Brain], EvalCompanion]:
    config = None if budget is None else equal_budget_config(cls, budget)

    def build(runtime: Runtime, brain: Brain) -> EvalCompanion:
        # The offline rule extractor keeps the default run model-free; a configured brain only
        # answers and writes blocks, so variants differ in memory strategy, not extractor.
        return cls(
            brain,
            runtime,
            config=config,
            extractor=RuleExtractor(),
            consolidator=_consolidator(runtime),
            name=name,
        )

    return build


def equal_budget_config(cls: type[Companion], budget: int) -> CompanionConfig:
    """The default config with an assembler budget whose rendered prompt is ``budget`` tokens:
    ``budget`` + the answer reserve + the variant's tool schemas, counted as the assembler
    counts them."""
    forced = dataclasses.replace(CompanionConfig(), **cls.preset)
    schemas = list(block_tool_schemas(forced.blocks)) if forced.use_blocks else []
    if forced.recalls:
        schemas.append(search_memory_schema())
    counter = forced.assembler_config().counter()
    texts = [json.dumps(s, ensure_ascii=False) for s in schemas]
    schema_tokens = int(counter.count(texts).sum()) if texts else 0
    total = budget + forced.output_reserve + schema_tokens
    return dataclasses.replace(CompanionConfig(), budget=total)


def _consolidator(runtime: Runtime) -> Any:
    """A MemoryConsolidator on the runtime's controller and clock, when remem.consolidation is
    installed (it is built in parallel; without it the companion supersedes nothing)."""
    try:
        module = importlib.import_module("remem.consolidation")
    except ImportError:
        return None
    return module.MemoryConsolidator(runtime.controller, clock=runtime.clock)


def available_variants(budget: int | None = None) -> dict[str, Variant]:
    """Every variant by name; with ``budget``, each held to that many prompt tokens."""
    out = {
        name: Variant(name, _companion(cls, name, budget), description)
        for name, (cls, description) in _COMPANIONS.items()
    }
    out["raw-recall"] = Variant(
        "raw-recall",
        lambda runtime, brain: RawRecallBaseline(runtime, budget=budget),
        "baseline: every user message stored verbatim, as many recalled as the companion",
    )
    out["whole-history"] = Variant(
        "whole-history",
        lambda runtime, brain: (
            WholeHistoryBaseline(runtime, brain)
            if budget is None
            else WholeHistoryBaseline(runtime, brain, budget=budget)
        ),
        "baseline: no memory, the newest transcript that fits the same token budget",
    )
    return out


def resolve_variants(names: Sequence[str], *, budget: int | None = None) -> list[Variant]:
    """The variants ``names`` lists, in order (ConfigError for an unknown or repeated name)."""
    known = available_variants(budget)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(
            f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(known)}"
        )
    if len(set(names)) != len(names):
        raise ConfigError(f"variant names repeat in {', '.join(names)}; list each once")
    return [known[n] for n in names]
