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

A name may carry a remem TOML file, ``NAME@FILE``: variant NAME on a runtime opened with that
file's configuration (its ``[recall]``, ``[full_text]``, ``[lifecycle]``, ``[extraction]``,
``[embeddings]`` … sections; the layout of :mod:`remem.runtime_config`), reported as
``NAME@STEM`` — so one run compares a memory strategy with the defaults:

    resolve_variants(["full", "full@rerank_on.toml"])   # variants "full" and "full@rerank_on"

``config=`` gives every variant without its own file that configuration instead of the
defaults. A file that sets ``path``, ``backend`` or ``dsn`` is refused: the harness gives each
persona of each variant its own fresh embedded store.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
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
from remem.runtime_config import RuntimeConfig

__all__ = [
    "DEFAULT_VARIANTS",
    "QUICK_VARIANTS",
    "available_variants",
    "resolve_variants",
    "variant_config",
]

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


def resolve_variants(
    names: Sequence[str], *, budget: int | None = None, config: str | Path | None = None
) -> list[Variant]:
    """The variants ``names`` lists, in order; ``NAME@FILE`` and ``config`` as in the module
    docstring (ConfigError for an unknown or repeated name, an unreadable or invalid file, or a
    file that sets where the store lives)."""
    known = available_variants(budget)
    base = None if config is None else variant_config(config)
    out: list[Variant] = []
    for spec in names:
        name, sep, file = spec.partition("@")
        if name not in known:
            raise ConfigError(
                f"unknown variant {name!r} in {spec!r}; choose from {', '.join(known)} "
                "(optionally NAME@FILE.toml)"
            )
        if sep and not file:
            raise ConfigError(f"variant {spec!r} names no config file after '@'")
        variant = known[name]
        if sep:
            out.append(
                dataclasses.replace(
                    variant,
                    name=f"{name}@{Path(file).stem}",
                    runtime=variant_config(file),
                    description=f"{variant.description}; configured by {file}",
                )
            )
        else:
            out.append(variant if base is None else dataclasses.replace(variant, runtime=base))
    labels = [v.name for v in out]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"variant names repeat in {', '.join(labels)}; list each once")
    return out


def variant_config(file: str | Path) -> RuntimeConfig:
    """The RuntimeConfig of a variant's TOML ``file``; one that sets ``path``, ``backend`` or
    ``dsn`` is refused (ConfigError), since every persona gets its own embedded store."""
    try:
        data = tomllib.loads(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"cannot read the variant config file {file}: {exc}") from exc
    placed = sorted(k for k in ("path", "backend", "dsn") if k in data)
    if placed:
        raise ConfigError(
            f"the variant config file {file} sets {', '.join(placed)}; remove them — the eval "
            "gives each persona of each variant its own fresh embedded store"
        )
    return RuntimeConfig.from_mapping(data)
