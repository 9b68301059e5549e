"""A write-ahead journal for moves between staged collections.

A move copies vectors into the target collection and then deletes them from the source: two
writes that no vector store can make atomic together. The journal records the intent before the
first write and its completion after the second, so a move interrupted at any point (a crash, a
SIGKILL) is found on the next open and rolled forward. Replaying is idempotent: an id already in
the target and gone from the source is left alone.

``FileMoveJournal`` appends JSON lines to a file and fsyncs each record (the embedded default keeps
it beside the memory directory's databases); ``MemoryMoveJournal`` is for in-memory stacks, where
a crash loses everything anyway.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from remem.errors import BackendError, IntegrityError
from remem.models import MemoryStage


@dataclass(frozen=True, slots=True)
class PendingMove:
    move_id: str
    ids: tuple[str, ...]
    source: MemoryStage
    target: MemoryStage


@runtime_checkable
class MoveJournal(Protocol):
    def begin(self, move: PendingMove) -> None: ...
    def commit(self, move_id: str) -> None: ...
    def pending(self) -> list[PendingMove]: ...


class MemoryMoveJournal:
    """Keeps pending moves in process memory (no durability; for in-memory stacks and tests)."""

    def __init__(self) -> None:
        self._pending: dict[str, PendingMove] = {}

    def begin(self, move: PendingMove) -> None:
        self._pending[move.move_id] = move

    def commit(self, move_id: str) -> None:
        self._pending.pop(move_id, None)

    def pending(self) -> list[PendingMove]:
        return list(self._pending.values())


class FileMoveJournal:
    """An append-only JSON-lines journal, fsynced per record.

    Durability: a ``begin`` that returned is on disk (survives power loss), so the move it
    announces is completed on the next open. The file is compacted (rewritten with only pending
    moves, then renamed over the old one) when it is opened with nothing pending.
    """

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        self._lock = threading.Lock()
        self._path.parent.mkdir(parents=True, exist_ok=True)
        if not self.pending() and self._path.exists():
            self._path.unlink()

    def _append(self, record: dict[str, object]) -> None:
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with self._lock:
            try:
                with open(self._path, "a", encoding="utf-8") as fh:
                    fh.write(line)
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise BackendError(
                    f"could not write the move journal {self._path}: {exc}; check disk space "
                    "and permissions"
                ) from exc

    def begin(self, move: PendingMove) -> None:
        self._append(
            {
                "op": "begin",
                "move_id": move.move_id,
                "ids": list(move.ids),
                "source": move.source.value,
                "target": move.target.value,
            }
        )

    def commit(self, move_id: str) -> None:
        self._append({"op": "commit", "move_id": move_id})

    def pending(self) -> list[PendingMove]:
        if not self._path.exists():
            return []
        moves: dict[str, PendingMove] = {}
        lines = self._path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                if number == len(lines):
                    # A torn last line is a begin that never returned: no write followed it.
                    break
                raise IntegrityError(
                    f"move journal {self._path} is corrupt at line {number}; restore it from "
                    "a backup or delete it after checking the staged collections"
                ) from exc
            if record.get("op") == "begin":
                moves[record["move_id"]] = PendingMove(
                    move_id=record["move_id"],
                    ids=tuple(record["ids"]),
                    source=MemoryStage(record["source"]),
                    target=MemoryStage(record["target"]),
                )
            elif record.get("op") == "commit":
                moves.pop(record["move_id"], None)
        return list(moves.values())
