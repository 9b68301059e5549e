"""A recall candidate (a memory, a turn hit or a graph path) and the records recall makes of it.

Turns and graph paths have no stored record: :func:`turn_record` and :func:`graph_record` build
the synthetic records :mod:`remem.controller.recall` documents (``metadata["source"]`` says
which). :func:`same_text` and :func:`turn_utterance` are the rule by which a turn and a memory
are two copies of one utterance (``FusionConfig.merge_copies``).

Example::

    c = Candidate("t1", hit.created_at, 0, turn=hit)
    turn_record(c).metadata  # {"source": "turn", "turn_number": hit.turn_number}
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from remem.controller.recall_options import RecallOptions
from remem.controller.stages import CandidateView, speaker_of
from remem.graph import GraphHit
from remem.models import (
    EpisodicHit,
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
)
from remem.stores.filters import matches
from remem.writebehind.direct import USER_CHARS_KEY


@dataclass(slots=True)
class Candidate:
    """One fusion key and what it stands for: exactly one of record, turn and graph is set."""

    key: str
    created_at: datetime
    access_count: int
    record: MemoryRecord | None = None
    turn: EpisodicHit | None = None
    graph: GraphHit | None = None


def session_of(c: Candidate) -> str | None:
    """The session a candidate belongs to (graph paths belong to none)."""
    if c.record is not None:
        return c.record.session_id
    return c.turn.session_id if c.turn is not None else None


def view(c: Candidate) -> CandidateView:
    """What the prior stages read of a candidate."""
    if c.record is not None:
        text, meta = c.record.text, c.record.metadata
    elif c.turn is not None:
        text, meta = c.turn.text, c.turn.metadata
    else:
        assert c.graph is not None
        text, meta = "\n".join(c.graph.facts()), {}
    return CandidateView(c.created_at, c.access_count, text, speaker_of(meta))


def turn_allowed(hit: EpisodicHit, options: RecallOptions) -> bool:
    """Whether a turn hit passes the batch's session scope and filters."""
    if options.session_id is not None and hit.session_id != options.session_id:
        return False
    meta: dict[str, Any] = {"kind": "note", "namespace": "default", "stage": "episodic"}
    if hit.session_id is not None:
        meta["session_id"] = hit.session_id
    return matches(options.where_node, meta)


def same_text(text: str) -> str:
    """The text two copies of one utterance share: whitespace runs folded, ends stripped."""
    return " ".join(text.split())


def turn_utterance(hit: EpisodicHit) -> str:
    """A turn's words as its writer gave them: the user message when the assistant's is empty
    (an utterance recorded on its own), else the whole stored text."""
    n = hit.metadata.get(USER_CHARS_KEY)
    if (
        isinstance(n, int)
        and not isinstance(n, bool)
        and 0 < n <= len(hit.text)
        and not hit.text[n:].strip()
    ):
        return hit.text[:n]
    return hit.text


def _split_turn(hit: EpisodicHit) -> str:
    n = hit.metadata.get(USER_CHARS_KEY)
    if not isinstance(n, int) or isinstance(n, bool) or n > len(hit.text):
        return hit.text
    user = hit.text[:n]
    assistant = hit.text[n + 1 :] if n else hit.text
    parts = [f"user: {user}"] if user else []
    if assistant:
        parts.append(f"assistant: {assistant}")
    return "\n".join(parts) or hit.text


def turn_record(c: Candidate) -> MemoryRecord:
    """The synthetic record of a turn hit (stage episodic, kind note)."""
    hit = c.turn
    assert hit is not None
    return MemoryRecord(
        id=hit.id,
        text=_split_turn(hit),
        kind=MemoryKind.NOTE,
        session_id=hit.session_id,
        lifecycle=MemoryLifecycleMetadata(
            stage=MemoryStage.EPISODIC,
            score_reference_time=hit.created_at,
            created_at=hit.created_at,
        ),
        metadata={"source": "turn", "turn_number": hit.turn_number},
    )


def graph_record(c: Candidate) -> MemoryRecord:
    """The synthetic record of a graph path (id ``graph:<entity id>``, stage long_term)."""
    hit = c.graph
    assert hit is not None
    return MemoryRecord(
        id=c.key,
        text="\n".join(hit.facts()),
        kind=MemoryKind.FACT,
        namespace=hit.entity.namespace,
        lifecycle=MemoryLifecycleMetadata(
            stage=MemoryStage.LONG_TERM,
            score_reference_time=c.created_at,
            created_at=c.created_at,
            access_count=hit.entity.access_count,
        ),
        metadata={"source": "graph", "entity_id": hit.entity.id, "start_entity_id": hit.start.id},
        entity_ids=tuple(dict.fromkeys(e.id for e in hit.nodes)),
    )
