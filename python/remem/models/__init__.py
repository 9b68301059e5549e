"""remem's data model: validated, frozen records shared by every layer."""

from __future__ import annotations

from remem.models.base import Model
from remem.models.episodic import DaySummary, EpisodeKind, EpisodicHit
from remem.models.graph import Entity, Relationship
from remem.models.lifecycle import MemoryLifecycleMetadata
from remem.models.metadata import Metadata, Scalar, check_metadata
from remem.models.provenance import ProvenanceMetadata
from remem.models.records import MemoryKind, MemoryRecord
from remem.models.scored import ScoredMemory
from remem.models.stages import MemoryStage, PromotionState
from remem.models.text import Identifier, StoredText, check_text
from remem.models.time import Clock, ManualClock, SystemClock, UTCDateTime, require_aware
from remem.models.transcript import TranscriptEntry, TranscriptSession
from remem.models.vectors import CollectionInfo, Metric, VectorItem, VectorMatch

__all__ = [
    "Clock",
    "CollectionInfo",
    "DaySummary",
    "Entity",
    "EpisodeKind",
    "EpisodicHit",
    "Identifier",
    "ManualClock",
    "MemoryKind",
    "MemoryLifecycleMetadata",
    "MemoryRecord",
    "MemoryStage",
    "Metadata",
    "Metric",
    "Model",
    "PromotionState",
    "ProvenanceMetadata",
    "Relationship",
    "Scalar",
    "ScoredMemory",
    "StoredText",
    "SystemClock",
    "TranscriptEntry",
    "TranscriptSession",
    "UTCDateTime",
    "VectorItem",
    "VectorMatch",
    "check_metadata",
    "check_text",
    "require_aware",
]
