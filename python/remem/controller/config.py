"""Controller settings: fusion, candidate depth, inclusion, extraction cadence.

Every value is validated on construction (ConfigError names the field). :class:`ControllerConfig`
is the one place the controller's defaults live; :class:`remem.runtime_config.RuntimeConfig`
embeds it and prints it in ``describe()``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from remem.controller.stages.config import RecallStagesConfig
from remem.errors import ConfigError
from remem.lifecycle import DecayConfig, InclusionScorerConfig

FusionMethod = Literal["rrf", "weighted"]
RETRIEVERS: tuple[str, ...] = ("vector", "fulltext", "graph")
DEFAULT_FUSION: FusionMethod = "rrf"
"""Chosen by measurement (see :mod:`remem.controller.fusion` for the numbers)."""


def _default_weights() -> dict[str, float]:
    return {"vector": 1.0, "fulltext": 1.0, "graph": 1.0}


@dataclass(frozen=True)
class FusionConfig:
    """How the retrievers' ranked lists become one ranking.

    ``method="rrf"``: ``Σ_r weight_r / (rrf_k + rank_r)`` (rank from 1); ``method="weighted"``:
    ``Σ_r weight_r · minmax_r(score)`` (a retriever's scores scaled to 0..1 within the query; a
    single hit scores 1). A retriever missing from ``weights`` has weight 0 (it is ignored).
    """

    method: FusionMethod = DEFAULT_FUSION
    rrf_k: int = 60
    weights: Mapping[str, float] = field(default_factory=_default_weights)

    def __post_init__(self) -> None:
        if self.method not in ("rrf", "weighted"):
            raise ConfigError(f"fusion method {self.method!r} is unknown; use 'rrf' or 'weighted'")
        if isinstance(self.rrf_k, bool) or not isinstance(self.rrf_k, int) or self.rrf_k < 1:
            raise ConfigError(f"rrf_k must be an integer ≥ 1, got {self.rrf_k!r}")
        for name, weight in self.weights.items():
            if name not in RETRIEVERS:
                raise ConfigError(f"weights has {name!r}; retrievers are {', '.join(RETRIEVERS)}")
            if not (isinstance(weight, int | float) and math.isfinite(weight) and weight >= 0):
                raise ConfigError(f"weight of {name!r} is {weight!r}; use a finite number ≥ 0")
        object.__setattr__(self, "weights", dict(self.weights))

    def weight(self, retriever: str) -> float:
        return float(self.weights.get(retriever, 0.0))


@dataclass(frozen=True)
class ExtractionConfig:
    """Extraction cadence: one extraction per ``interval`` turns of a session.

    ``queue_size`` bounds the batches waiting for the worker (``record_turn`` waits when it is
    full — backpressure, never a dropped turn); ``drain_timeout`` is how long ``aclose()`` waits
    for queued batches before recording the rest as failures (their turns stay in the transcript).
    """

    interval: int = 1
    queue_size: int = 256
    drain_timeout: float = 30.0

    def __post_init__(self) -> None:
        for name in ("interval", "queue_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"extraction.{name} must be an integer ≥ 1, got {value!r}")
        if not (math.isfinite(self.drain_timeout) and self.drain_timeout >= 0):
            raise ConfigError(f"drain_timeout must be ≥ 0 seconds, got {self.drain_timeout!r}")


@dataclass(frozen=True)
class ControllerConfig:
    """Everything the controller tunes.

    ``candidates``: how many hits each retriever contributes before fusion (at least ``k``).
    ``inclusion``: the recency rate and usage weight the recall priors use (bounded:
    ``recency = 1 − a + a · exp(-recency_rate · hours)``, ``usage = 1 + hit_weight · n/(1+n)``,
    ``a = stages.recency.weight``). ``stages``: the ranking stages after retrieval
    (:mod:`remem.controller.stages`). ``decay``: the reinforcement applied to recalled records
    (``DecayCalculator.reinforce``).
    """

    fusion: FusionConfig = field(default_factory=FusionConfig)
    candidates: int = 30
    inclusion: InclusionScorerConfig = field(default_factory=InclusionScorerConfig)
    decay: DecayConfig = field(default_factory=DecayConfig)
    stages: RecallStagesConfig = field(default_factory=RecallStagesConfig)
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    max_k: int = 1_000

    def __post_init__(self) -> None:
        for name in ("candidates", "max_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an integer ≥ 1, got {value!r}")
