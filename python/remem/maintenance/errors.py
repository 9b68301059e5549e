"""The errors of the maintenance commands; all derive from :class:`RememError`.

RememError
└── MaintenanceError                  a maintenance command refused or failed
    ├── PreflightError                a preflight check refused a mutation (named in it)
    ├── ConfirmationRequiredError     a destructive command was not confirmed
    └── ReembedError                  a re-embed refused or failed; the old generation stays
        └── ReembedValidationError    the new generation failed validation; not switched
"""

from __future__ import annotations

from remem.errors import RememError

__all__ = [
    "ConfirmationRequiredError",
    "MaintenanceError",
    "PreflightError",
    "ReembedError",
    "ReembedValidationError",
]


class MaintenanceError(RememError):
    """A maintenance command refused or failed."""


class PreflightError(MaintenanceError):
    """A preflight check failed; nothing was changed. ``failed`` names the checks."""

    def __init__(self, message: str, failed: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.failed = failed


class ConfirmationRequiredError(MaintenanceError):
    """A destructive command ran without its confirmation (``--yes`` / ``--confirm``)."""


class ReembedError(MaintenanceError):
    """A re-embed refused or failed; the active generation is unchanged."""


class ReembedValidationError(ReembedError):
    """The new generation did not validate (counts, dimension or recall); not switched."""
