"""The categorical errors of snapshot and restore; each says what was wrong and what to do.

::

    RememError
    └── RecoveryError                   a snapshot or restore was refused or failed
        ├── WritersActiveError          a process (or a Runtime in this one) has the directory open
        ├── ForeignTokenError           the quiescence token given holds another memory still
        ├── ManifestInvalidError        no manifest, or one that does not parse / lacks a field
        ├── ChecksumMismatchError       a snapshot file is missing, extra, or its sha256 differs
        ├── IncompatibleSnapshotError   another format version, or another embedding model
        └── TargetNotEmptyError         restore into a non-empty directory without ``force``
"""

from __future__ import annotations

from remem.errors import RememError

__all__ = [
    "ChecksumMismatchError",
    "ForeignTokenError",
    "IncompatibleSnapshotError",
    "ManifestInvalidError",
    "RecoveryError",
    "TargetNotEmptyError",
    "WritersActiveError",
]


class RecoveryError(RememError):
    """A snapshot or restore was refused or failed; nothing was marked complete."""


class WritersActiveError(RecoveryError):
    """The memory directory is open for writing; close its Runtime (or process) first."""


class ForeignTokenError(RecoveryError):
    """The quiescence token names another memory than the one the operation was given; pass
    the token of that memory's own Runtime (``async with rt.quiesce()``), or none."""


class ManifestInvalidError(RecoveryError):
    """The snapshot's manifest is missing or malformed."""


class ChecksumMismatchError(RecoveryError):
    """A snapshot file does not match its manifest entry."""


class IncompatibleSnapshotError(RecoveryError):
    """The snapshot was written in another format version or with another embedding model."""


class TargetNotEmptyError(RecoveryError):
    """The restore target holds files and ``force`` was not given."""
