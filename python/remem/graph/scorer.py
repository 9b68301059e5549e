"""GraphScorer: rank the graph paths that start at the entities a query names.

For the neighbours (``graph_store.neighbours(starts, depth, at)``: superseded and expired
relationships already excluded by the store) of the matched entities, each path gets::

    score = match × hop_decay^(depth-1) × relevance × usage

* ``match`` — the start entity's best mention score / 100 (exact 1.0, fuzzy 0.9..1.0);
* ``hop_decay`` — 0.5 by default: a two-hop fact counts half a direct one;
* ``relevance`` — ``floor + (1 - floor) × overlap`` with ``overlap`` the fraction of the path's
  words (relation types split on ``_``, names of the entities after the start) that the query
  also contains, stop words removed; ``floor`` (0.5) keeps a fact the query does not echo but that
  hangs off a named entity;
* ``usage`` — ``1 + usage_weight × min(1, log1p(access_count) / log1p(usage_cap))``: at most ×1.1
  by default. It measures how often the entity was recalled — usage, not truth — so it only breaks
  near-ties, it never outranks relevance.

Hits render as text for context assembly: ``Ana —sister_of→ Maria (since 2024-05-01)``.

    hits = await GraphScorer(graph).score(query, await matcher.match(query), at=now)
    lines = [fact for hit in hits for fact in hit.facts()]
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from remem.errors import ConfigError
from remem.graph.query_matcher import STOP_WORDS, EntityMention
from remem.models import Clock, Entity, Relationship, SystemClock
from remem.stores.graph import GraphStore, Neighbour

_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class GraphScorerConfig:
    """Weights of :class:`GraphScorer`; validated on construction."""

    depth: int = 2
    hop_decay: float = 0.5
    relevance_floor: float = 0.5
    usage_weight: float = 0.1
    usage_cap: int = 100
    limit: int = 20

    def __post_init__(self) -> None:
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1:
            raise ConfigError(f"depth must be an integer ≥ 1, got {self.depth!r}")
        for name in ("hop_decay", "relevance_floor", "usage_weight"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"{name} must be within [0, 1], got {value!r}")
        if self.usage_cap < 1 or self.limit < 1:
            raise ConfigError(
                f"usage_cap and limit must be ≥ 1, got {self.usage_cap!r} and {self.limit!r}"
            )


@dataclass(frozen=True, slots=True)
class GraphHit:
    """An entity reached from a query entity: the path (start → … → entity) and its score."""

    entity: Entity
    start: Entity
    nodes: tuple[Entity, ...]
    path: tuple[Relationship, ...]
    score: float
    explanation: str

    @property
    def depth(self) -> int:
        return len(self.path)

    def facts(self) -> list[str]:
        """One line per relationship on the path, e.g. ``Ana —sister_of→ Maria (since …)``."""
        names = {e.id: e.name for e in self.nodes}
        return [render_relationship(r, names) for r in self.path]


def render_relationship(rel: Relationship, names: Mapping[str, str]) -> str:
    """``Source —type→ Target`` plus its validity: ``(since 2024-05-01)``, ``(until …)`` or
    ``(2024-05-01 to 2025-01-01)``; ids stand in for unknown names."""
    text = f"{names.get(rel.source_id, rel.source_id)} —{rel.relation_type}→ "
    text += names.get(rel.target_id, rel.target_id)
    since = rel.valid_from.date().isoformat() if rel.valid_from else None
    until = rel.valid_to.date().isoformat() if rel.valid_to else None
    if since and until:
        return f"{text} ({since} to {until})"
    if since:
        return f"{text} (since {since})"
    return f"{text} (until {until})" if until else text


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if w not in STOP_WORDS}


class GraphScorer:
    """Scores graph paths against a query (see the module docstring for the formula)."""

    def __init__(
        self,
        graph_store: GraphStore,
        config: GraphScorerConfig | None = None,
        *,
        clock: Clock | None = None,
    ) -> None:
        self._store = graph_store
        self.config = config if config is not None else GraphScorerConfig()
        self._clock: Clock = clock if clock is not None else SystemClock()

    async def score(
        self,
        query: str,
        mentions: Sequence[EntityMention],
        *,
        at: datetime | None = None,
        limit: int | None = None,
    ) -> list[GraphHit]:
        """Ranked hits (best first, ties by entity id), at most ``limit`` (config default);
        relationships valid at ``at`` (default: the clock's now)."""
        cfg = self.config
        when = at if at is not None else self._clock.now()
        match: dict[str, float] = {}
        for mention in mentions:
            best = max(match.get(mention.entity_id, 0.0), mention.score / 100.0)
            match[mention.entity_id] = best
        if not match:
            return []
        neighbours = await self._store.neighbours(list(match), depth=cfg.depth, at=when)
        if not neighbours:
            return []
        entities = {e.id: e for e in await self._store.get_entities(list(match))}
        entities.update((n.entity.id, n.entity) for n in neighbours)
        rels = await self._path_relationships(match, neighbours, cfg.depth, when)
        query_words = _words(query)
        hits = []
        for n in neighbours:
            if not all(i in rels for i in n.path):
                continue  # a relationship on the path ended between the two reads (superseded)
            path = tuple(rels[i] for i in n.path)
            nodes = _walk(path, match, entities)
            later = nodes[1:]
            words = set().union(
                *(_words(r.relation_type) for r in path),
                *(_words(" ".join((e.name, *e.aliases))) for e in later),
            )
            shared = sorted(words & query_words)
            overlap = len(shared) / len(words) if words else 0.0
            relevance = cfg.relevance_floor + (1.0 - cfg.relevance_floor) * overlap
            m = match[nodes[0].id]
            hop = cfg.hop_decay ** (n.depth - 1)
            ratio = math.log1p(n.entity.access_count) / math.log1p(cfg.usage_cap)
            usage = 1.0 + cfg.usage_weight * min(1.0, ratio)
            why = (
                f"match {m:.2f} × hop {hop:.2f} (depth {n.depth}) × relevance {relevance:.2f} "
                f"(shared: {', '.join(shared) or 'none'}) × usage {usage:.2f} "
                f"(recalled {n.entity.access_count}×; usage, not truth)"
            )
            score = m * hop * relevance * usage
            hits.append(GraphHit(n.entity, nodes[0], nodes, path, score, why))
        hits.sort(key=lambda h: (-h.score, h.entity.id))
        return hits[: limit if limit is not None else cfg.limit]

    async def _path_relationships(
        self, starts: Mapping[str, float], neighbours: Sequence[Neighbour], depth: int, at: datetime
    ) -> dict[str, Relationship]:
        # Every relationship on a shortest path touches a start or a node nearer than ``depth``,
        # so those nodes' relationships cover all paths; stop as soon as they are all found.
        ns = neighbours
        wanted = {r for n in ns for r in n.path}
        inner = [n.entity.id for n in sorted(ns, key=lambda n: n.depth) if n.depth < depth]
        found: dict[str, Relationship] = {}
        for eid in [*starts, *inner]:
            if wanted <= found.keys():
                break
            for r in await self._store.relationships(eid, at=at):
                found[r.id] = r
        return found


def _walk(
    path: Sequence[Relationship], starts: Mapping[str, float], entities: Mapping[str, Entity]
) -> tuple[Entity, ...]:
    first = path[0]
    current = first.source_id if first.source_id in starts else first.target_id
    nodes = [entities[current]]
    for r in path:
        current = r.target_id if r.source_id == current else r.source_id
        nodes.append(entities[current])
    return tuple(nodes)
