"""The entity graph layer: entity resolution, query entity matching, access reinforcement and
path scoring over a :class:`remem.stores.GraphStore`.

Reinforcement measures usage, not truth: access counts rank facts that are recalled often a little
higher; they never make a fact more likely to be correct.
"""

from __future__ import annotations

from remem.graph.access import AccessTracker, FlushFailure, Rescore
from remem.graph.index import IndexMatch, NameIndex
from remem.graph.names import guards_allow, normalise, number_tokens
from remem.graph.query_matcher import EntityMention, QueryEntityMatcher
from remem.graph.resolver import (
    DEFAULT_THRESHOLD,
    EntityResolver,
    MatchKind,
    ResolvedEntity,
    entity_id_for,
)
from remem.graph.scorer import GraphHit, GraphScorer, GraphScorerConfig, render_relationship

__all__ = [
    "DEFAULT_THRESHOLD",
    "AccessTracker",
    "EntityMention",
    "EntityResolver",
    "FlushFailure",
    "GraphHit",
    "GraphScorer",
    "GraphScorerConfig",
    "IndexMatch",
    "MatchKind",
    "NameIndex",
    "QueryEntityMatcher",
    "Rescore",
    "ResolvedEntity",
    "entity_id_for",
    "guards_allow",
    "normalise",
    "number_tokens",
    "render_relationship",
]
