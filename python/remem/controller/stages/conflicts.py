"""Conflicting values of one keyed fact: the newest wins, whatever recency's bound allows.

Bounding recency (:mod:`remem.controller.stages.recency`) means an old value of a fact is no
longer pushed out of the ranking by age alone — which is what kept "lives in Porto" out of the
prompt once "moved to Lisbon" was said. So among the ranked memories that are keyed facts
(``metadata`` ``subject`` + ``attribute``, as :func:`remem.controller.extraction_apply.fact_key`
writes them) with the same key and *different* ``value``\\ s, the newest takes the group's best
score and every older one is capped at ``stale_factor`` × that score. Memories without a key,
or with one value only, are untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from remem.errors import ConfigError

__all__ = ["ConflictConfig", "Keyed", "resolve_conflicts"]


@dataclass(frozen=True)
class ConflictConfig:
    """``enabled``; ``stale_factor``: an older value's cap, as a share of the newest's score."""

    enabled: bool = True
    stale_factor: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"conflicts.enabled must be true or false, got {self.enabled!r}")
        if not (isinstance(self.stale_factor, int | float) and 0.0 <= self.stale_factor <= 1.0):
            raise ConfigError(f"conflicts.stale_factor is {self.stale_factor!r}; use 0..1")


@dataclass(frozen=True, slots=True)
class Keyed:
    """A ranked item's key, score, creation time and metadata (its keyed-fact fields)."""

    key: str
    score: float
    created_at: datetime
    metadata: Mapping[str, object]


def _fact(meta: Mapping[str, object]) -> tuple[str, str] | None:
    subject, attribute = meta.get("subject"), meta.get("attribute")
    if isinstance(subject, str) and isinstance(attribute, str) and "value" in meta:
        return subject.strip().lower(), attribute.strip().lower()
    return None


def resolve_conflicts(items: Sequence[Keyed], config: ConflictConfig) -> dict[str, float]:
    """The factor each item's score is multiplied by (only items that change are listed)."""
    if not config.enabled:
        return {}
    groups: dict[tuple[str, str], list[Keyed]] = {}
    for item in items:
        fact = _fact(item.metadata)
        if fact is not None:
            groups.setdefault(fact, []).append(item)
    out: dict[str, float] = {}
    for members in groups.values():
        if len({repr(m.metadata.get("value")).lower() for m in members}) < 2:
            continue
        newest = max(members, key=lambda m: (m.created_at, m.key))
        best = max(m.score for m in members)
        if newest.score > 0 and best > newest.score:
            out[newest.key] = best / newest.score
        cap = config.stale_factor * best
        for m in members:
            if m is not newest and m.score > cap:
                out[m.key] = cap / m.score if m.score > 0 else 0.0
    return out
