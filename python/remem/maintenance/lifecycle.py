"""``remem lifecycle`` and ``/lifecycle``: preview the lifecycle moves, apply them on request.

One code path for the command line and the chat: :func:`lifecycle_manager` is the Runtime's
manager, :func:`run_lifecycle` previews (and with ``execute`` applies that plan), and the text
either prints comes from :meth:`LifecyclePlan.describe` and :func:`describe_execution`.
"""

from __future__ import annotations

from remem.lifecycle import ExecutionReport, LifecycleManager
from remem.runtime import Runtime

__all__ = ["describe_execution", "lifecycle_manager", "run_lifecycle"]


def lifecycle_manager(rt: Runtime) -> LifecycleManager:
    manager = rt.lifecycle
    assert manager is not None  # a started Runtime opens it
    return manager


def describe_execution(report: ExecutionReport) -> str:
    return (
        f"executed plan {report.plan_id}: {report.changed} change(s) — promoted "
        f"{report.promoted}, decayed {report.decayed}, deleted {report.deleted}, reactivated "
        f"{report.reactivated}; vectors moved {report.vectors_moved}, removed "
        f"{report.vectors_removed}"
    )


async def run_lifecycle(rt: Runtime, *, execute: bool) -> str:
    """The preview text, or (``execute``) the report of executing the plan just previewed."""
    manager = lifecycle_manager(rt)
    plan = await manager.preview()
    if not execute:
        tail = "\n(preview only; --execute applies it)" if plan else ""
        return plan.describe() + tail
    return describe_execution(await manager.execute(plan))
