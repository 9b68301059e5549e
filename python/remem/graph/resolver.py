"""EntityResolver: map a surface name from extraction onto an existing entity, or propose one.

Resolution order, within one namespace and an entity type (``None`` = any type):

1. **exact** — the normalised name (:func:`remem.graph.names.normalise`) equals an entity's
   normalised name (``how="name"``) or one of its aliases (``how="alias"``);
2. **fuzzy** — rapidfuzz max(``ratio``, ``token_sort_ratio``) ≥ ``threshold`` (default 90)
   against the names and aliases in the same blocking group, *after* the guards: number/version
   tokens equal as a multiset ("Python 3.11" never becomes "Python 3.12"), names of ≤ 3
   characters exact only ("Ana" ≠ "Anna"), and an entity of another type is never a candidate;
3. **new** — a deterministic id ``ent-`` + sha256(namespace, type, normalised name)[:24], so the
   same name extracted twice proposes the same entity.

Why not ``WRatio``: it takes the best *partial* alignment, so "Ana" ~ "Anastasia" and "Python" ~
"Python Software Foundation" score ≥ 90 and would merge. Whole-string scores only forgive typos
and word order: ``token_sort_ratio`` ("Smith John" = "John Smith", "Jonathan" ~ "Johnathan" at
94; "Maria" ~ "Mario" is 80, so they stay apart), and plain ``ratio`` for a typo that reorders the
sorted words ("Rui antos" ~ "Rui Santos"). See :func:`remem.graph.index.best_match`.

Candidates come from a per-namespace :class:`NameIndex`, loaded once from ``list_entities`` on
first use and kept current by :meth:`upsert_resolved`; writes by anyone else become visible after
:meth:`refresh`. ``resolve`` itself writes nothing, so it is idempotent.

    resolver = EntityResolver(graph)
    found = await resolver.resolve("python 3.11", "language")
    entities = await resolver.upsert_resolved([found])
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from remem.errors import ConfigError, InvalidArgumentError
from remem.graph.index import IndexMatch, NameIndex
from remem.graph.names import normalise
from remem.models import Clock, Entity, ProvenanceMetadata, SystemClock, check_text
from remem.stores.graph import GraphStore

DEFAULT_THRESHOLD = 90.0
"""Similarity (0..100) a fuzzy match must reach; 90 forgives about one edit in ten letters."""
UNTYPED = "thing"
"""The type given to a new entity resolved without one (the Entity model's default)."""

MatchKind = Literal["name", "alias", "fuzzy", "new"]


@dataclass(frozen=True, slots=True)
class ResolvedEntity:
    """The outcome of :meth:`EntityResolver.resolve`.

    ``how`` is ``name``/``alias`` (exact, score 100), ``fuzzy`` (score = token_sort_ratio, ``key``
    the matched normalised name or alias) or ``new`` (score 0, ``entity_id`` proposed).
    """

    surface: str
    normalised: str
    entity_id: str
    entity_type: str
    namespace: str
    how: MatchKind
    score: float
    key: str

    @property
    def is_new(self) -> bool:
        return self.how == "new"


def entity_id_for(namespace: str, entity_type: str, normalised: str) -> str:
    """The deterministic id of a new entity: stable across processes and runs."""
    digest = hashlib.sha256("\x1f".join((namespace, entity_type, normalised)).encode("utf-8"))
    return "ent-" + digest.hexdigest()[:24]


class EntityResolver:
    """Resolves surface names to entities of a :class:`GraphStore` (see the module docstring)."""

    def __init__(
        self,
        graph_store: GraphStore,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        clock: Clock | None = None,
    ) -> None:
        if isinstance(threshold, bool) or not 0.0 < float(threshold) <= 100.0:
            raise ConfigError(f"threshold must be in (0, 100], got {threshold!r}")
        self._store = graph_store
        self.threshold = float(threshold)
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._indexes: dict[str, NameIndex] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def index(self, namespace: str = "default") -> NameIndex:
        """The namespace's name index, loaded from the store on first use."""
        found = self._indexes.get(namespace)
        if found is not None:
            return found
        lock = self._locks.setdefault(namespace, asyncio.Lock())
        async with lock:
            found = self._indexes.get(namespace)
            if found is None:
                found = NameIndex()
                found.add_all(await self._store.list_entities(namespace=namespace))
                self._indexes[namespace] = found
            return found

    async def refresh(self, namespace: str = "default") -> None:
        """Drop the cached index so the next call reloads it (after writes by someone else)."""
        self._indexes.pop(namespace, None)

    async def resolve(
        self, name: str, entity_type: str | None = None, namespace: str = "default"
    ) -> ResolvedEntity:
        """Find the entity ``name`` refers to, or propose a new one. Writes nothing."""
        key = _checked_key(name)
        idx = await self.index(namespace)
        matches = idx.exact(key, entity_type) or idx.fuzzy(key, entity_type, self.threshold)
        if matches:
            return _resolved(name, key, namespace, matches[0])
        etype = entity_type if entity_type is not None else UNTYPED
        return ResolvedEntity(
            name, key, entity_id_for(namespace, etype, key), etype, namespace, "new", 0.0, key
        )

    async def upsert_resolved(
        self,
        candidates: Sequence[ResolvedEntity],
        *,
        provenance: ProvenanceMetadata | None = None,
    ) -> list[Entity]:
        """Write resolutions: merge into existing entities (the surface form becomes an alias when
        its normalised form is new to the entity) or create the proposed ones. One upsert call;
        returns the written entities in order of first appearance. ``provenance`` is set on new
        entities only."""
        if not candidates:
            return []
        order = list(dict.fromkeys((c.namespace, c.entity_id) for c in candidates))
        existing_ids = [
            eid for ns, eid in order if (await self.index(ns)).entity_type(eid) is not None
        ]
        current = {e.id: e for e in await self._store.get_entities(existing_ids)}
        now = self._clock.now()
        merged: dict[tuple[str, str], Entity] = {}
        for c in candidates:
            ref = (c.namespace, c.entity_id)
            base = merged.get(ref) or current.get(c.entity_id)
            if base is None:
                merged[ref] = Entity(
                    id=c.entity_id,
                    name=c.surface.strip() or c.surface,
                    entity_type=c.entity_type,
                    namespace=c.namespace,
                    provenance=provenance or ProvenanceMetadata(),
                    created_at=now,
                    updated_at=now,
                )
            else:
                merged[ref] = _with_alias(base, c.surface, now)
        written = [merged[ref] for ref in order]
        await self._store.upsert_entities(written)
        for e in written:
            (await self.index(e.namespace)).add(e)
        return written


def _checked_key(name: str) -> str:
    if not isinstance(name, str):
        raise InvalidArgumentError(f"resolve takes a name string, got {type(name).__name__}")
    key = normalise(check_text(name, field="name"))
    if not key:
        raise InvalidArgumentError(
            f"name {name!r} is empty after normalisation; pass a name with letters or digits"
        )
    return key


def _resolved(name: str, key: str, namespace: str, m: IndexMatch) -> ResolvedEntity:
    return ResolvedEntity(name, key, m.entity_id, m.entity_type, namespace, m.how, m.score, m.key)


def _with_alias(entity: Entity, surface: str, now: datetime) -> Entity:
    known = {normalise(entity.name), *(normalise(a) for a in entity.aliases)}
    alias = surface.strip()
    if not alias or normalise(alias) in known:
        return entity
    # Re-validated (not model_copy) so a hand-built ResolvedEntity cannot smuggle in bad text.
    return Entity(**{**dict(entity), "aliases": (*entity.aliases, alias), "updated_at": now})
