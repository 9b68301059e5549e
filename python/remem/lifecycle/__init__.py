"""Memory lifecycle: decay, promotion and inclusion scoring, stage movement."""

from __future__ import annotations

from remem.lifecycle.decay import DecayCalculator, DecayConfig
from remem.lifecycle.inclusion import InclusionScorerConfig, LongTermInclusionScorer
from remem.lifecycle.maintenance import Sleeper
from remem.lifecycle.manager import LifecycleManager
from remem.lifecycle.plan import LifecyclePlan, PlanAction, PlannedChange
from remem.lifecycle.plan_journal import (
    FilePlanJournal,
    MemoryPlanJournal,
    PendingPlan,
    PlanJournal,
)
from remem.lifecycle.promotion import PromotionConfig, PromotionScorer
from remem.lifecycle.report import ExecutionReport, MaintenanceFailure

__all__ = [
    "DecayCalculator",
    "DecayConfig",
    "ExecutionReport",
    "FilePlanJournal",
    "InclusionScorerConfig",
    "LifecycleManager",
    "LifecyclePlan",
    "LongTermInclusionScorer",
    "MaintenanceFailure",
    "MemoryPlanJournal",
    "PendingPlan",
    "PlanAction",
    "PlanJournal",
    "PlannedChange",
    "PromotionConfig",
    "PromotionScorer",
    "Sleeper",
]
