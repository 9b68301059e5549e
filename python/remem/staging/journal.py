"""A write-ahead journal for moves between staged collections.

A move copies vectors into the target collection and then deletes them from the source: two
writes that no vector store can make atomic together. The journal records the intent before the
first write and its completion after the second, so a move interrupted at any point (a crash, a
SIGKILL) is found on the next open and rolled forward. Replaying is idempotent: an id already in
the target and gone from the source is left alone.

``FileMoveJournal`` appends fsynced JSON lines to a file (the embedded default keeps it beside
the memory directory's databases); ``MemoryMoveJournal`` is for in-memory stacks, where
a crash loses everything anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from remem.errors import IntegrityError
from remem.models import MemoryStage
from remem.stores.shared.journal_file import JsonLinesJournal


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
    """An append-only JSON-lines journal, fsynced per record (:class:`JsonLinesJournal`).

    Durability: a ``begin`` that returned is on disk (survives power loss), so the move it
    announces is completed on the next open. The file is removed whenever nothing is pending.
    """

    def __init__(self, path: str | Path) -> None:
        self._file = JsonLinesJournal(path, what="move journal")
        self._open = {move.move_id for move in self.pending()}
        if not self._open:
            self._file.remove()

    @property
    def path(self) -> Path:
        return self._file.path

    def begin(self, move: PendingMove) -> None:
        self._open.add(move.move_id)
        self._file.append(
            {
                "op": "begin",
                "move_id": move.move_id,
                "ids": list(move.ids),
                "source": move.source.value,
                "target": move.target.value,
            }
        )

    def commit(self, move_id: str) -> None:
        self._file.append({"op": "commit", "move_id": move_id})
        self._open.discard(move_id)
        if not self._open:
            self._file.remove()

    def pending(self) -> list[PendingMove]:
        moves: dict[str, PendingMove] = {}
        for number, record in enumerate(self._file.records(), start=1):
            try:
                if record["op"] == "begin":
                    moves[record["move_id"]] = PendingMove(
                        move_id=record["move_id"],
                        ids=tuple(record["ids"]),
                        source=MemoryStage(record["source"]),
                        target=MemoryStage(record["target"]),
                    )
                elif record["op"] == "commit":
                    moves.pop(record["move_id"], None)
            except (KeyError, TypeError, ValueError) as exc:
                raise IntegrityError(
                    f"move journal {self.path} has a malformed record {number}; restore it from "
                    "a backup or delete it after checking the staged collections"
                ) from exc
        return list(moves.values())
