"""Memory lifecycle: decay, promotion and inclusion scoring, stage movement."""

from __future__ import annotations

__all__: list[str] = []
