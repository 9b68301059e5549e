"""Session priming from the stores: what a new session starts with (``MemoryController.prime``).

Gathered once per session start and handed to :class:`remem.context.Primer`, which applies the
:class:`~remem.context.PrimingConfig` — every field does what it says:

* **entities** (``top_entities``) — the graph's entities, scored ``ln(1 + relationships +
  accesses)`` scaled to 0..1 (best connected and most used first);
* **known facts** (``max_known_facts``) — the current outgoing relationships of those entities,
  dated ``user lives_in Lisbon (since 2026-03-05)`` (closed or superseded ones are left out:
  priming states what holds now);
* **insights** (``max_insights``) and **summaries** (``max_summaries``) — live records of kind
  ``insight`` / ``summary`` in the namespace (short- and long-term stages; decayed, deleted and
  superseded ones never), scored ``base_score / (1 + age in days)`` so the newest, least decayed
  come first; their age is when the statement held (``valid_from``) or was recorded;
* **earlier sessions** (``previous_sessions`` x ``previous_session_turns``) — the last turns of
  the most recent other sessions in the transcript;
* ``recency_days`` drops items and turns older than that many days (0: no limit) and
  ``token_budget`` caps what the whole priming costs when rendered (both in the Primer).

``enabled=False`` primes nothing and reads no store.

With a ``namespace`` every item comes from that scope alone: its entities (and so their facts),
its insights and summaries, and earlier sessions whose ``TranscriptSession.namespace`` is it —
a session of B is never primed with A's graph or A's conversations. Without one (the
single-scope default) every scope is read, as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime

from remem.context import ContextCandidate, HistoryTurn, Primer, Priming, PrimingConfig, Section
from remem.errors import InvalidArgumentError, NotFoundError
from remem.models import MemoryKind, MemoryRecord, MemoryStage
from remem.stores.graph import GraphStore
from remem.stores.records import RecordStore
from remem.stores.transcript import TranscriptStore

__all__ = ["PrimingSources", "prime_session"]

_LIVE_STAGES = (MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM)
_SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class PrimingSources:
    """The stores priming reads (the transcript is optional: no earlier sessions without it)."""

    graph: GraphStore
    records: RecordStore
    transcript: TranscriptStore | None


async def prime_session(
    sources: PrimingSources,
    config: PrimingConfig,
    *,
    session_id: str,
    now: datetime,
    namespace: tuple[str, ...] | None = None,
) -> Priming:
    """The priming of ``session_id`` starting at ``now`` (module docstring); ``namespace``:
    the scopes every section is drawn from (None: all), each pushed into its store's query."""
    if not isinstance(config, PrimingConfig):
        raise InvalidArgumentError(
            "the priming config must be a PrimingConfig (start from "
            f"PrimingConfig.controller_fallback() or .chat_template()), got {type(config).__name__}"
        )
    primer = Primer(config)
    if not config.enabled:
        return primer.prime(now=now)
    entities, facts = await _graph_items(sources.graph, config, now, namespace)
    insights: list[ContextCandidate] = []
    summaries: list[ContextCandidate] = []
    if config.max_insights or config.max_summaries:
        kinds = [
            kind
            for kind, limit in (
                (MemoryKind.INSIGHT, config.max_insights),
                (MemoryKind.SUMMARY, config.max_summaries),
            )
            if limit
        ]
        records: list[MemoryRecord] = []
        for scope in (None,) if namespace is None else namespace:
            records += await sources.records.scan(stages=_LIVE_STAGES, kinds=kinds, namespace=scope)
        for record in records:
            item = _record_item(record, now)
            (insights if record.kind is MemoryKind.INSIGHT else summaries).append(item)
    return primer.prime(
        now=now,
        entities=entities,
        known_facts=facts,
        insights=insights,
        summaries=summaries,
        previous_sessions=await _previous_sessions(
            sources.transcript, config, session_id, namespace
        ),
    )


def _record_item(record: MemoryRecord, now: datetime) -> ContextCandidate:
    held = record.valid_from or record.lifecycle.created_at
    age_days = max(0.0, (now - held).total_seconds() / _SECONDS_PER_DAY)
    return ContextCandidate(
        id=record.id,
        section=Section.INSIGHTS if record.kind is MemoryKind.INSIGHT else Section.SUMMARIES,
        text=f"[{held:%Y-%m-%d}] {record.text}",
        score=record.lifecycle.base_score / (1.0 + age_days),
        timestamp=held,
        superseded=record.superseded_by is not None,
        source="priming",
    )


async def _graph_items(
    graph: GraphStore, config: PrimingConfig, now: datetime, namespace: tuple[str, ...] | None
) -> tuple[list[ContextCandidate], list[ContextCandidate]]:
    if not config.top_entities:
        return [], []
    entities = []
    for scope in (None,) if namespace is None else namespace:
        entities += await graph.list_entities(namespace=scope)
    if not entities:
        return [], []
    counts = await graph.relationship_counts([e.id for e in entities])
    raw = {e.id: math.log1p(counts.get(e.id, 0) + e.access_count) for e in entities}
    top = max(raw.values()) or 1.0
    ranked = sorted(entities, key=lambda e: (-raw[e.id], e.id))[: config.top_entities]
    names = {e.id: e.name for e in entities}
    entity_items: list[ContextCandidate] = []
    fact_items: list[ContextCandidate] = []
    for e in ranked:
        score = raw[e.id] / top
        entity_items.append(ContextCandidate.from_entity(e, score=score))
        if config.max_known_facts:
            for rel in await graph.relationships(e.id, direction="out", at=now):
                if namespace is not None and rel.target_id not in names:  # another scope's
                    continue
                item = ContextCandidate.from_relationship(rel, names, score=score)
                held = rel.valid_from or rel.created_at
                # Dated like every other memory in the prompt: when the fact began to hold.
                fact_items.append(replace(item, text=f"{item.text} (since {held:%Y-%m-%d})"))
    return entity_items, fact_items


async def _previous_sessions(
    transcript: TranscriptStore | None,
    config: PrimingConfig,
    session_id: str,
    namespace: tuple[str, ...] | None,
) -> list[list[HistoryTurn]]:
    if transcript is None or not config.previous_sessions or not config.previous_session_turns:
        return []
    listed = await transcript.list_sessions(namespace=namespace)
    sessions = [s for s in listed if s.session_id != session_id]
    out: list[list[HistoryTurn]] = []
    for session in sessions[::-1][: config.previous_sessions]:  # listed oldest first
        try:
            entries = await transcript.get_entries(session.session_id)
        except NotFoundError:  # deleted meanwhile
            continue
        tail = entries[-config.previous_session_turns :]
        out.append([HistoryTurn.from_entry(e) for e in tail])
    return out
