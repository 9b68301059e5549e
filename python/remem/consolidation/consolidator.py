"""MemoryConsolidator: the slow, offline pass that keeps long-term memory consistent.

    consolidator = MemoryConsolidator(rt.controller, brain=brain, timezone="Europe/Lisbon")
    report = await consolidator.consolidate(session_id="s1")
    print(report)  # "1 supersessions, 0 merges, 2 day summaries, 0 failures"

Three steps, each idempotent (a second run with nothing new changes nothing) and each safe to
interrupt (every write is a store batch; a step cut short is completed by the next run):

1. :meth:`merge_duplicates` — entities the resolver considers the same are folded into the
   oldest (rules: :mod:`.merges`). The graph store deletes nothing, so a merge is recorded, not
   erased: the kept entity gains the duplicate's names as aliases; each live relationship of
   the duplicate is copied onto the kept entity (same validity, attributes, provenance and
   ``created_at``; a deterministic id) and the original is superseded by its copy (its
   ``valid_to`` records the merge time); the duplicate is marked
   ``attributes["merged_into"] = kept id`` and leaves the resolver's index, so its names now
   resolve to the kept entity. Records keep their ``entity_ids`` (the record store has no
   partial update that would not race lifecycle writes); the duplicate still exists, so the
   links stay valid.
2. :meth:`supersede_contradictions` — a newer value of a single-valued attribute (and a newer
   target of an exclusive relationship) supersedes the older one (rules:
   :mod:`.contradictions`). Facts come from one :meth:`RecordStore.keyed_facts` query and
   are superseded in one :meth:`MemoryController.supersede_many` batch.
3. :meth:`summarise_days` — a :class:`DaySummary` per local day (rules: :mod:`.days`).

``consolidate`` runs them in that order (merging first, so edges of "Ana" and "ana" meet in
one group before exclusivity is checked). Failed day summaries are reported, recorded in the
controller's :meth:`~MemoryController.failures` (operation ``consolidation``) and retried next
run; any other error (a store failing) propagates, with the batches already applied kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from remem.brains import Brain
from remem.consolidation.attributes import RELATIONS, SINGLE_VALUED
from remem.consolidation.contradictions import (
    EdgeChange,
    EdgeEnding,
    FactChange,
    fact_key,
    fact_value,
    plan_edge_changes,
    plan_edge_endings,
    plan_fact_changes,
    replaces,
)
from remem.consolidation.days import DaySummariser
from remem.consolidation.merges import plan_merges
from remem.consolidation.report import (
    ConsolidationFailure,
    ConsolidationReport,
    EntityMerge,
    SummaryRun,
    Supersession,
)
from remem.controller import MemoryController
from remem.errors import ConfigError, InvalidArgumentError
from remem.failures import BackgroundFailure
from remem.graph.index import MERGED_INTO
from remem.models import Clock, DaySummary, Entity, MemoryRecord, Relationship
from remem.stores.episodic import load_timezone
from remem.stores.transcript import check_session_id


class MemoryConsolidator:
    """Merges duplicate entities, supersedes contradicted facts, writes day summaries.

    ``brain`` writes the day summaries (one call per day); without one they are extractive.
    ``clock`` defaults to the controller's. ``timezone`` (IANA name) decides the calendar days
    and must be the episodic store's (``Runtime.open(..., timezone=...)``); ConfigError if not.
    """

    def __init__(
        self,
        controller: MemoryController,
        *,
        brain: Brain | None = None,
        clock: Clock | None = None,
        timezone: str = "UTC",
    ) -> None:
        self.controller = controller
        self.brain = brain
        self.clock: Clock = clock if clock is not None else controller.clock
        self.zone = load_timezone(timezone)
        store_zone = controller.timezone or timezone
        if store_zone != timezone:
            raise ConfigError(
                f"the episodic store groups days in {store_zone!r}, not {timezone!r}; pass "
                f"timezone={store_zone!r} (or open the runtime with timezone={timezone!r})"
            )
        self.single_valued: frozenset[str] = SINGLE_VALUED

    # -- contradictions ---------------------------------------------------------------------------

    async def supersede_contradictions(
        self, records: Sequence[MemoryRecord] | None = None
    ) -> list[Supersession]:
        """Supersede every contradicted or restated keyed fact and exclusive relationship.

        ``records`` limits the record pass to the (namespace, subject, attribute) keys of those
        records (e.g. the ones an extraction just wrote); None checks every keyed fact.
        Returns what was superseded, records first.
        """
        out = await self._supersede_facts(records)
        out += await self._supersede_edges()
        return out

    async def _supersede_facts(self, records: Sequence[MemoryRecord] | None) -> list[Supersession]:
        store = (await self.controller.settled()).records
        if records is None:
            facts = await store.keyed_facts()  # multi-valued facts too: endings and renames
        else:
            if isinstance(records, str) or not isinstance(records, Sequence):
                raise InvalidArgumentError("records must be a list of MemoryRecord (or None)")
            # a multi-valued key only when the new fact ends or replaces a value of it
            keys = {
                k
                for r in records
                if (k := fact_key(r)) is not None
                and (k[2] in self.single_valued or replaces(r) is not None)
            }
            if not keys:
                return []
            facts = await store.keyed_facts(
                subjects=sorted({k[1] for k in keys}), attributes=sorted({k[2] for k in keys})
            )
            facts = [f for f in facts if fact_key(f) in keys]
        changes = plan_fact_changes(facts, self.single_valued)
        if changes:
            await self.controller.supersede_many([(c.old.id, c.new.id, c.at) for c in changes])
        return [_fact_supersession(c) for c in changes]

    async def _supersede_edges(self) -> list[Supersession]:
        graph = (await self.controller.settled()).graph
        edges: dict[str, Relationship] = {}
        names: dict[str, str] = {}
        # The graph store has no query by attribute; a walk over each entity's outgoing edges
        # is one query per entity (fine for a consolidation pass; see the report).
        for entity in await graph.list_entities():
            names[entity.id] = entity.name
            if entity.attributes.get(MERGED_INTO):
                continue
            for edge in await graph.relationships(entity.id, direction="out"):
                edges[edge.id] = edge
        changes = plan_edge_changes(edges.values())
        for c in changes:
            await graph.supersede_relationship(c.old.id, c.new.id, at=c.at)
        out = [_edge_supersession(c) for c in changes]
        superseded = {c.old.id for c in changes}
        live = [e for e in edges.values() if e.id not in superseded]
        return out + await self._end_edges(live, names)

    async def _end_edges(
        self, edges: Sequence[Relationship], names: dict[str, str]
    ) -> list[Supersession]:
        """Close the edges that live endings of relation facts end (no successor)."""
        if not edges:
            return []
        stores = await self.controller.settled()
        facts = await stores.records.keyed_facts(attributes=sorted(RELATIONS))
        endings = [f for f in facts if f.metadata.get("operation") == "end"]
        planned = plan_edge_endings(edges, endings, names, RELATIONS)
        for e in planned:
            await stores.graph.end_relationship(e.edge.id, at=e.at)
        return [_edge_ending(e) for e in planned]

    # -- duplicates -------------------------------------------------------------------------------

    async def merge_duplicates(self) -> list[EntityMerge]:
        """Fold duplicate entities into the oldest one (see the module docstring)."""
        graph = (await self.controller.settled()).graph
        now = self.clock.now()
        plan = plan_merges(
            await graph.list_entities(), threshold=self.controller.resolver.threshold, now=now
        )
        if not plan.pairs:
            return []
        target = plan.target
        copies: dict[str, Relationship] = {}
        moved: dict[str, list[tuple[str, str]]] = {}
        for dup, _ in plan.pairs:
            for edge in await graph.relationships(dup.id, direction="both"):
                if edge.id in copies:
                    continue
                src = target.get(edge.source_id, edge.source_id)
                dst = target.get(edge.target_id, edge.target_id)
                if src == dst:
                    continue  # a self-loop after the merge says nothing; the edge stays as is
                copies[edge.id] = _repointed(edge, src, dst)
                moved.setdefault(dup.id, []).append((edge.id, copies[edge.id].id))
        if copies:
            existing: set[str] = set()
            for kept_id in {target[d] for d in moved}:
                existing |= {
                    e.id for e in await graph.relationships(kept_id, include_superseded=True)
                }
            # A run interrupted after adding the copies finds them here and does not re-add.
            fresh = [c for c in copies.values() if c.id not in existing]
            if fresh:
                await graph.add_relationships(fresh)
            for old_id, copy in copies.items():
                await graph.supersede_relationship(old_id, copy.id, at=now)
        marked = [
            Entity(
                **{
                    **dict(dup),
                    "attributes": {**dup.attributes, MERGED_INTO: kept_id},
                    "updated_at": now,
                }
            )
            for dup, kept_id in plan.pairs
        ]
        # Marking comes last: until then a re-run plans (and completes) the same merge.
        await graph.upsert_entities([*plan.kept.values(), *marked])
        for namespace in {dup.namespace for dup, _ in plan.pairs}:
            await self.controller.resolver.refresh(namespace)
        names = {e.id: e.name for e in await graph.get_entities(sorted(set(target.values())))}
        return [
            EntityMerge(kept_id, dup.id, names[kept_id], dup.name, tuple(moved.get(dup.id, ())))
            for dup, kept_id in plan.pairs
        ]

    # -- day summaries ----------------------------------------------------------------------------

    async def summarise_days(self, session_id: str) -> SummaryRun:
        """Write the missing or stale day summaries of ``session_id`` (see :mod:`.days`)."""
        check_session_id(session_id)
        episodic = (await self.controller.settled()).episodic
        days = DaySummariser(episodic, brain=self.brain, zone=self.zone, now=self.clock.now)
        run = await days.run(session_id)
        for f in run.failures:
            self.controller.record_failure(
                BackgroundFailure("consolidation", self.clock.now(), f.turn_ids, f.error)
            )
        return run

    async def _sessions(self) -> list[str]:
        transcript = (await self.controller.settled()).transcript
        if transcript is None:
            return []
        return [s.session_id for s in await transcript.list_sessions()]

    # -- everything -------------------------------------------------------------------------------

    async def consolidate(self, *, session_id: str | None = None) -> ConsolidationReport:
        """Merge duplicates, supersede contradictions, then summarise the days of
        ``session_id`` (None: of every session in the transcript store)."""
        merges = await self.merge_duplicates()
        supersessions = await self.supersede_contradictions()
        sessions = [session_id] if session_id is not None else await self._sessions()
        summaries: list[DaySummary] = []
        failures: list[ConsolidationFailure] = []
        for sid in sessions:
            run = await self.summarise_days(sid)
            summaries += run.written
            failures += run.failures
        return ConsolidationReport(
            tuple(supersessions), tuple(merges), tuple(summaries), tuple(failures)
        )


def _fact_supersession(c: FactChange) -> Supersession:
    key = fact_key(c.old)
    assert key is not None
    return Supersession(
        "record", c.old.id, c.new.id, key[1], key[2], fact_value(c.old), fact_value(c.new),
        c.old.text, c.new.text,
    )  # fmt: skip


def _edge_supersession(c: EdgeChange) -> Supersession:
    return Supersession(
        "relationship", c.old.id, c.new.id, c.old.source_id, c.old.relation_type,
        c.old.target_id, c.new.target_id,
        f"{c.old.source_id} {c.old.relation_type} {c.old.target_id}",
        f"{c.new.source_id} {c.new.relation_type} {c.new.target_id}",
    )  # fmt: skip


def _edge_ending(e: EdgeEnding) -> Supersession:
    text = f"{e.edge.source_id} {e.edge.relation_type} {e.edge.target_id}"
    return Supersession(
        "ended", e.edge.id, e.ending.id, e.edge.source_id, e.edge.relation_type,
        e.edge.target_id, None, text, e.ending.text,
    )  # fmt: skip


def _repointed(edge: Relationship, source_id: str, target_id: str) -> Relationship:
    digest = hashlib.sha256(
        "\x1f".join(("merge", edge.id, source_id, target_id)).encode("utf-8")
    ).hexdigest()
    return Relationship(
        **{
            **dict(edge),
            "id": "rel-" + digest[:24],
            "source_id": source_id,
            "target_id": target_id,
            "superseded_by": None,
        }
    )
