"""Recovery contracts: snapshot, restore, portable export/import and quiescence.

* participants — :mod:`remem.recovery.participants` (which file is what, how it is copied, the
  writer lock that makes a copy consistent);
* the manifest — :class:`Manifest` (format version, remem version, participants with row counts
  and sha256, embedding model and dimension per collection, created_at);
* operations — :func:`snapshot`, :func:`restore` (``remem snapshot`` / ``remem restore``);
* errors — :mod:`remem.recovery.errors`;
* portable export — :func:`export_memory`, :func:`import_memory` (``remem export`` / ``remem
  import``): JSON Lines with a manifest, from and to either backend
  (:mod:`remem.recovery.portable`);
* PostgreSQL — :func:`snapshot_postgres`, :func:`restore_postgres` (``remem snapshot --dsn`` /
  ``remem restore --dsn``): a repeatable-read logical export, verified after the restore;
* quiescence — :func:`quiesce` / :meth:`remem.Runtime.quiesce` and the
  :class:`QuiescenceToken` they yield (:mod:`remem.recovery.quiescence`); a token names its
  memory (:func:`memory_identity`) and every operation above that takes ``quiesced=`` refuses
  another memory's token with :class:`ForeignTokenError`.

Supported operations per backend: :data:`SUPPORTED_OPERATIONS`.
"""

from __future__ import annotations

from remem.recovery.errors import (
    ChecksumMismatchError,
    ForeignTokenError,
    IncompatibleSnapshotError,
    ManifestInvalidError,
    RecoveryError,
    TargetNotEmptyError,
    WritersActiveError,
)
from remem.recovery.export_manifest import ExportManifest
from remem.recovery.identity import memory_identity
from remem.recovery.manifest import FORMAT_VERSION, EmbeddingEntry, Manifest, ParticipantEntry
from remem.recovery.portable import export_memory, import_memory, read_export
from remem.recovery.postgres import restore_postgres, snapshot_postgres
from remem.recovery.quiescence import QuiescenceToken, quiesce
from remem.recovery.snapshot import restore, snapshot

SUPPORTED_OPERATIONS: dict[str, frozenset[str]] = {
    "embedded": frozenset({"snapshot", "restore", "export", "import"}),
    "postgres": frozenset({"snapshot", "restore", "export", "import"}),
}
"""What each backend supports, by the name ``RuntimeConfig.backend`` takes."""

__all__ = [
    "FORMAT_VERSION",
    "SUPPORTED_OPERATIONS",
    "ChecksumMismatchError",
    "EmbeddingEntry",
    "ExportManifest",
    "ForeignTokenError",
    "IncompatibleSnapshotError",
    "Manifest",
    "ManifestInvalidError",
    "ParticipantEntry",
    "QuiescenceToken",
    "RecoveryError",
    "TargetNotEmptyError",
    "WritersActiveError",
    "export_memory",
    "import_memory",
    "memory_identity",
    "quiesce",
    "read_export",
    "restore",
    "restore_postgres",
    "snapshot",
    "snapshot_postgres",
]
