"""Memory lifecycle: decay, promotion and inclusion scoring, stage movement."""

from __future__ import annotations

from remem.lifecycle.decay import DecayCalculator, DecayConfig
from remem.lifecycle.inclusion import InclusionScorerConfig, LongTermInclusionScorer
from remem.lifecycle.promotion import PromotionConfig, PromotionScorer

__all__ = [
    "DecayCalculator",
    "DecayConfig",
    "InclusionScorerConfig",
    "LongTermInclusionScorer",
    "PromotionConfig",
    "PromotionScorer",
]
