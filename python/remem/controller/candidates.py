"""A recall candidate (a memory, a turn hit or a graph path), how one query's candidates and
ranked lists are gathered from the retrievers' hits (:func:`gather`), and the records recall
makes of turns and graph paths.

Turns and graph paths have no stored record: :func:`turn_record` and :func:`graph_record` build
the synthetic records :mod:`remem.controller.recall` documents (``metadata["source"]`` says
which). :func:`same_text` and :func:`turn_utterance` are the rule by which a turn and a memory
are two copies of one utterance (``FusionConfig.merge_copies``).

Example::

    c = Candidate("t1", hit.created_at, 0, turn=hit)
    turn_record(c).metadata  # {"source": "turn", "turn_number": hit.turn_number}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from remem.controller.fusion import RankedList
from remem.controller.recall_options import RecallOptions
from remem.controller.stages import CandidateView, NeighbourScored, speaker_of
from remem.graph import GraphHit
from remem.models import (
    EpisodeKind,
    EpisodicHit,
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    PromotionState,
    ProvenanceMetadata,
)
from remem.models.base import trusted
from remem.staging import StagedScore, record_metadata
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
    if options.where_node is None:
        return True
    # A turn is in its session's namespace, so filters={"namespace": "B"} keeps B's own turns.
    meta: dict[str, Any] = {"kind": "note", "namespace": hit.namespace, "stage": "episodic"}
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
    """The synthetic record of a turn hit (stage episodic, kind note). Built unvalidated
    (:func:`~remem.models.base.trusted`, every field given): each value comes from a stored,
    validated turn — recall builds one per returned turn."""
    hit = c.turn
    assert hit is not None
    lifecycle = trusted(
        MemoryLifecycleMetadata,
        {
            "stage": MemoryStage.EPISODIC,
            "base_score": 1.0,
            "score_reference_time": hit.created_at,
            "created_at": hit.created_at,
            "accessed_at": None,
            "promoted_at": None,
            "decayed_at": None,
            "access_count": 0,
            "promotion_state": PromotionState.NONE,
            "protected": False,
        },
    )
    return trusted(
        MemoryRecord,
        {
            "id": hit.id,
            "text": _split_turn(hit),
            "kind": MemoryKind.NOTE,
            "namespace": hit.namespace,
            "session_id": hit.session_id,
            "lifecycle": lifecycle,
            "provenance": _NO_PROVENANCE,
            "metadata": {"source": "turn", "turn_number": hit.turn_number},
            "entity_ids": (),
            "superseded_by": None,
            "valid_from": None,
            "valid_to": None,
        },
    )


_NO_PROVENANCE = ProvenanceMetadata()
"""A turn record's provenance: the model's default (immutable, so shared)."""


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


def gather(
    vec: Sequence[StagedScore],
    text: Sequence[NeighbourScored],
    graph: Sequence[GraphHit],
    records: Mapping[str, MemoryRecord],
    options: RecallOptions,
    *,
    merge_copies: bool,
    texts: dict[str, str] | None = None,
) -> tuple[dict[str, Candidate], list[RankedList], dict[str, float]]:
    """One query's candidates by fusion key, its three ranked lists (vector, fulltext, graph)
    and each full-text entry's neighbour share: eligible memories only, turns within the
    session scope and filters, a turn copy of a memory merged into it (``merge_copies``), graph
    paths matching the filters. ``texts``: a batch's cache of :func:`same_text` by record id
    (the records are the batch's, so a memory's folded text is computed once per batch)."""
    candidates: dict[str, Candidate] = {}
    record_of = records.get
    # The vector hits, then the full-text notes: the first to name a memory makes its candidate
    # (plain loops: this runs per query and hit, ~100k times a 1,000-query batch).
    vector_list: list[tuple[str, float]] = []
    for m in vec:
        record = record_of(m.id)
        if record is None:
            continue
        if m.id not in candidates:
            lc = record.lifecycle
            candidates[m.id] = Candidate(m.id, lc.created_at, lc.access_count, record=record)
        vector_list.append((m.id, m.score))
    for n in text:
        key = n.hit.id
        if n.hit.kind is EpisodeKind.NOTE and key not in candidates:
            record = record_of(key)
            if record is not None:
                lc = record.lifecycle
                candidates[key] = Candidate(key, lc.created_at, lc.access_count, record=record)
    copies: dict[str, str] = {}
    if merge_copies:
        # The first memory of a text wins (candidates' order is the retrievers'), so the
        # merge is deterministic when two memories share a text.
        folded = {} if texts is None else texts
        for key, c in candidates.items():
            if c.record is not None:
                t = folded.get(key)
                if t is None:
                    t = folded[key] = same_text(c.record.text)
                copies.setdefault(t, key)
    text_list: list[tuple[str, float]] = []
    shares: dict[str, float] = {}
    listed: set[str] = set()
    for n in text:
        h = n.hit
        key = h.id
        if h.kind is EpisodeKind.NOTE:
            if key not in candidates:
                continue
        elif not turn_allowed(h, options):
            continue
        elif copies:
            key = copies.get(same_text(turn_utterance(h)), h.id)
        if key in listed:
            continue  # a memory's note and its turn copy: one entry, at the better rank
        if key not in candidates:
            candidates[key] = Candidate(key, h.created_at, 0, turn=h)
        listed.add(key)
        text_list.append((key, n.score))
        shares[key] = n.share
    graph_list: list[tuple[str, float]] = []
    for hit in graph:
        key = f"graph:{hit.entity.id}"
        created = max(r.created_at for r in hit.path)
        cand = Candidate(key, created, hit.entity.access_count, graph=hit)
        if options.where_node is None or matches(
            options.where_node, record_metadata(graph_record(cand))
        ):
            candidates[key] = cand
            graph_list.append((key, hit.score))
    lists = [
        RankedList("vector", vector_list),
        RankedList("fulltext", text_list),
        RankedList("graph", graph_list),
    ]
    return candidates, lists, shares
