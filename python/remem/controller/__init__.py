"""The memory controller: record turns, remember, forget, supersede, and hybrid recall."""

from __future__ import annotations

from remem.controller.config import (
    ControllerConfig,
    ExtractionConfig,
    FusionConfig,
)
from remem.controller.controller import MemoryController
from remem.controller.extraction import (
    ExtractedEntity,
    ExtractedMemory,
    ExtractedRelationship,
    ExtractionContext,
    ExtractionResult,
    Extractor,
)
from remem.controller.fusion import RankedList, reciprocal_rank_fusion, weighted_score_fusion
from remem.controller.graph_services import GraphServices
from remem.controller.reinforcement import decay_rescore
from remem.controller.telemetry import Telemetry
from remem.controller.writes import MemorySpec
from remem.failures import BackgroundFailure

__all__ = [
    "BackgroundFailure",
    "ControllerConfig",
    "ExtractedEntity",
    "ExtractedMemory",
    "ExtractedRelationship",
    "ExtractionConfig",
    "ExtractionContext",
    "ExtractionResult",
    "Extractor",
    "FusionConfig",
    "GraphServices",
    "MemoryController",
    "MemorySpec",
    "RankedList",
    "Telemetry",
    "decay_rescore",
    "reciprocal_rank_fusion",
    "weighted_score_fusion",
]
