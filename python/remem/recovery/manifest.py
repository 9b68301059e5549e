"""The snapshot manifest: what a snapshot holds, written last, read first.

``manifest.json`` lists every participant file with its size, sha256 and table row counts, the
embedding model and dimension of each vector collection, the remem version and the creation
time. A snapshot directory without a valid manifest is not a snapshot (the manifest is written
only after every copy was verified, and the directory renamed into place after that)::

    manifest = Manifest.read(Path("backup"))
    manifest.verify(Path("backup"))        # ChecksumMismatchError on any difference
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from remem.recovery.errors import (
    ChecksumMismatchError,
    IncompatibleSnapshotError,
    ManifestInvalidError,
)

MANIFEST_NAME = "manifest.json"
FORMAT = "remem-snapshot"
FORMAT_VERSION = 1
"""Bumped when the layout of a snapshot changes; restore refuses any other version."""

_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """The hex sha256 of ``path``'s bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class ParticipantEntry:
    """One copied file: its role, how it was copied, and what verifies it."""

    name: str
    """The role: ``transcripts``, ``full-text index``, ``records, graph and blocks``, ..."""
    kind: str
    """``sqlite`` (backup API), ``duckdb`` (checkpoint + copy) or ``file`` (copied as is)."""
    path: str
    """Relative to the memory directory, with ``/`` separators."""
    bytes: int
    sha256: str
    rows: dict[str, int] = field(default_factory=dict)
    """Row count per table (empty for plain files)."""


@dataclass(frozen=True, slots=True)
class EmbeddingEntry:
    collection: str
    model: str
    dimension: int


