"""The fixed section names of an assembled context, their titles and their layout order.

Supporting context (everything but history) is rendered in :data:`SUPPORTING_ORDER`, each
non-empty section under its title; history is rendered as chat turns. The names are stable: a
chat CLI's ``/context`` command and :meth:`AssembledContext.explain` print them.

============== ========================= ===================================================
name           title                     holds
============== ========================= ===================================================
core_memory    Core memory               core blocks; always kept when present
entities       Known entities            entities primed or recalled for this session
known_facts    Known facts               relationship facts ("Ana -[works_at]-> Acme")
long_term      Long-term memories        recalled long-term memories
short_term     Short-term memories       recalled short-term memories
insights       Insights                  derived insights
summaries      Summaries                 session and day summaries
prior_history  (chat turns)              turns from earlier sessions (priming)
current_history (chat turns)             turns of the current session
============== ========================= ===================================================
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["SECTION_TITLES", "SUPPORTING_ORDER", "Section"]


class Section(StrEnum):
    """Where an item goes in the assembled context."""

    CORE_MEMORY = "core_memory"
    ENTITIES = "entities"
    KNOWN_FACTS = "known_facts"
    LONG_TERM = "long_term"
    SHORT_TERM = "short_term"
    INSIGHTS = "insights"
    SUMMARIES = "summaries"
    PRIOR_HISTORY = "prior_history"
    CURRENT_HISTORY = "current_history"

    @property
    def is_history(self) -> bool:
        """True for the two history sections, which render as chat turns."""
        return self in (Section.PRIOR_HISTORY, Section.CURRENT_HISTORY)


SUPPORTING_ORDER: tuple[Section, ...] = (
    Section.CORE_MEMORY,
    Section.ENTITIES,
    Section.KNOWN_FACTS,
    Section.LONG_TERM,
    Section.SHORT_TERM,
    Section.INSIGHTS,
    Section.SUMMARIES,
)
"""Render order of the supporting-context sections (core first: the most stable content)."""

SECTION_TITLES: dict[Section, str] = {
    Section.CORE_MEMORY: "Core memory",
    Section.ENTITIES: "Known entities",
    Section.KNOWN_FACTS: "Known facts",
    Section.LONG_TERM: "Long-term memories",
    Section.SHORT_TERM: "Short-term memories",
    Section.INSIGHTS: "Insights",
    Section.SUMMARIES: "Summaries",
    Section.PRIOR_HISTORY: "Earlier sessions",
    Section.CURRENT_HISTORY: "This session",
}
