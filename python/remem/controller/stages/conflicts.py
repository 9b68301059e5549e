"""Conflicting values of one keyed fact: the newest wins, whatever recency's bound allows.

Bounding recency (:mod:`remem.controller.stages.recency`) means an old value of a fact is no
longer pushed out of the ranking by age alone — which is what kept "lives in Porto" out of the
prompt once "moved to Lisbon" was said. So among the ranked memories that are keyed facts
(``metadata`` ``subject`` + ``attribute``, as :func:`remem.controller.extraction_apply.fact_key`
writes them) with the same key and *different* ``value``\\ s, the newest takes the group's best
score and every older one is capped at ``stale_factor`` × that score. Memories without a key,
or with one value only, are untouched.

"Newest" is by validity time — ``valid_from`` when known, else creation — as supersession
orders values (:mod:`remem.consolidation.contradictions`): "I lived in Faro in 2019", said today,
is older than the current city. Only a *single-valued* attribute
(:data:`remem.extraction.vocabulary.SINGLE_VALUED`) conflicts: two dogs, two hobbies, two
siblings all stand. An ending of a value (``operation = "end"``: "Sam and I split up") is a
different statement from the value itself, so a newer ending caps the older "partner Sam". An
ending stays true when another value follows it ("broke up with Rui", then "partner Elena"):
only a later statement of the value it ended ("Sam and I are back together") makes it stale, so
"Who was I with before Elena?" still finds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from remem.errors import ConfigError
from remem.extraction.vocabulary import SINGLE_VALUED
from remem.models.keyed_facts import normalize_key_part

__all__ = ["ConflictConfig", "Keyed", "keyed_fact", "resolve_conflicts"]


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
    """A ranked item's key, score, creation time, metadata (its keyed-fact fields) and
    ``valid_from`` (when the value started to hold; None: since ``created_at``)."""

    key: str
    score: float
    created_at: datetime
    metadata: Mapping[str, object]
    valid_from: datetime | None = None

    @property
    def held_from(self) -> datetime:
        """When the stated value started to hold."""
        return self.valid_from if self.valid_from is not None else self.created_at


def _fact(meta: Mapping[str, object]) -> tuple[str, str] | None:
    """(subject, attribute) of a keyed fact of a single-valued attribute, else None."""
    subject, attribute = meta.get("subject"), meta.get("attribute")
    if isinstance(subject, str) and isinstance(attribute, str) and "value" in meta:
        attribute = normalize_key_part(attribute)
        if attribute in SINGLE_VALUED:
            return normalize_key_part(subject), attribute
    return None


def keyed_fact(meta: Mapping[str, object]) -> bool:
    """Whether an item with this metadata can conflict at all (a keyed fact of a single-valued
    attribute): :func:`resolve_conflicts` never changes any other item's score."""
    return _fact(meta) is not None


def _statement(meta: Mapping[str, object]) -> tuple[str, bool]:
    """What a keyed fact says: its value (case-folded) and whether it ends that value."""
    return repr(meta.get("value")).casefold(), meta.get("operation") == "end"


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
        if len({_statement(m.metadata) for m in members}) < 2:
            continue
        newest = max(members, key=lambda m: (m.held_from, m.created_at, m.key))
        best = max(m.score for m in members)
        if newest.score > 0 and best > newest.score:
            out[newest.key] = best / newest.score
        cap = config.stale_factor * best
        for m in members:
            if m is not newest and m.score > cap and not _still_true(m, members):
                out[m.key] = cap / m.score if m.score > 0 else 0.0
    return out


def _still_true(item: Keyed, members: Sequence[Keyed]) -> bool:
    """An ending that no later statement of the value it ended contradicts (module docstring)."""
    value, ends = _statement(item.metadata)
    if not ends:
        return False
    return not any(
        _statement(m.metadata) == (value, False) and m.held_from > item.held_from for m in members
    )
