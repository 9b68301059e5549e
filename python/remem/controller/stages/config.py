"""RecallStagesConfig: the switchable ranking stages after retrieval, one section each.

Every stage is named, switchable and contributes a named factor to ``ScoredMemory.signals``
and to ``explanation`` (see :mod:`remem.controller.stages`). In TOML, ``[recall.stages.<name>]``
(e.g. ``[recall.stages.speaker] boost = 0.5``; ``enabled = false`` switches a stage off).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from remem.controller.stages.answer_type import AnswerTypePriorConfig
from remem.controller.stages.conflicts import ConflictConfig
from remem.controller.stages.dense_feedback import DenseFeedbackConfig
from remem.controller.stages.diversity import DiversityConfig
from remem.controller.stages.feedback import FeedbackConfig
from remem.controller.stages.neighbours import NeighbourConfig
from remem.controller.stages.prior_depth import PriorDepthConfig
from remem.controller.stages.question_dates import DatePriorConfig
from remem.controller.stages.question_form import QuestionFormConfig
from remem.controller.stages.recency import RecencyPriorConfig
from remem.controller.stages.rerank import RerankConfig
from remem.controller.stages.sessions import SessionConfig
from remem.controller.stages.speaker import SpeakerPriorConfig
from remem.controller.stages.time_expressions import TimeExpressionPriorConfig
from remem.errors import ConfigError

__all__ = ["STAGE_NAMES", "RecallStagesConfig"]

_KINDS: dict[str, type] = {
    "recency": RecencyPriorConfig,
    "neighbours": NeighbourConfig,
    "speaker": SpeakerPriorConfig,
    "dates": DatePriorConfig,
    "time_expressions": TimeExpressionPriorConfig,
    "conflicts": ConflictConfig,
    "sessions": SessionConfig,
    "prior_depth": PriorDepthConfig,
    "feedback": FeedbackConfig,
    "diversity": DiversityConfig,
    "dense_feedback": DenseFeedbackConfig,
    "rerank": RerankConfig,
    "answer_type": AnswerTypePriorConfig,
    "question_form": QuestionFormConfig,
}
STAGE_NAMES: tuple[str, ...] = tuple(_KINDS)


@dataclass(frozen=True)
class RecallStagesConfig:
    """The stages' settings (defaults chosen on LoCoMo dev by ``benches/locomo_stages.py``)."""

    recency: RecencyPriorConfig = field(default_factory=RecencyPriorConfig)
    neighbours: NeighbourConfig = field(default_factory=NeighbourConfig)
    speaker: SpeakerPriorConfig = field(default_factory=SpeakerPriorConfig)
    dates: DatePriorConfig = field(default_factory=DatePriorConfig)
    time_expressions: TimeExpressionPriorConfig = field(default_factory=TimeExpressionPriorConfig)
    conflicts: ConflictConfig = field(default_factory=ConflictConfig)
    sessions: SessionConfig = field(default_factory=SessionConfig)
    prior_depth: PriorDepthConfig = field(default_factory=PriorDepthConfig)
    feedback: FeedbackConfig = field(default_factory=FeedbackConfig)
    diversity: DiversityConfig = field(default_factory=DiversityConfig)
    dense_feedback: DenseFeedbackConfig = field(default_factory=DenseFeedbackConfig)
    rerank: RerankConfig = field(default_factory=RerankConfig)
    answer_type: AnswerTypePriorConfig = field(default_factory=AnswerTypePriorConfig)
    question_form: QuestionFormConfig = field(default_factory=QuestionFormConfig)

    def __post_init__(self) -> None:
        for name, kind in _KINDS.items():
            value = getattr(self, name)
            if not isinstance(value, kind):
                raise ConfigError(f"stages.{name} must be a {kind.__name__}, got {value!r}")

    def without(self, *names: str) -> RecallStagesConfig:
        """A copy with the named stages switched off (``recency``: weight 0)."""
        changes: dict[str, Any] = {}
        for name in names:
            if name not in STAGE_NAMES:
                raise ConfigError(f"no stage {name!r}; stages are {', '.join(STAGE_NAMES)}")
            current = getattr(self, name)
            if name == "recency":
                changes[name] = dataclasses.replace(current, weight=0.0)
            else:
                changes[name] = dataclasses.replace(current, enabled=False)
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RecallStagesConfig:
        """Build from ``{stage: {key: value}}`` (the ``[recall.stages]`` TOML table)."""
        kwargs: dict[str, Any] = {}
        for name, section in data.items():
            if name not in STAGE_NAMES:
                raise ConfigError(
                    f"[recall.stages] has unknown stage {name!r}; stages: {', '.join(STAGE_NAMES)}"
                )
            if not isinstance(section, Mapping):
                raise ConfigError(f"[recall.stages.{name}] must be a table")
            kind = _KINDS[name]
            allowed = {f.name for f in dataclasses.fields(kind)}
            unknown = sorted(set(section) - allowed)
            if unknown:
                raise ConfigError(
                    f"[recall.stages.{name}] has unknown keys {unknown}; allowed: {sorted(allowed)}"
                )
            kwargs[name] = kind(**section)
        return cls(**kwargs)
