"""Background failures: recorded, kept and shown by ``MemoryController.failures()``.

Below the engine packages (it imports nothing from remem): the controller, write-behind and
consolidation all record into one :class:`FailureLog`.

Work the caller does not await (extraction, access-count flushes, compensation after a failed
write) must not fail silently. Each failure is kept with what it was about — the turn ids of a
failed extraction, the memory ids of a failed flush — so nothing is lost: the turns stay in the
transcript and can be extracted again.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

log = logging.getLogger("remem.controller")

Operation = Literal[
    "extraction",
    "episodic_index",
    "access_flush",
    "compensation",
    "vector_cleanup",
    "consolidation",
    "write_behind",
]


@dataclass(frozen=True, slots=True)
class BackgroundFailure:
    """One failed background operation: what, when, on which ids, and the error."""

    operation: Operation
    at: datetime
    ids: tuple[str, ...]
    error: BaseException

    @property
    def message(self) -> str:
        return f"{type(self.error).__name__}: {self.error}"

    def __str__(self) -> str:
        ids = ", ".join(self.ids[:5]) + (" …" if len(self.ids) > 5 else "")
        return f"{self.at.isoformat()} {self.operation} [{ids}] {self.message}"


class FailureLog:
    """The most recent ``limit`` failures, oldest first (a bounded log: memory never grows)."""

    def __init__(self, limit: int = 1_000) -> None:
        self._items: deque[BackgroundFailure] = deque(maxlen=limit)
        self.total = 0

    def add(self, failure: BackgroundFailure) -> None:
        self._items.append(failure)
        self.total += 1
        log.warning("background failure: %s", failure)

    def items(self) -> list[BackgroundFailure]:
        return list(self._items)
