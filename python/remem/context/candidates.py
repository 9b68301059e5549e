"""The assembler's inputs as plain data: supporting items and history turns.

The recall controller, core memory blocks and the primer all feed the assembler through these two
types, so the assembler depends on nothing above the models. Converters build them from
:class:`~remem.models.ScoredMemory`, :class:`~remem.models.TranscriptEntry`,
:class:`~remem.models.Entity` and :class:`~remem.models.Relationship`.

>>> from remem.context import ContextCandidate, Section
>>> ContextCandidate("m1", Section.LONG_TERM, "Ana lives in Lisbon.", score=0.82).score
0.82
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from remem.context.sections import Section
from remem.errors import InvalidArgumentError
from remem.models import (
    Entity,
    MemoryKind,
    MemoryStage,
    Relationship,
    ScoredMemory,
    TranscriptEntry,
    check_text,
    require_aware,
)

__all__ = ["ContextCandidate", "HistoryTurn"]


@dataclass(frozen=True, slots=True)
class ContextCandidate:
    """One supporting item: a memory, entity, fact, insight, summary or core block.

    ``score`` is its relevance (a recall score, usually in 0..1; higher is better); the packing
    value is ``score x`` the section's weight. ``decayed`` and ``superseded`` items are excluded
    and reported as such. Core-memory items (``Section.CORE_MEMORY``) are always kept.
    """

    id: str
    section: Section
    text: str
    score: float = 1.0
    timestamp: datetime | None = None
    decayed: bool = False
    superseded: bool = False
    source: str = ""

    def __post_init__(self) -> None:
        if self.section.is_history:
            raise InvalidArgumentError(
                f"candidate {self.id!r} names section {self.section.value!r}; "
                "pass history as HistoryTurn objects instead"
            )
        if not math.isfinite(self.score) or self.score < 0:
            raise InvalidArgumentError(
                f"candidate {self.id!r} has score {self.score!r}; scores must be finite and ≥ 0"
            )
        check_text(self.text, field=f"candidate {self.id!r} text")
        if self.timestamp is not None:
            require_aware(self.timestamp)

    @classmethod
    def from_scored_memory(
        cls, memory: ScoredMemory, *, section: Section | None = None
    ) -> ContextCandidate:
        """A recall result as a candidate; the section follows the record's kind and stage.

        Insights and summaries go to their sections, long-term records to ``long_term``, the
        rest to ``short_term``. A decayed or deleted stage marks it decayed; ``superseded_by``
        marks it superseded.
        """
        record = memory.record
        stage = record.lifecycle.stage
        if section is None:
            if record.kind is MemoryKind.INSIGHT:
                section = Section.INSIGHTS
            elif record.kind is MemoryKind.SUMMARY:
                section = Section.SUMMARIES
            elif stage is MemoryStage.LONG_TERM:
                section = Section.LONG_TERM
            else:
                section = Section.SHORT_TERM
        return cls(
            id=record.id,
            section=section,
            text=record.text,
            score=max(0.0, memory.score),
            timestamp=record.lifecycle.created_at,
            decayed=stage in (MemoryStage.DECAYED, MemoryStage.DELETED),
            superseded=record.superseded_by is not None,
            source=",".join(memory.sources) or "recall",
        )

    @classmethod
    def from_entity(cls, entity: Entity, *, score: float = 1.0) -> ContextCandidate:
        """An entity line: ``"Ana (person; also: Ana Silva)"``."""
        text = f"{entity.name} ({entity.entity_type}"
        if entity.aliases:
            text += "; also: " + ", ".join(entity.aliases)
        return cls(
            id=entity.id,
            section=Section.ENTITIES,
            text=text + ")",
            score=score,
            timestamp=entity.updated_at,
            source="graph",
        )

    @classmethod
    def from_relationship(
        cls, relationship: Relationship, names: Mapping[str, str], *, score: float = 1.0
    ) -> ContextCandidate:
        """A fact line ``"Ana works_at Acme"``; ``names`` maps entity ids to display names.

        A relationship that no longer holds (``valid_to`` or ``superseded_by`` set) is marked
        superseded.
        """
        source = names.get(relationship.source_id, relationship.source_id)
        target = names.get(relationship.target_id, relationship.target_id)
        return cls(
            id=relationship.id,
            section=Section.KNOWN_FACTS,
            text=f"{source} {relationship.relation_type} {target}",
            score=score,
            timestamp=relationship.valid_from or relationship.created_at,
            superseded=relationship.superseded_by is not None or relationship.valid_to is not None,
            source="graph",
        )


@dataclass(frozen=True, slots=True)
class HistoryTurn:
    """One exchange of a conversation: what the user said and what the assistant answered."""

    id: str
    session_id: str
    turn_number: int
    user_message: str
    assistant_message: str
    timestamp: datetime

    def __post_init__(self) -> None:
        require_aware(self.timestamp)
        if self.turn_number < 1:
            raise InvalidArgumentError(
                f"turn {self.id!r} has turn_number {self.turn_number}; turn numbers start at 1"
            )
        check_text(self.user_message, field=f"turn {self.id!r} user_message")
        check_text(self.assistant_message, field=f"turn {self.id!r} assistant_message")

    @classmethod
    def from_entry(cls, entry: TranscriptEntry) -> HistoryTurn:
        """A transcript entry as a history turn."""
        return cls(
            id=entry.id,
            session_id=entry.session_id,
            turn_number=entry.turn_number,
            user_message=entry.user_message,
            assistant_message=entry.assistant_message,
            timestamp=entry.created_at,
        )
