"""Preflight checks: what must hold before a maintenance command may change a memory.

Each :class:`Check` has a stable ``name`` (what ``/help reorganize`` and the refusals print), a
verdict and a one-line ``detail`` saying what was found and, when it fails, what to do.
:func:`preflight` runs them all on a started :class:`~remem.Runtime` after quiescing it (pending
extraction drained, the write port's barrier passed), so a refusal lists every reason at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from remem.consolidation import MemoryConsolidator
from remem.errors import ConfigError
from remem.runtime import Runtime
from remem.staging import STAGED
from remem.staging.generation import read_generation

__all__ = ["CHECKS", "REEMBED_STATE", "Check", "preflight", "refusal"]

REEMBED_STATE = "reembed.json"
"""The file an unfinished ``remem reembed`` keeps in the memory directory."""

CHECKS: dict[str, str] = {
    "extraction-drained": "every recorded turn has been extracted (pending turns are drained "
    "first; the check fails only when extraction cannot finish)",
    "no-background-failures": "no extraction, indexing or access-flush failure is recorded "
    "(a reorganisation would build on half-applied work)",
    "embedding-model": "every active collection was built by the embedder in use",
    "no-reembed-in-progress": "no unfinished `remem reembed` (finish it, or confirm it)",
    "timezone": "the consolidator's calendar days match the episodic store's timezone",
}
"""Check name → what it requires (``/help reorganize`` prints these)."""


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"  [{'ok' if self.ok else 'FAIL'}] {self.name}: {self.detail}"


async def preflight(rt: Runtime) -> list[Check]:
    """Quiesce ``rt`` and run every check in :data:`CHECKS` (in that order)."""
    controller = rt.controller
    await controller.flush_extraction()
    await controller.writes.barrier()
    checks: list[Check] = []
    pending = controller.pending_extraction
    checks.append(
        Check(
            "extraction-drained",
            pending == 0,
            "nothing pending" if pending == 0 else f"{pending} turn(s) still wait for extraction",
        )
    )
    failures = controller.failures()
    checks.append(
        Check(
            "no-background-failures",
            not failures,
            "none recorded"
            if not failures
            else f"{len(failures)} recorded (first: {failures[0].operation}: {failures[0].error}); "
            "inspect and resolve them, then reopen the memory",
        )
    )
    checks.append(await _model_check(rt))
    state = Path(rt.config.path) / REEMBED_STATE
    checks.append(
        Check(
            "no-reembed-in-progress",
            not state.exists(),
            "none"
            if not state.exists()
            else f"{state} exists; run `remem reembed` again to finish it, or `remem reembed "
            "--confirm` to drop the old generation",
        )
    )
    try:
        MemoryConsolidator(controller, timezone=rt.config.timezone)
        checks.append(Check("timezone", True, f"days in {rt.config.timezone}"))
    except ConfigError as exc:
        checks.append(Check("timezone", False, str(exc)))
    return checks


async def _model_check(rt: Runtime) -> Check:
    prefix = read_generation(rt.config.path).prefix
    names = {f"{prefix}_{stage.value}" for stage in STAGED}
    infos = await (await rt.controller.settled()).vectors.list_collections()
    wrong = [
        f"{i.name} ({i.model_name})"
        for i in infos
        if i.name in names and i.model_name != rt.embedder.model_name
    ]
    if wrong:
        return Check(
            "embedding-model",
            False,
            f"{', '.join(wrong)} not built by {rt.embedder.model_name}; run `remem reembed`",
        )
    return Check("embedding-model", True, rt.embedder.model_name)


def refusal(checks: list[Check]) -> str | None:
    """The refusal message naming every failed check, or None when all passed."""
    failed = [c for c in checks if not c.ok]
    if not failed:
        return None
    return "refused: preflight check(s) failed — " + "; ".join(
        f"{c.name}: {c.detail}" for c in failed
    )
