"""Memory records: the unit the record store, collections and lifecycle work on."""

from __future__ import annotations

from enum import StrEnum

import pydantic

from remem.models.base import Model
from remem.models.lifecycle import MemoryLifecycleMetadata
from remem.models.metadata import Metadata
from remem.models.provenance import ProvenanceMetadata
from remem.models.text import Identifier, StoredText
from remem.models.time import UTCDateTime


class MemoryKind(StrEnum):
    """What a memory is. ``fact`` is the default for ``remember(text)``."""

    FACT = "fact"
    PREFERENCE = "preference"
    EVENT = "event"
    INSIGHT = "insight"
    SUMMARY = "summary"
    NOTE = "note"


class MemoryRecord(Model):
    """One durable memory with its lifecycle and provenance.

    ``superseded_by`` names the record that replaced this one; superseded records are kept (for
    history and audit) but never recalled. ``valid_from``/``valid_to`` bound when the statement held
    in the world, independent of when it was recorded.
    """

    id: Identifier
    text: StoredText = pydantic.Field(min_length=1)
    kind: MemoryKind = MemoryKind.FACT
    namespace: Identifier = "default"
    session_id: Identifier | None = None
    lifecycle: MemoryLifecycleMetadata
    provenance: ProvenanceMetadata = ProvenanceMetadata()
    metadata: Metadata = pydantic.Field(default_factory=dict)
    entity_ids: tuple[Identifier, ...] = ()
    superseded_by: Identifier | None = None
    valid_from: UTCDateTime | None = None
    valid_to: UTCDateTime | None = None
