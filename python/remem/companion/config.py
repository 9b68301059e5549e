"""CompanionConfig: what a companion puts in its prompt, how it packs it, and its retry depth.

The knobs the evaluation's variants turn (:mod:`remem.companion.variants`):

=================== =========== ==========================================================
knob                default     effect
=================== =========== ==========================================================
use_blocks          True        core memory blocks in the prompt, block tools, block writes
use_recall          True        recall of stored memories (short/long-term records, graph)
use_episodic        True        recall of verbatim past turns (the episodic stage)
packing             "optimal"   the assembler's packing strategy ("optimal" | "greedy")
recall_mode         "hybrid"    retrievers: vector + full text + graph, or "fulltext" only
max_block_retries   3           consolidation rounds per turn after a BlockFullError
earlier_values      "mark"      a recalled statement of a value that no longer holds: "mark"
                                it earlier with the current value, "drop" it (the current
                                value shown instead), or "off" (rendered as it was said)
window_before       0           each of the ``window_top`` best recalled messages of at most
window_after        1           ``window_max_words`` words is shown with the user messages of
window_max_words    12          this many turns before and after it in its session
window_top          5           (:mod:`remem.companion.windows`; ``window_max_words=0``: none)
=================== =========== ==========================================================

``remember_messages=True`` (with ``use_recall``) also stores every user message verbatim as a
short-term ``note`` memory (metadata ``{"origin": "user_message", "turn_id": …, "turn_number":
…}``): a recorded turn is found only by full-text words, and the extractor keeps only what it
recognises as a fact, so anything said in passing ("do all urban planners have this much
paperwork?") was unreachable by meaning — "what's my job?" shares no word with it. Measured with
``remem eval --quick``: without it the companion trailed the naive raw-recall baseline.

``earlier_values="mark"`` is the measured default (``scripts/fact_values_ablation.py``: the
``remem eval --quick`` personas, ``full``, with the facts extracted from the plan so that values
are superseded): "previous" questions 71.4% → 100% context recall against "off" and "drop",
stale-only 0.0% for all three, 869 → 939 prompt tokens (drop: 868). With today's rule
extractor, which supersedes nothing in that run, the three settings give the same prompts.

The recalled-memories part of the prompt exists only when ``use_recall`` or ``use_episodic`` is
on. The other defaults: a token budget of 8,000 with 1,024 reserved for the answer (the
assembler's defaults), ``recall_k=32`` recalled candidates per turn (the packer keeps what the
budget affords — measured with ``remem eval --quick``: context recall 38% at k=8, 67% at 24,
75% at 48, at under 1,000 prompt tokens of the 8,000; 32 leaves the budget to the packer
without scoring every stored memory), the last ``history_turns=20`` turns of
the session offered to the packer, session-start priming with the ``chat_template`` preset
(two earlier sessions, six turns each; ``priming="controller"`` primes with the controller's own
``priming`` — e.g. ``[memory.priming]`` of the runtime's TOML — and None primes nothing; either
way through ``MemoryController.prime``), and at most ``max_tool_rounds=4`` model calls that ask
for tools in one turn (then the model is asked to answer without tools).

>>> CompanionConfig(packing="greedy").assembler_config().strategy
'greedy'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from remem.blocks import CoreMemoryConfig
from remem.context import AssemblerConfig, PrimingConfig
from remem.errors import ConfigError, InvalidArgumentError
from remem.scopes import check_namespace

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "EARLIER_VALUES",
    "CompanionConfig",
    "EarlierValues",
    "Packing",
    "RecallMode",
]

Packing = Literal["optimal", "greedy"]
EarlierValues = Literal["mark", "drop", "off"]
EARLIER_VALUES: tuple[EarlierValues, ...] = ("mark", "drop", "off")
"""The ways a recalled value that no longer holds can be offered (:data:`EarlierValues`)."""
RecallMode = Literal["hybrid", "fulltext"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a warm, attentive companion with long-term memory. The context before each "
    "message holds your core memory blocks (with how full each is) and memories recalled for "
    "this turn; use them, and never invent facts that are not there. Keep core memory current "
    "with the core_memory_* tools (one fact per entry; replace an entry when a fact changes); "
    "call search_memory when you need something that is not in front of you."
)


def _default_priming() -> PrimingConfig:
    return PrimingConfig.chat_template()


@dataclass(frozen=True, slots=True)
class CompanionConfig:
    """A companion's behaviour (see the module docstring); validated on construction."""

    use_blocks: bool = True
    use_recall: bool = True
    use_episodic: bool = True
    packing: Packing = "optimal"
    recall_mode: RecallMode = "hybrid"
    max_block_retries: int = 3
    earlier_values: EarlierValues = "mark"
    remember_messages: bool = True
    recall_k: int = 32
    history_turns: int = 20
    window_before: int = 0
    window_after: int = 1
    window_max_words: int = 12
    window_top: int = 5
    budget: int = 8000
    output_reserve: int = 1024
    max_tool_rounds: int = 4
    reply_max_tokens: int = 512
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    priming: PrimingConfig | Literal["controller"] | None = field(default_factory=_default_priming)
    blocks: CoreMemoryConfig = field(default_factory=CoreMemoryConfig)
    namespace: str = "default"
    """The companion's one scope: its blocks, recall, ``search_memory``, priming, extracted
    facts and entities, message memories and the sessions it creates (see
    :mod:`remem.companion.scope`)."""
    user_block: str = "user"

    def __post_init__(self) -> None:
        for name in ("use_blocks", "use_recall", "use_episodic", "remember_messages"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"CompanionConfig.{name} must be a bool")
        if self.packing not in ("optimal", "greedy"):
            raise ConfigError(f"packing {self.packing!r} is unknown; use 'optimal' or 'greedy'")
        if self.earlier_values not in EARLIER_VALUES:
            raise ConfigError(
                f"earlier_values {self.earlier_values!r} is unknown; use 'mark', 'drop' or 'off'"
            )
        if self.recall_mode not in ("hybrid", "fulltext"):
            raise ConfigError(
                f"recall_mode {self.recall_mode!r} is unknown; use 'hybrid' or 'fulltext'"
            )
        for name, low in (
            ("max_block_retries", 0),
            ("recall_k", 1),
            ("history_turns", 1),
            ("max_tool_rounds", 1),
            ("reply_max_tokens", 1),
            ("window_before", 0),
            ("window_after", 0),
            ("window_max_words", 0),
            ("window_top", 0),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"CompanionConfig.{name} must be an int ≥ {low}, got {value!r}")
        for name in ("window_before", "window_after"):
            if getattr(self, name) > 10:
                raise ConfigError(
                    f"CompanionConfig.{name} must be at most 10 turns, got {getattr(self, name)!r}"
                )
        if self.user_block not in {b.label for b in self.blocks.blocks}:
            raise ConfigError(
                f"user_block {self.user_block!r} is not one of the configured blocks "
                f"{[b.label for b in self.blocks.blocks]}; add it or name another"
            )
        if self.priming not in (None, "controller") and not isinstance(self.priming, PrimingConfig):
            raise ConfigError(
                "CompanionConfig.priming must be a PrimingConfig, 'controller' or None, "
                f"got {self.priming!r}"
            )
        try:
            check_namespace(self.namespace)
        except InvalidArgumentError as exc:
            raise ConfigError(f"CompanionConfig.namespace: {exc}") from exc
        self.assembler_config()  # validates budget and output_reserve

    @property
    def recalls(self) -> bool:
        """True when the prompt has a recalled-memories part."""
        return self.use_recall or self.use_episodic

    @property
    def stores_messages(self) -> bool:
        """True when each user message is also stored as a searchable memory (it can only be
        recalled when short-term memories are)."""
        return self.remember_messages and self.use_recall

    @property
    def recall_stages(self) -> tuple[str, ...]:
        """The memory stages recall searches under this configuration."""
        stages: tuple[str, ...] = ("short_term", "long_term") if self.use_recall else ()
        return stages + (("episodic",) if self.use_episodic else ())

    @property
    def recall_sources(self) -> tuple[str, ...]:
        """The retrievers recall runs (see ``MemoryController.recall(sources=...)``)."""
        return ("fulltext",) if self.recall_mode == "fulltext" else ("vector", "fulltext", "graph")

    def assembler_config(self) -> AssemblerConfig:
        """The :class:`AssemblerConfig` this companion packs its prompt with."""
        return AssemblerConfig(
            budget=self.budget, output_reserve=self.output_reserve, strategy=self.packing
        )
