"""Maintenance commands: reorganize, lifecycle, migrate, reset and re-embed.

One implementation each, used by the ``remem`` subcommands and the chat's slash commands alike:

* :func:`preview_reorganize` / :func:`execute_reorganize` — :mod:`.reorganize`, preflight
  checks in :mod:`.checks`;
* :func:`run_lifecycle` — :mod:`.lifecycle`;
* :func:`schema_plan` / :func:`apply_migrations` — :mod:`.schema`;
* :func:`describe_reset` / :func:`reset_memory` — :mod:`.reset`;
* :func:`reembed` / :func:`confirm_reembed` — :mod:`.reembed`;
* :func:`snapshot_live` / :func:`export_live` — :mod:`.backup` (a running memory, quiesced).

Every mutation is opt-in (``execute=True``, ``--execute``, ``--yes``, ``--confirm``); previews
change nothing. None of them is a routine fix for missing recall.
"""

from __future__ import annotations

from remem.maintenance.backup import export_live, snapshot_live
from remem.maintenance.checks import CHECKS, Check, preflight
from remem.maintenance.errors import (
    ConfirmationRequiredError,
    MaintenanceError,
    PreflightError,
    ReembedError,
    ReembedValidationError,
)
from remem.maintenance.lifecycle import describe_execution, run_lifecycle
from remem.maintenance.reembed import ReembedResult, confirm_reembed, embedder_for, reembed
from remem.maintenance.reorganize import (
    ReorganizePlan,
    ReorganizeReport,
    execute_reorganize,
    preview_reorganize,
)
from remem.maintenance.reset import describe_reset, reset_memory
from remem.maintenance.schema import ComponentSchema, SchemaPlan, apply_migrations, schema_plan

__all__ = [
    "CHECKS",
    "Check",
    "ComponentSchema",
    "ConfirmationRequiredError",
    "MaintenanceError",
    "PreflightError",
    "ReembedError",
    "ReembedResult",
    "ReembedValidationError",
    "ReorganizePlan",
    "ReorganizeReport",
    "SchemaPlan",
    "apply_migrations",
    "confirm_reembed",
    "describe_execution",
    "describe_reset",
    "embedder_for",
    "execute_reorganize",
    "export_live",
    "preflight",
    "preview_reorganize",
    "reembed",
    "reset_memory",
    "run_lifecycle",
    "schema_plan",
    "snapshot_live",
]
