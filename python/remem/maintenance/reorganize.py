"""Reorganize: one coordinated pass of consolidation and lifecycle maintenance.

    plan = await preview_reorganize(rt)        # changes nothing
    print(plan.describe())
    report = await execute_reorganize(rt, plan)  # PreflightError when a check failed

The preview quiesces the memory (extraction drained, journaled writes applied), runs the
preflight checks (:mod:`remem.maintenance.checks`) and plans, without writing: the duplicate
entities that would merge, the keyed facts and exclusive relationships that would be
superseded, and the lifecycle moves. Execution refuses — changing nothing — when any check
failed, naming each; otherwise it runs :meth:`MemoryConsolidator.consolidate` (merges,
supersessions, day summaries) and then a lifecycle plan made after it (a merge or supersession
can change what the lifecycle rules decide). Each step is idempotent and completed by the next
run if interrupted (see :mod:`remem.consolidation.consolidator` and
:mod:`remem.lifecycle.manager`).

Not a fix for missing recall: it rewrites derived memory, never the transcripts.
"""

from __future__ import annotations

from dataclasses import dataclass

from remem.consolidation import SINGLE_VALUED, ConsolidationReport, MemoryConsolidator
from remem.consolidation.contradictions import plan_edge_changes, plan_fact_changes
from remem.consolidation.merges import plan_merges
from remem.graph.index import MERGED_INTO
from remem.lifecycle import ExecutionReport, LifecyclePlan
from remem.maintenance.checks import Check, preflight, refusal
from remem.maintenance.errors import PreflightError
from remem.maintenance.lifecycle import describe_execution, lifecycle_manager
from remem.models import Relationship
from remem.runtime import Runtime

__all__ = ["ReorganizePlan", "ReorganizeReport", "execute_reorganize", "preview_reorganize"]


@dataclass(frozen=True)
class ReorganizePlan:
    """What a reorganisation would change now, and the preflight verdicts."""

    checks: tuple[Check, ...]
    merges: tuple[tuple[str, str], ...]
    """(duplicate name, kept entity id) pairs."""
    fact_supersessions: tuple[tuple[str, str], ...]
    """(old text, new text) pairs."""
    edge_supersessions: int
    lifecycle: LifecyclePlan

    @property
    def refusal(self) -> str | None:
        return refusal(list(self.checks))

    @property
    def changes(self) -> int:
        return (
            len(self.merges)
            + len(self.fact_supersessions)
            + self.edge_supersessions
            + self.lifecycle.total
        )

    def describe(self, limit: int = 10) -> str:
        lines = ["preflight checks:", *(c.line() for c in self.checks)]
        lines.append(f"entity merges: {len(self.merges)}")
        lines += [f"  {dup!r} into {kept}" for dup, kept in self.merges[:limit]]
        lines.append(f"fact supersessions: {len(self.fact_supersessions)}")
        lines += [f"  {old!r} -> {new!r}" for old, new in self.fact_supersessions[:limit]]
        lines.append(f"relationship supersessions: {self.edge_supersessions}")
        lines.append(f"lifecycle changes: {self.lifecycle.total}")
        lines.append("day summaries: written for each day whose summary is missing or stale")
        why = self.refusal
        lines.append(
            why
            if why is not None
            else f"{self.changes} planned change(s); only the exact option --execute applies them"
        )
        return "\n".join(lines)


@dataclass(frozen=True)
class ReorganizeReport:
    consolidation: ConsolidationReport
    lifecycle: ExecutionReport

    def describe(self) -> str:
        return (
            f"consolidation: {self.consolidation}\nlifecycle: {describe_execution(self.lifecycle)}"
        )


async def preview_reorganize(rt: Runtime) -> ReorganizePlan:
    """Quiesce, check and plan; writes nothing (module docstring)."""
    checks = tuple(await preflight(rt))
    controller = rt.controller
    stores = await controller.settled()
    graph = stores.graph
    entities = await graph.list_entities()
    merge_plan = plan_merges(entities, threshold=controller.resolver.threshold, now=rt.clock.now())

    facts = plan_fact_changes(await stores.records.keyed_facts(), SINGLE_VALUED)
    edges: dict[str, Relationship] = {}
    for entity in entities:
        if entity.attributes.get(MERGED_INTO):
            continue
        for edge in await graph.relationships(entity.id, direction="out"):
            edges[edge.id] = edge
    lifecycle = await lifecycle_manager(rt).preview()
    return ReorganizePlan(
        checks=checks,
        merges=tuple((dup.name, kept) for dup, kept in merge_plan.pairs),
        fact_supersessions=tuple((c.old.text, c.new.text) for c in facts),
        edge_supersessions=len(plan_edge_changes(edges.values())),
        lifecycle=lifecycle,
    )


async def execute_reorganize(rt: Runtime, plan: ReorganizePlan) -> ReorganizeReport:
    """Apply a reorganisation; PreflightError (nothing changed) when a check fails now or
    failed in ``plan``."""
    why = plan.refusal
    checks = await preflight(rt)
    why = why or refusal(checks)
    if why is not None:
        failed = tuple(c.name for c in (*plan.checks, *checks) if not c.ok)
        raise PreflightError(why + "; see `/help reorganize`", tuple(dict.fromkeys(failed)))
    consolidator = MemoryConsolidator(rt.controller, timezone=rt.config.timezone)
    consolidation = await consolidator.consolidate()
    manager = lifecycle_manager(rt)
    executed = await manager.execute(await manager.preview())
    return ReorganizeReport(consolidation, executed)
