"""An append-only, fsynced JSON-lines file: the storage of remem's write-ahead journals.

The move journal (:mod:`remem.staging.journal`) and the lifecycle plan journal
(:mod:`remem.lifecycle.plan_journal`) both record an intent before writing two stores that no
transaction spans, and its completion afterwards. This file is what they share: each record is
one JSON line, flushed and fsynced before ``append`` returns (so it survives power loss); a torn
last line is an append that never returned — nothing was written to a store after it — and is
ignored; any other unreadable line is corruption and raises IntegrityError.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from remem.errors import BackendError, IntegrityError


class JsonLinesJournal:
    """``append`` fsynced JSON records to ``path``; ``records`` reads them back in order.

    ``what`` names the journal in error messages ("move journal", "plan journal").
    """

    def __init__(self, path: str | Path, *, what: str) -> None:
        self.path = Path(path)
        self.what = what
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with self._lock:
            try:
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(line)
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise BackendError(
                    f"could not write the {self.what} {self.path}: {exc}; check disk space "
                    "and permissions"
                ) from exc

    def records(self) -> list[dict[str, Any]]:
        """Every complete record, oldest first ([] when the file does not exist)."""
        if not self.path.exists():
            return []
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise BackendError(f"could not read the {self.what} {self.path}: {exc}") from exc
        out: list[dict[str, Any]] = []
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise TypeError("not a JSON object")
            except (json.JSONDecodeError, TypeError) as exc:
                if number == len(lines):
                    break  # a torn final append: nothing was written to a store after it
                raise IntegrityError(
                    f"{self.what} {self.path} is corrupt at line {number}; restore it from a "
                    "backup, or delete it after checking the stores it protects"
                ) from exc
            out.append(record)
        return out

    def remove(self) -> None:
        """Delete the file (when nothing is pending), so it never grows without bound."""
        with self._lock:
            self.path.unlink(missing_ok=True)
