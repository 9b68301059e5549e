"""Which entities are duplicates of an older one (pure planning, no I/O).

Within one namespace and one entity type, entities are taken oldest first (``created_at``, then
id); each is compared with the entities kept so far through a :class:`NameIndex` — the
resolver's own rules: an exact match of a normalised name or alias ("Ana", "ana", "Ana ",
"the Ana"), else a fuzzy match at the resolver's threshold after its guards (number/version
tokens must be equal, so "Python 3.11" never meets "Python 3.12"; names of three characters or
fewer match exactly only, so "Ana" stays apart from "Anna"). A match is merged into the older
entity, whose aliases gain the duplicate's name and aliases; otherwise the entity is kept.

Decision: entities of different types never merge (the extractor typed them apart on purpose;
the resolver does the same when given a type). Entities already merged
(``attributes["merged_into"]``) are skipped, so planning again after a merge finds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from remem.graph import normalise
from remem.graph.index import MERGED_INTO, NameIndex
from remem.models import Entity


@dataclass(frozen=True, slots=True)
class MergePlan:
    """``pairs`` maps each duplicate to the id of the entity it merges into; ``kept`` holds the
    kept entities that gained aliases, as they should be written."""

    pairs: tuple[tuple[Entity, str], ...]
    kept: dict[str, Entity]

    @property
    def target(self) -> dict[str, str]:
        return {dup.id: kept_id for dup, kept_id in self.pairs}


def plan_merges(entities: Iterable[Entity], *, threshold: float, now: datetime) -> MergePlan:
    by_group: dict[tuple[str, str], list[Entity]] = {}
    for e in entities:
        if not e.attributes.get(MERGED_INTO):
            by_group.setdefault((e.namespace, e.entity_type), []).append(e)
    pairs: list[tuple[Entity, str]] = []
    changed: dict[str, Entity] = {}
    for group in sorted(by_group):
        index = NameIndex()
        kept: dict[str, Entity] = {}
        for e in sorted(by_group[group], key=lambda x: (x.created_at, x.id)):
            name_key = normalise(e.name)
            keys = [k for k in (name_key, *map(normalise, e.aliases)) if k]
            matches = next((m for k in keys if (m := index.exact(k, e.entity_type))), [])
            if not matches and name_key:
                matches = index.fuzzy(name_key, e.entity_type, threshold)
            if not matches:
                kept[e.id] = e
                index.add(e)
                continue
            target = kept[matches[0].entity_id]
            grown = with_aliases(target, (e.name, *e.aliases), now)
            kept[target.id] = grown
            if grown is not target:
                changed[target.id] = grown
                index.add(grown)
            pairs.append((e, target.id))
    return MergePlan(tuple(pairs), changed)


def with_aliases(entity: Entity, names: Iterable[str], now: datetime) -> Entity:
    """``entity`` with each name whose normalised form it does not know yet as an alias."""
    known = {normalise(entity.name), *(normalise(a) for a in entity.aliases)}
    added: list[str] = []
    for name in names:
        key, alias = normalise(name), name.strip()
        if key and alias and key not in known:
            known.add(key)
            added.append(alias)
    if not added:
        return entity
    return Entity(**{**dict(entity), "aliases": (*entity.aliases, *added), "updated_at": now})
