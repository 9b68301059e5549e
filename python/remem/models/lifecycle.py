"""Lifecycle metadata carried by every memory record."""

from __future__ import annotations

from typing import Self

import pydantic

from remem.models.base import Model
from remem.models.stages import MemoryStage, PromotionState
from remem.models.time import UTCDateTime


class MemoryLifecycleMetadata(Model):
    """Stage, decay state and usage of one memory.

    Decay is a pure function of ``base_score`` and ``score_reference_time`` (see
    :class:`remem.lifecycle.DecayCalculator`): maintenance never overwrites the base with a decayed
    value, so running it often does not compound decay. An access sets a new base and
    reference time.
    """

    stage: MemoryStage = MemoryStage.SHORT_TERM
    base_score: float = pydantic.Field(default=1.0, ge=0.0, le=1.0, allow_inf_nan=False)
    score_reference_time: UTCDateTime
    created_at: UTCDateTime
    accessed_at: UTCDateTime | None = None
    promoted_at: UTCDateTime | None = None
    decayed_at: UTCDateTime | None = None
    access_count: int = pydantic.Field(default=0, ge=0)
    promotion_state: PromotionState = PromotionState.NONE
    protected: bool = False

    @pydantic.model_validator(mode="after")
    def _times_ordered(self) -> Self:
        if self.score_reference_time < self.created_at:
            raise ValueError("score_reference_time is before created_at")
        return self
