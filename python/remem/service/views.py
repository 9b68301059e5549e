"""What the memory operations answer with: plain JSON-able pydantic models.

Both servers return these as they are (the REST API as response bodies, the MCP server as
structured tool results), so their JSON schemas — field descriptions included — are what a
client or a model reads. Converters from the engine's own types live beside each model.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pydantic

from remem.blocks import CoreMemoryBlock
from remem.context import AssembledContext
from remem.models import MemoryRecord, ScoredMemory, TranscriptEntry, TranscriptSession

__all__ = [
    "BlockEditResult",
    "BlockView",
    "ContextItem",
    "ContextView",
    "ForgetResult",
    "MemoryView",
    "RecallHit",
    "RecallResult",
    "SessionList",
    "SessionView",
    "Transcript",
    "TurnView",
]


class View(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid")


class MemoryView(View):
    """One stored memory."""

    id: str = pydantic.Field(description="The memory's id; pass it to forget.")
    text: str = pydantic.Field(description="What the memory says.")
    kind: str = pydantic.Field(description="fact, preference, event, insight, summary or note.")
    namespace: str = pydantic.Field(description="The namespace it belongs to.")
    stage: str = pydantic.Field(description="episodic (a turn), short_term, long_term, decayed…")
    session_id: str | None = pydantic.Field(description="The session it came from, if any.")
    created_at: datetime = pydantic.Field(description="When it was stored (UTC).")
    valid_from: datetime | None = pydantic.Field(
        default=None, description="When the statement started to hold, when known."
    )
    metadata: dict[str, Any] = pydantic.Field(default_factory=dict)

    @classmethod
    def of(cls, record: MemoryRecord) -> MemoryView:
        return cls(
            id=record.id,
            text=record.text,
            kind=record.kind.value,
            namespace=record.namespace,
            stage=record.lifecycle.stage.value,
            session_id=record.session_id,
            created_at=record.lifecycle.created_at,
            valid_from=record.valid_from,
            metadata=dict(record.metadata),
        )


class RecallHit(View):
    """One recalled memory with why it ranked where it did."""

    memory: MemoryView
    score: float = pydantic.Field(description="Fused relevance; higher is better.")
    sources: list[str] = pydantic.Field(description="Retrievers that found it.")
    explanation: str = pydantic.Field(description="The signals behind the score, in one line.")

    @classmethod
    def of(cls, hit: ScoredMemory) -> RecallHit:
        return cls(
            memory=MemoryView.of(hit.record),
            score=hit.score,
            sources=list(hit.sources),
            explanation=hit.explanation,
        )


class RecallResult(View):
    """The best memories for a query, best first."""

    namespace: str
    query: str
    hits: list[RecallHit]


class ForgetResult(View):
    """How many memories were forgotten (moved to the deleted stage, never recalled again)."""

    namespace: str
    forgotten: int


class TurnView(View):
    """One recorded turn: what the user said and what the assistant answered."""

    id: str
    session_id: str
    turn_number: int
    user_message: str
    assistant_message: str
    created_at: datetime

    @classmethod
    def of(cls, entry: TranscriptEntry) -> TurnView:
        return cls(
            id=entry.id,
            session_id=entry.session_id,
            turn_number=entry.turn_number,
            user_message=entry.user_message,
            assistant_message=entry.assistant_message,
            created_at=entry.created_at,
        )


class SessionView(View):
    """One conversation session."""

    session_id: str
    title: str | None
    created_at: datetime

    @classmethod
    def of(cls, session: TranscriptSession) -> SessionView:
        return cls(
            session_id=session.session_id, title=session.title, created_at=session.created_at
        )


class SessionList(View):
    sessions: list[SessionView]


class Transcript(View):
    """A page of one session's turns, oldest first."""

    session_id: str
    turns: list[TurnView]


class BlockView(View):
    """A core memory block: always-present facts, capped in characters."""

    label: str = pydantic.Field(description="The block's name (e.g. user, self).")
    description: str = pydantic.Field(description="What belongs in it.")
    entries: list[str] = pydantic.Field(description="Its entries, one fact each.")
    used: int = pydantic.Field(description="Characters used.")
    limit: int = pydantic.Field(description="Character limit.")
    rendered: str = pydantic.Field(description="The block as it appears in a prompt.")

    @classmethod
    def of(cls, block: CoreMemoryBlock) -> BlockView:
        return cls(
            label=block.label,
            description=block.description,
            entries=list(block.entries),
            used=block.size,
            limit=block.limit_chars,
            rendered=block.render(),
        )


class BlockEditResult(View):
    """The outcome of a core memory edit: ``ok`` false says what to fix (the block is unchanged).

    A full block (``error`` = BlockFullError) carries the block's whole contents in ``block``
    and ``message``: merge or drop entries with core_memory_replace/remove, then retry."""

    ok: bool
    namespace: str
    error: str | None = pydantic.Field(description="The error's type when not ok.")
    message: str = pydantic.Field(description="What happened, or what to fix and retry.")
    block: BlockView


class ContextItem(View):
    """One candidate's fate in the assembled context."""

    id: str
    section: str
    tokens: int
    score: float
    kept: bool
    reason: str | None = pydantic.Field(description="Why it was dropped, when it was.")


class ContextView(View):
    """The context assembled for a query under a token budget, with its account."""

    namespace: str
    query: str
    text: str = pydantic.Field(description="The assembled context, ready to put in a prompt.")
    tokens: int = pydantic.Field(description="Tokens the text takes.")
    budget: int = pydantic.Field(description="The token budget it was packed into.")
    explanation: str = pydantic.Field(description="Budget arithmetic, sections and items.")
    items: list[ContextItem]

    @classmethod
    def of(cls, context: AssembledContext, *, namespace: str, query: str) -> ContextView:
        return cls(
            namespace=namespace,
            query=query,
            text=context.to_text(),
            tokens=context.account.rendered,
            budget=context.account.prompt_budget,
            explanation=context.explain(),
            items=[
                ContextItem(
                    id=i.id,
                    section=i.section.value,
                    tokens=i.tokens,
                    score=i.score,
                    kept=i.kept,
                    reason=None if i.reason is None else i.reason.value,
                )
                for i in context.items
            ],
        )
