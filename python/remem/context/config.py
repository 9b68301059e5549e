"""Assembler configuration: one budget per turn, and how it is spent.

The turn budget is split, in this order::

    budget (the model's per-turn token allowance)
    − output_reserve                         room for the answer
    − tool schemas kept                      ToolBudget.max_schemas / schema_budget
    − tool result reservations               ToolBudget.result_reservations × result_tokens
    = prompt budget                          the rendered prompt never exceeds this
    − base system message and latest query   fixed, counted exactly as rendered
    = packable                               history turns, core blocks, supporting sections

Formatting overhead (section headers, bullets, timestamps, role lines) is charged per kept item
and per non-empty section, never on the unpruned candidates.

Defaults that matter: ``strategy="optimal"``; section weights favour long-term memories and
facts over summaries; ``min_current_turns=1`` (the latest exchange is kept or the turn fails
with BudgetError, since answering without it is incoherent); prior-session turns are worth half a
current turn; near-duplicates are those whose normalised texts are equal or have a rapidfuzz
``ratio`` ≥ 92.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from remem.context.counting import CountMode, TokenCounter
from remem.context.sections import Section
from remem.errors import ConfigError

__all__ = ["DEFAULT_SECTION_WEIGHTS", "AssemblerConfig", "Strategy", "ToolBudget"]

Strategy = Literal["optimal", "greedy"]

DEFAULT_SECTION_WEIGHTS: Mapping[Section, float] = {
    Section.CORE_MEMORY: 1.0,
    Section.ENTITIES: 0.7,
    Section.KNOWN_FACTS: 0.9,
    Section.LONG_TERM: 1.0,
    Section.SHORT_TERM: 0.9,
    Section.INSIGHTS: 0.8,
    Section.SUMMARIES: 0.6,
    Section.CURRENT_HISTORY: 1.0,
    Section.PRIOR_HISTORY: 0.5,
}
"""Value multiplier per section; a candidate's packing value is ``score x weight``."""


def _non_negative_int(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{name} must be an integer ≥ 0, got {value!r}")


@dataclass(frozen=True, slots=True)
class ToolBudget:
    """Tokens held back for tools: schemas sent with the request and results coming back.

    Schemas are kept in the order given (most important first) up to ``max_schemas`` and
    ``schema_budget`` tokens; ``result_reservations`` tool results of ``result_tokens`` each are
    reserved so a tool call cannot overflow the window.
    """

    max_schemas: int = 32
    schema_budget: int = 2000
    result_reservations: int = 0
    result_tokens: int = 1000

    def __post_init__(self) -> None:
        for name in ("max_schemas", "schema_budget", "result_reservations", "result_tokens"):
            _non_negative_int(f"ToolBudget.{name}", getattr(self, name))

    @property
    def result_reserve(self) -> int:
        """Total tokens reserved for tool results."""
        return self.result_reservations * self.result_tokens


@dataclass(frozen=True, slots=True)
class AssemblerConfig:
    """How one turn's context is assembled. Validated on construction (ConfigError)."""

    budget: int = 8000
    output_reserve: int = 1024
    tools: ToolBudget = field(default_factory=ToolBudget)
    encoding: str | None = "o200k_base"
    count_mode: CountMode = "auto"
    strategy: Strategy = "optimal"
    section_weights: Mapping[Section, float] = field(
        default_factory=lambda: dict(DEFAULT_SECTION_WEIGHTS)
    )
    min_score: float = 0.0
    section_min_score: Mapping[Section, float] = field(default_factory=dict)
    duplicate_threshold: float = 92.0
    fuzzy_window: int = 32
    min_current_turns: int = 1
    history_half_life_turns: float = 8.0
    max_history_probes: int = 8

    def __post_init__(self) -> None:
        for name in ("budget", "output_reserve", "min_current_turns", "fuzzy_window"):
            _non_negative_int(f"AssemblerConfig.{name}", getattr(self, name))
        if self.max_history_probes < 1:
            raise ConfigError("AssemblerConfig.max_history_probes must be ≥ 1")
        if self.strategy not in ("optimal", "greedy"):
            raise ConfigError(f"strategy {self.strategy!r} is unknown; use optimal or greedy")
        if self.output_reserve + self.tools.result_reserve > self.budget:
            raise ConfigError(
                "output_reserve plus tool result reservations exceed the budget; "
                "raise budget or lower the reservations"
            )
        weights = dict(DEFAULT_SECTION_WEIGHTS)
        weights.update(self.section_weights)
        for section, weight in weights.items():
            if not math.isfinite(weight) or weight < 0:
                raise ConfigError(f"section weight for {section} must be finite and ≥ 0")
        object.__setattr__(self, "section_weights", weights)
        thresholds: dict[str, float] = {"all": self.min_score}
        thresholds.update({str(s): v for s, v in self.section_min_score.items()})
        for name, score in thresholds.items():
            if not math.isfinite(score):
                raise ConfigError(f"relevance threshold for {name} sections must be finite")
        if not 0.0 <= self.duplicate_threshold <= 100.0:
            raise ConfigError("duplicate_threshold is a rapidfuzz ratio in 0..100")
        if not self.history_half_life_turns > 0:
            raise ConfigError("history_half_life_turns must be > 0")
        TokenCounter.for_model(self.encoding, self.count_mode)  # validates the pair

    def counter(self) -> TokenCounter:
        """The token counter this configuration implies."""
        return TokenCounter.for_model(self.encoding, self.count_mode)

    def threshold(self, section: Section) -> float:
        """The relevance threshold for ``section`` (the section's own, else ``min_score``)."""
        return self.section_min_score.get(section, self.min_score)
