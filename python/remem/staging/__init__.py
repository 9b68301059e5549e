"""Staged semantic collections (short-term, long-term, decayed) and crash-safe moves."""

from __future__ import annotations

from remem.staging.journal import FileMoveJournal, MemoryMoveJournal, MoveJournal, PendingMove
from remem.staging.manager import (
    SEMANTIC_FLOORS,
    STAGED,
    CollectionManager,
    StagedMatch,
    StagedScore,
    StagingConfig,
    record_metadata,
)

__all__ = [
    "SEMANTIC_FLOORS",
    "STAGED",
    "CollectionManager",
    "FileMoveJournal",
    "MemoryMoveJournal",
    "MoveJournal",
    "PendingMove",
    "StagedMatch",
    "StagedScore",
    "StagingConfig",
    "record_metadata",
]
