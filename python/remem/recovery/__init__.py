"""Recovery contracts: snapshot and restore of an embedded memory directory.

* participants — :mod:`remem.recovery.participants` (which file is what, how it is copied, the
  writer lock that makes a copy consistent);
* the manifest — :class:`Manifest` (format version, remem version, participants with row counts
  and sha256, embedding model and dimension per collection, created_at);
* operations — :func:`snapshot`, :func:`restore` (``remem snapshot`` / ``remem restore``);
* errors — :mod:`remem.recovery.errors`.

Supported operations per backend: the embedded default supports snapshot and restore; PostgreSQL
supports neither yet (use ``pg_dump``).
"""

from __future__ import annotations

from remem.recovery.errors import (
    ChecksumMismatchError,
    IncompatibleSnapshotError,
    ManifestInvalidError,
    RecoveryError,
    TargetNotEmptyError,
    WritersActiveError,
)
from remem.recovery.export_manifest import ExportManifest
from remem.recovery.manifest import FORMAT_VERSION, EmbeddingEntry, Manifest, ParticipantEntry
from remem.recovery.portable import export_memory, import_memory, read_export
from remem.recovery.snapshot import restore, snapshot

SUPPORTED_OPERATIONS: dict[str, frozenset[str]] = {
    "embedded": frozenset({"snapshot", "restore"}),
    "postgres": frozenset(),
}
"""What each backend supports, by the name ``RuntimeConfig.backend`` takes."""

__all__ = [
    "FORMAT_VERSION",
    "SUPPORTED_OPERATIONS",
    "ChecksumMismatchError",
    "EmbeddingEntry",
    "ExportManifest",
    "IncompatibleSnapshotError",
    "Manifest",
    "ManifestInvalidError",
    "ParticipantEntry",
    "RecoveryError",
    "TargetNotEmptyError",
    "WritersActiveError",
    "export_memory",
    "import_memory",
    "read_export",
    "restore",
    "snapshot",
]
