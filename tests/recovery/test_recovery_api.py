"""``remem.recovery``'s public names: pinned, sorted, and every one resolves."""

from __future__ import annotations

import remem.recovery as recovery

PINNED = [
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


def test_all_is_pinned_and_resolves() -> None:
    assert recovery.__all__ == PINNED
    for name in recovery.__all__:
        assert getattr(recovery, name) is not None


def test_every_backend_lists_its_operations() -> None:
    for backend in ("embedded", "postgres"):
        assert recovery.SUPPORTED_OPERATIONS[backend] == {"snapshot", "restore", "export", "import"}
