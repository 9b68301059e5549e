"""The manifest of a portable export: written last, read and verified first.

``manifest.json`` lists every JSON Lines file with its row count, size and sha256, the vector
collections (model, dimension, metric, items), the scopes present (namespaces and sessions),
the backend it came from, the remem version and the creation time::

    manifest = ExportManifest.read(Path("memory.export"))
    manifest.verify(Path("memory.export"))     # ChecksumMismatchError on any difference
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from remem.recovery.errors import (
    IncompatibleSnapshotError,
    ManifestInvalidError,
)
from remem.recovery.manifest import (
    Scopes,
    check_inside,
    read_manifest_json,
    verify_files,
    write_manifest_json,
)

EXPORT_FORMAT = "remem-export"
EXPORT_FORMAT_VERSION = 1
"""Bumped when the portable layout changes; import refuses any other version."""


@dataclass(frozen=True, slots=True)
class ExportFile:
    """One JSON Lines file of the export."""

    path: str
    """Relative to the export directory: ``tables/<table>.jsonl`` or ``vectors/<n>.jsonl``."""
    rows: int
    bytes: int
    sha256: str


@dataclass(frozen=True, slots=True)
class ExportCollection:
    """A vector collection: its identity, and the file holding its items (when exported)."""

    name: str
    model: str
    dimension: int
    metric: str
    items: int
    path: str | None = None


@dataclass(frozen=True, slots=True)
class ExportManifest:
    remem_version: str
    created_at: str
    """ISO 8601, UTC."""
    source: str
    """The backend exported: ``embedded`` or ``postgres``."""
    vectors: bool
    """Whether the vectors were exported (else an import re-embeds)."""
    files: tuple[ExportFile, ...]
    collections: tuple[ExportCollection, ...]
    scopes: Scopes = field(default_factory=Scopes)
    format_version: int = EXPORT_FORMAT_VERSION

    def file(self, path: str) -> ExportFile:
        for entry in self.files:
            if entry.path == path:
                return entry
        raise ManifestInvalidError(f"the export manifest does not list {path!r}; it is damaged")

    def to_json(self) -> str:
        body: dict[str, Any] = {"format": EXPORT_FORMAT, **asdict(self)}
        return json.dumps(body, indent=2, sort_keys=True) + "\n"

    def write(self, directory: Path) -> None:
        """Write ``manifest.json`` durably (temporary file, fsync, rename)."""
        write_manifest_json(directory, self.to_json())

    @classmethod
    def read(cls, directory: Path) -> ExportManifest:
        """The manifest of the export in ``directory`` (ManifestInvalidError if none or bad)."""
        raw, file = read_manifest_json(directory, what="export", command="remem export")
        return cls.from_dict(raw, file)

    @classmethod
    def from_dict(cls, raw: object, origin: Path) -> ExportManifest:
        if not isinstance(raw, dict) or raw.get("format") != EXPORT_FORMAT:
            raise ManifestInvalidError(
                f'{origin} is not a remem export manifest (no "format": {EXPORT_FORMAT!r})'
            )
        version = raw.get("format_version")
        if version != EXPORT_FORMAT_VERSION:
            raise IncompatibleSnapshotError(
                f"{origin} has export format version {version!r}; this remem reads version "
                f"{EXPORT_FORMAT_VERSION} — import it with the remem version that wrote it "
                f"({raw.get('remem_version')!r})"
            )
        try:
            files = tuple(
                ExportFile(str(f["path"]), int(f["rows"]), int(f["bytes"]), str(f["sha256"]))
                for f in raw["files"]
            )
            collections = tuple(
                ExportCollection(
                    name=str(c["name"]),
                    model=str(c["model"]),
                    dimension=int(c["dimension"]),
                    metric=str(c["metric"]),
                    items=int(c["items"]),
                    path=None if c.get("path") is None else str(c["path"]),
                )
                for c in raw["collections"]
            )
            scopes = Scopes(
                namespaces=tuple(str(n) for n in raw["scopes"]["namespaces"]),
                sessions=tuple(str(s) for s in raw["scopes"]["sessions"]),
            )
            manifest = cls(
                remem_version=str(raw["remem_version"]),
                created_at=str(raw["created_at"]),
                source=str(raw["source"]),
                vectors=bool(raw["vectors"]),
                files=files,
                collections=collections,
                scopes=scopes,
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ManifestInvalidError(
                f"{origin} lacks or mistypes a field ({exc!r}); the export is damaged, use another"
            ) from exc
        check_inside(origin, files, what="export")
        return manifest

    def verify(self, directory: Path) -> None:
        """Check that ``directory`` holds exactly the listed files with their sha256."""
        verify_files(directory, self.files, what="export")
