"""Vector collections and their query results."""

from __future__ import annotations

from enum import StrEnum

import pydantic

from remem.models.base import Model
from remem.models.metadata import Metadata
from remem.models.text import Identifier


class Metric(StrEnum):
    COSINE = "cosine"
    DOT = "dot"


class CollectionInfo(Model):
    """A named collection and the embedding model its vectors came from."""

    name: Identifier
    model_name: str = pydantic.Field(min_length=1)
    dimension: int = pydantic.Field(ge=1, le=65_536)
    metric: Metric = Metric.COSINE
    count: int = pydantic.Field(default=0, ge=0)


class VectorMatch(Model):
    """A query result: ``score`` is the similarity (cosine or dot; higher is better)."""

    id: Identifier
    score: float
    document: str | None = None
    metadata: Metadata = pydantic.Field(default_factory=dict)


class VectorItem(Model):
    """A stored item as returned by ``get``."""

    id: Identifier
    vector: tuple[float, ...]
    document: str | None = None
    metadata: Metadata = pydantic.Field(default_factory=dict)
