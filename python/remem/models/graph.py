"""The entity graph: entities and typed relationships with validity times."""

from __future__ import annotations

from datetime import UTC, datetime

import pydantic

from remem.models.base import Model
from remem.models.metadata import Metadata
from remem.models.provenance import ProvenanceMetadata
from remem.models.text import Identifier, StoredText
from remem.models.time import UTCDateTime


def _now() -> datetime:
    return datetime.now(UTC)


class Entity(Model):
    """A person, place, organisation, thing or concept the conversation mentions.

    ``access_count`` counts recalls that used the entity: usage, not truth.
    """

    id: Identifier
    name: StoredText = pydantic.Field(min_length=1)
    entity_type: str = "thing"
    aliases: tuple[StoredText, ...] = ()
    attributes: Metadata = pydantic.Field(default_factory=dict)
    namespace: Identifier = "default"
    access_count: int = pydantic.Field(default=0, ge=0)
    provenance: ProvenanceMetadata = ProvenanceMetadata()
    created_at: UTCDateTime = pydantic.Field(default_factory=_now)
    updated_at: UTCDateTime = pydantic.Field(default_factory=_now)


class Relationship(Model):
    """A typed, directed edge ``source -[relation_type]-> target``, valid over a time interval.

    ``valid_to`` is None while the relationship holds. A contradicted relationship gets ``valid_to``
    and ``superseded_by`` set; nothing is deleted.
    """

    id: Identifier
    source_id: Identifier
    target_id: Identifier
    relation_type: str = pydantic.Field(min_length=1)
    attributes: Metadata = pydantic.Field(default_factory=dict)
    namespace: Identifier = "default"
    valid_from: UTCDateTime | None = None
    valid_to: UTCDateTime | None = None
    superseded_by: Identifier | None = None
    access_count: int = pydantic.Field(default=0, ge=0)
    provenance: ProvenanceMetadata = ProvenanceMetadata()
    created_at: UTCDateTime = pydantic.Field(default_factory=_now)
