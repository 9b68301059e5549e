"""Telemetry: the optional observer a MemoryController reports each operation to."""

from __future__ import annotations

from typing import Protocol


class Telemetry(Protocol):
    """Receives one event per controller operation (name, wall seconds, a few counts)."""

    def record(self, operation: str, seconds: float, **fields: object) -> None: ...
