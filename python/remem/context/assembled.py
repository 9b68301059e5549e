"""AssembledContext: the prompt of one turn plus the account of every candidate.

Every candidate appears once in :attr:`AssembledContext.items` with its section, tokens (of its
rendered piece), score, packing value, and whether it was kept or why it was dropped
(:class:`DropReason`). :meth:`AssembledContext.explain` renders that account; it is what a chat
CLI's ``/context`` command shows, and :meth:`AssembledContext.to_text` is ``/prompt``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from remem.context.architect import ChatMessage, to_anthropic, to_openai, to_text
from remem.context.sections import Section

__all__ = ["AssembledContext", "BudgetAccount", "DropReason", "ItemReport", "SectionReport"]


class DropReason(StrEnum):
    """Why a candidate is not in the prompt."""

    DECAYED = "decayed"
    SUPERSEDED = "superseded"
    BELOW_THRESHOLD = "below_threshold"
    DUPLICATE = "duplicate"
    OVER_BUDGET = "over_budget"


@dataclass(frozen=True, slots=True)
class ItemReport:
    """One candidate's fate. ``tokens`` counts its rendered piece (0 if filtered before)."""

    id: str
    section: Section
    tokens: int
    score: float
    value: float
    kept: bool
    reason: DropReason | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class SectionReport:
    """Per-section totals; ``tokens`` includes the section header when the section is kept."""

    section: Section
    kept: int
    dropped: int
    tokens: int


@dataclass(frozen=True, slots=True)
class BudgetAccount:
    """The turn's budget arithmetic (see :mod:`remem.context.config`).

    ``accounted`` is the sum of the kept pieces; ``rendered`` counts the whole prompt text at once
    with the same counter and is the figure guaranteed ≤ ``prompt_budget``.
    """

    budget: int
    output_reserve: int
    tool_schema_tokens: int
    tool_result_reserve: int
    prompt_budget: int
    fixed_tokens: int
    packable: int
    accounted: int
    rendered: int
    counter: str
    exact: bool

    @property
    def utilisation(self) -> float:
        """``rendered / prompt_budget`` (1.0 when the prompt budget is 0)."""
        return self.rendered / self.prompt_budget if self.prompt_budget else 1.0


@dataclass(frozen=True)
class AssembledContext:
    """The assembled prompt with its inspectable account.

    ``items`` (one :class:`ItemReport` per candidate and history turn, in input order, history
    newest first) is built on first access: a turn that nobody inspects does not pay for it.
    """

    messages: tuple[ChatMessage, ...]
    sections: tuple[SectionReport, ...]
    account: BudgetAccount
    tool_schemas_kept: tuple[int, ...]
    strategy: str
    method: str
    probes: int
    exhaustive: bool
    build_items: Callable[[], tuple[ItemReport, ...]] = field(repr=False, compare=False)

    @cached_property
    def items(self) -> tuple[ItemReport, ...]:
        """Every candidate's fate: kept, or dropped and why."""
        return self.build_items()

    def to_text(self) -> str:
        """The plain-text prompt (the basis of the budget check)."""
        return to_text(self.messages)

    def to_openai(self) -> list[dict[str, str]]:
        """OpenAI chat ``messages``."""
        return to_openai(self.messages)

    def to_anthropic(self) -> dict[str, Any]:
        """Anthropic ``system`` and ``messages``."""
        return to_anthropic(self.messages)

    def kept(self, section: Section | None = None) -> list[ItemReport]:
        """Kept items, optionally of one section."""
        return [i for i in self.items if i.kept and (section is None or i.section == section)]

    def dropped(self, reason: DropReason | None = None) -> list[ItemReport]:
        """Dropped items, optionally for one reason."""
        return [i for i in self.items if not i.kept and (reason is None or i.reason == reason)]

    def explain(self, *, max_items: int = 20) -> str:
        """A human-readable account: budget arithmetic, sections, then items per section."""
        a = self.account
        lines = [
            f"budget {a.budget} = output {a.output_reserve} + tool schemas "
            f"{a.tool_schema_tokens} + tool results {a.tool_result_reserve} + prompt "
            f"{a.prompt_budget}",
            f"prompt {a.rendered}/{a.prompt_budget} tokens ({a.utilisation:.1%}; "
            f"{'exact ' if a.exact else 'estimated, '}{a.counter}); fixed {a.fixed_tokens}, "
            f"packed {a.accounted - a.fixed_tokens}/{a.packable}",
            f"packing: {self.strategy} ({self.method}), {self.probes} knapsack run(s), "
            f"{'optimal over all history lengths' if self.exhaustive else 'search truncated'}",
            "",
            f"{'section':<16} {'kept':>5} {'dropped':>7} {'tokens':>7}",
        ]
        for s in self.sections:
            lines.append(f"{s.section.value:<16} {s.kept:>5} {s.dropped:>7} {s.tokens:>7}")
        for s in self.sections:
            rows = [i for i in self.items if i.section == s.section]
            if not rows:
                continue
            lines += ["", f"[{s.section.value}]"]
            for i in rows[:max_items]:
                fate = "kept" if i.kept else f"dropped: {i.reason}"
                extra = f" ({i.detail})" if i.detail else ""
                lines.append(f"  {i.id:<24} {i.tokens:>5} tok  score {i.score:6.3f}  {fate}{extra}")
            if len(rows) > max_items:
                lines.append(f"  … {len(rows) - max_items} more")
        return "\n".join(lines)