@dataclass(frozen=True, slots=True)
class Scopes:
    """The namespaces and sessions a memory holds (sorted)."""

    namespaces: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Manifest:
    remem_version: str
    created_at: str
    """ISO 8601, UTC."""
    participants: tuple[ParticipantEntry, ...]
    embeddings: tuple[EmbeddingEntry, ...]
    format_version: int = FORMAT_VERSION
    scopes: Scopes = field(default_factory=Scopes)
    """The namespaces and sessions present (empty in a snapshot written before they were
    recorded: the field is optional, so such snapshots still restore)."""

    def participants_by_path(self) -> dict[str, ParticipantEntry]:
        return {entry.path: entry for entry in self.participants}

    def to_json(self) -> str:
        body: dict[str, Any] = {"format": FORMAT, **asdict(self)}
        return json.dumps(body, indent=2, sort_keys=True) + "\n"

    def write(self, directory: Path) -> None:
        """Write ``manifest.json`` durably (temporary file, fsync, rename)."""
        write_manifest_json(directory, self.to_json())

    @classmethod
    def read(cls, directory: Path) -> Manifest:
        """The manifest of the snapshot in ``directory`` (ManifestInvalidError if none or bad)."""
        raw, file = read_manifest_json(directory, what="snapshot", command="remem snapshot")
        return cls.from_dict(raw, file)

    @classmethod
    def from_dict(cls, raw: object, origin: Path) -> Manifest:
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise ManifestInvalidError(
                f'{origin} is not a remem snapshot manifest (no "format": {FORMAT!r})'
            )
        version = raw.get("format_version")
        if version != FORMAT_VERSION:
            raise IncompatibleSnapshotError(
                f"{origin} has snapshot format version {version!r}; this remem reads version "
                f"{FORMAT_VERSION} — restore it with the remem version that wrote it "
                f"({raw.get('remem_version')!r})"
            )
        try:
            participants = tuple(_participant(p) for p in raw["participants"])
            embeddings = tuple(
                EmbeddingEntry(str(e["collection"]), str(e["model"]), int(e["dimension"]))
                for e in raw["embeddings"]
            )
            scopes = raw.get("scopes") or {}
            manifest = cls(
                remem_version=str(raw["remem_version"]),
                created_at=str(raw["created_at"]),
                participants=participants,
                embeddings=embeddings,
                scopes=Scopes(
                    namespaces=tuple(str(n) for n in scopes.get("namespaces", ())),
                    sessions=tuple(str(x) for x in scopes.get("sessions", ())),
                ),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ManifestInvalidError(
                f"{origin} lacks or mistypes a field ({exc!r}); the snapshot is damaged, "
                "use another"
            ) from exc
        check_inside(origin, participants, what="snapshot")
        return manifest

    def verify(self, directory: Path) -> None:
        """Check that ``directory`` holds exactly the listed files with their sha256."""
        verify_files(directory, self.participants, what="snapshot")

    def check_model(self, model: str, dimension: int) -> None:
        """Refuse if any collection was embedded with another model or dimension."""
        for entry in self.embeddings:
            if (entry.model, entry.dimension) != (model, dimension):
                raise IncompatibleSnapshotError(
                    f"collection {entry.collection!r} was embedded with {entry.model!r} "
                    f"(dimension {entry.dimension}), not {model!r} ({dimension}); open the "
                    "restored directory with that embedder, or re-embed it"
                )


def _participant(raw: dict[str, Any]) -> ParticipantEntry:
    rows = raw.get("rows", {})
    if not isinstance(rows, dict):
        raise TypeError("rows must be an object")
    return ParticipantEntry(
        name=str(raw["name"]),
        kind=str(raw["kind"]),
        path=str(raw["path"]),
        bytes=int(raw["bytes"]),
        sha256=str(raw["sha256"]),
        rows={str(k): int(v) for k, v in rows.items()},
    )


class ListedFile(Protocol):
    """A file a manifest lists: its path relative to the directory and its sha256."""

    @property
    def path(self) -> str: ...
    @property
    def sha256(self) -> str: ...


def write_manifest_json(directory: Path, text: str) -> None:
    """Write ``text`` as ``directory/manifest.json`` durably: a temporary file, fsync, rename —
    a kill leaves the old manifest or none, never half of one."""
    tmp = directory / (MANIFEST_NAME + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(directory / MANIFEST_NAME)


def read_manifest_json(directory: Path, *, what: str, command: str) -> tuple[object, Path]:
    """The parsed ``manifest.json`` of the ``what`` (a snapshot, an export) in ``directory`` and
    the file it came from; ManifestInvalidError naming ``command`` (what writes one) if there is
    none, or naming the file if it is not JSON. The caller checks the content."""
    file = directory / MANIFEST_NAME
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise ManifestInvalidError(
            f"{str(directory)!r} has no {MANIFEST_NAME}, so it is not a complete {what}; "
            f"pass the directory `{command}` wrote"
        ) from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestInvalidError(
            f"{file} cannot be read as JSON ({exc}); the {what} is damaged, use another"
        ) from exc
    return raw, file


def check_inside(origin: object, entries: Sequence[ListedFile], *, what: str) -> None:
    """Refuse a manifest that names a file outside its ``what`` (a snapshot, an export)."""
    for entry in entries:
        rel = Path(entry.path)
        if rel.is_absolute() or ".." in rel.parts or entry.path == MANIFEST_NAME:
            raise ManifestInvalidError(
                f"{origin} names a file outside the {what} ({entry.path!r}); refusing it"
            )


def verify_files(directory: Path, entries: Sequence[ListedFile], *, what: str) -> None:
    """Check that ``directory`` holds exactly ``entries`` with their sha256 (besides the
    manifest itself); ``what`` names the directory in the errors."""
    listed = {entry.path for entry in entries}
    present = {
        p.relative_to(directory).as_posix()
        for p in directory.rglob("*")
        if p.is_file() and p.name != MANIFEST_NAME
    }
    if missing := sorted(listed - present):
        raise ChecksumMismatchError(
            f"{what} {str(directory)!r} lacks {missing}; it is incomplete, use another"
        )
    if extra := sorted(present - listed):
        raise ChecksumMismatchError(
            f"{what} {str(directory)!r} holds files its manifest does not list ({extra}); "
            "it was modified after it was written, use another"
        )
    for entry in entries:
        actual = sha256_file(directory / entry.path)
        if actual != entry.sha256:
            raise ChecksumMismatchError(
                f"{entry.path} in {what} {str(directory)!r} has sha256 {actual[:12]}…, the "
                f"manifest says {entry.sha256[:12]}…; the file was altered or damaged, "
                f"use another {what}"
            )
