"""Session-start priming for a companion: what it knows before the first message of a session.

Gathered from the stores once per session (the companion caches it) and handed to
:class:`remem.context.Primer`, which cuts it to the configured limits and token budget:

* **entities** — the graph's entities, scored by ``ln(1 + relationships + accesses)`` scaled to
  0..1 (the best connected and most used first);
* **known facts** — the current outgoing relationships of those entities (superseded or closed
  ones are left out: priming states what holds now);
* **earlier sessions** — the last turns of the most recent other sessions in the transcript.

Day summaries are not primed here: they belong to the consolidation package, and recall
already finds summary records.
"""

from __future__ import annotations

import math
from datetime import datetime

from remem.context import ContextCandidate, HistoryTurn, Primer, Priming, PrimingConfig
from remem.controller import MemoryController
from remem.errors import NotFoundError

__all__ = ["session_priming"]


async def session_priming(
    controller: MemoryController, config: PrimingConfig, session_id: str, now: datetime
) -> Priming:
    """The priming of a session starting at ``now`` (see the module docstring)."""
    primer = Primer(config)
    if not config.enabled:
        return primer.prime(now=now)
    graph = controller.graph_store
    entities = await graph.list_entities()
    entity_items: list[ContextCandidate] = []
    fact_items: list[ContextCandidate] = []
    if entities:
        counts = await graph.relationship_counts([e.id for e in entities])
        raw = {e.id: math.log1p(counts.get(e.id, 0) + e.access_count) for e in entities}
        top = max(raw.values()) or 1.0
        ranked = sorted(entities, key=lambda e: (-raw[e.id], e.id))[: config.top_entities]
        names = {e.id: e.name for e in entities}
        for e in ranked:
            score = raw[e.id] / top
            entity_items.append(ContextCandidate.from_entity(e, score=score))
            for rel in await graph.relationships(e.id, direction="out", at=now):
                fact_items.append(ContextCandidate.from_relationship(rel, names, score=score))
    return primer.prime(
        now=now,
        entities=entity_items,
        known_facts=fact_items,
        previous_sessions=await _previous_sessions(controller, config, session_id),
    )


async def _previous_sessions(
    controller: MemoryController, config: PrimingConfig, session_id: str
) -> list[list[HistoryTurn]]:
    transcript = controller.transcript_store
    if transcript is None or not config.previous_sessions or not config.previous_session_turns:
        return []
    sessions = [s for s in await transcript.list_sessions() if s.session_id != session_id]
    out: list[list[HistoryTurn]] = []
    for session in sessions[::-1][: config.previous_sessions]:  # listed oldest first
        try:
            entries = await transcript.get_entries(session.session_id)
        except NotFoundError:  # deleted meanwhile
            continue
        tail = entries[-config.previous_session_turns :]
        out.append([HistoryTurn.from_entry(e) for e in tail])
    return out
