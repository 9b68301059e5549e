"""Controller settings: fusion, candidate depth, inclusion, extraction cadence.

Every value is validated on construction (ConfigError names the field). :class:`ControllerConfig`
is the one place the controller's defaults live; :class:`remem.runtime_config.RuntimeConfig`
embeds it and prints it in ``describe()``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from remem.context.priming import PrimingConfig
from remem.controller.stages.config import RecallStagesConfig
from remem.errors import ConfigError
from remem.lifecycle import DecayConfig, InclusionScorerConfig

FusionMethod = Literal["rrf", "weighted", "linear"]
ScopeMode = Literal["single", "multi"]
RETRIEVERS: tuple[str, ...] = ("vector", "fulltext", "graph")
DEFAULT_FUSION: FusionMethod = "linear"
"""Chosen by measurement (see :mod:`remem.controller.fusion` and :func:`fitted_weights`)."""

# Fitted by ``python -m remem.eval.locomo.fit --data ../shared/data/locomo-dev --embedder
# hashing --depths 40`` (coordinate ascent on R@10 + MRR, LoCoMo dev, categories 1-4, 383
# questions, turn/memory copies merged, retrieval depth 40). Offline figures, R@10 / MRR / All@10 /
# multi-hop R@10: in-sample 58.9 / 43.0 / 54.6 / 26.9, leave-one-conversation-out 57.8 / 42.7 /
# 53.3 / 27.4 (equal-weight RRF before: 52.0 / 35.7 / 48.0 / 20.9; full text alone 57.6 / 42.4 /
# 53.3 / 26.3). Lexical vectors mostly repeat BM25, so they get small weights.
# The graph's weights are NOT fitted (LoCoMo runs no extractor, so there is no graph to fit on):
# a graph path is weighed like a full-text hit, so it contributes only where it ranks.
LEXICAL_WEIGHTS: Mapping[str, float] = {
    "fulltext": 1.0,
    "fulltext_rr": 0.2,
    "vector": 0.2,
    "vector_rr": 0.05,
    "vector_cos": 0.3,
    "graph": 1.0,
    "graph_rr": 0.2,
}
"""Linear fusion weights for remem's hashing embedder (see the comment above for their source)."""

# Fitted by the same command with ``--embedder local`` (the bundled all-MiniLM-L6-v2): in-sample
# 65.2 / 45.3 / 59.8 / 32.2, leave-one-conversation-out 64.6 / 45.1 / 59.3 / 31.5 (equal-weight
# RRF before: 62.6 / 40.9 / 57.7 / 32.1). Graph: not fitted, as above.
# Refit after the neighbour expansion and MiniLM's floors: the same command (depth 40) keeps
# vector 0.5 and trades vector_rr 0.05 for vector_cos 0.05 (in-sample 75.0 / 51.5 / 69.2 / 37.7,
# LOCO 74.4 / 50.7 / 68.7 / 37.3); it sees the raw lists, not the stages. Searched live on the
# whole stack (``benches/locomo_stages.py --embedder local --grid``: vector, vector_rr,
# vector_cos, fulltext_rr in turn), the shipped vector 0.5 / vector_rr 0.05 / vector_cos 0 stayed
# best. fulltext_rr 0.2 gained MRR 60.2 → 60.6 at equal R@10 but doubled ``remem eval --quick``'s
# stale-only rate (4.8 → 9.5 %), so it is not taken: the weights are unchanged.
SEMANTIC_WEIGHTS: Mapping[str, float] = {
    "fulltext": 1.0,
    "vector": 0.5,
    "vector_rr": 0.05,
    "graph": 1.0,
}
"""Linear fusion weights for a semantic embedder (fitted with MiniLM; see the comment above)."""


def fitted_weights(model_name: str) -> Mapping[str, float]:
    """The shipped weights for an embedder: :data:`LEXICAL_WEIGHTS` for remem's hashing
    embedder (``remem-hashing-…``), :data:`SEMANTIC_WEIGHTS` for any other (a semantic model's
    cosine carries meaning the fit measured with MiniLM; a lexical one's mostly repeats BM25)."""
    return LEXICAL_WEIGHTS if model_name.startswith("remem-hashing") else SEMANTIC_WEIGHTS


def _default_weights() -> dict[str, float]:
    return {"vector": 1.0, "fulltext": 1.0, "graph": 1.0}


@dataclass(frozen=True)
class FusionConfig:
    """How the retrievers' ranked lists become one ranking.

    ``method="rrf"``: ``Σ_r weight_r / (rrf_k + rank_r)`` (rank from 1); ``method="weighted"``:
    ``Σ_r weight_r · minmax_r(score)`` (a retriever's scores scaled to 0..1 within the query; a
    single hit scores 1). A retriever missing from ``weights`` has weight 0 (it is ignored).
    ``method="linear"`` (default): ``Σ_f features[f] · x_f`` over named per-candidate features
    (:func:`remem.controller.fusion.candidate_features`, plus any prior recall passes by name);
    ``features=None`` (default) means the fitted weights for the embedder in use
    (:func:`fitted_weights`, resolved by :meth:`for_embedder` when recall is composed).
    ``merge_copies``: a turn whose text is
    exactly a recalled memory's (an utterance stored both ways) is one candidate — the memory,
    with the turn's full-text rank if that is better — instead of two competing for ranks.
    """

    method: FusionMethod = DEFAULT_FUSION
    rrf_k: int = 60
    weights: Mapping[str, float] = field(default_factory=_default_weights)
    features: Mapping[str, float] | None = None
    merge_copies: bool = True

    def __post_init__(self) -> None:
        if self.method not in ("rrf", "weighted", "linear"):
            raise ConfigError(
                f"fusion method {self.method!r} is unknown; use 'linear', 'rrf' or 'weighted'"
            )
        if isinstance(self.rrf_k, bool) or not isinstance(self.rrf_k, int) or self.rrf_k < 1:
            raise ConfigError(f"rrf_k must be an integer ≥ 1, got {self.rrf_k!r}")
        for name, weight in self.weights.items():
            if name not in RETRIEVERS:
                raise ConfigError(f"weights has {name!r}; retrievers are {', '.join(RETRIEVERS)}")
            if not (isinstance(weight, int | float) and math.isfinite(weight) and weight >= 0):
                raise ConfigError(f"weight of {name!r} is {weight!r}; use a finite number ≥ 0")
        object.__setattr__(self, "weights", dict(self.weights))
        if self.features is not None:
            for name, weight in self.features.items():
                if not isinstance(name, str) or not name:
                    raise ConfigError(f"feature name {name!r} is not a non-empty string; name it")
                if not (isinstance(weight, int | float) and math.isfinite(weight) and weight >= 0):
                    raise ConfigError(
                        f"feature weight of {name!r} is {weight!r}; use a finite number ≥ 0"
                    )
            object.__setattr__(self, "features", {n: float(w) for n, w in self.features.items()})
        if not isinstance(self.merge_copies, bool):
            raise ConfigError(f"merge_copies must be true or false, got {self.merge_copies!r}")

    def weight(self, retriever: str) -> float:
        return float(self.weights.get(retriever, 0.0))

    def for_embedder(self, model_name: str) -> FusionConfig:
        """This config with ``features`` filled in (:func:`fitted_weights`) when it is None."""
        if self.features is not None:
            return self
        return dataclasses.replace(self, features=dict(fitted_weights(model_name)))


@dataclass(frozen=True)
class ExtractionConfig:
    """Extraction cadence: one extraction per ``interval`` turns of a session.

    ``queue_size`` bounds the batches waiting for the worker (``record_turn`` waits when it is
    full — backpressure, never a dropped turn); ``drain_timeout`` is how long ``aclose()`` waits
    for queued batches before recording the rest as failures (their turns stay in the transcript).
    ``supersede``: a :class:`remem.Runtime` with an extractor supersedes, after each background
    batch, the keyed facts its new facts contradict (``MemoryConsolidator.
    supersede_contradictions`` over that batch's records: "I moved to Porto" ends "lives in
    Lisbon"), so an old value is never left current; False leaves that to a consolidation run.
    """

    interval: int = 1
    queue_size: int = 256
    drain_timeout: float = 30.0
    supersede: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.supersede, bool):
            raise ConfigError(f"extraction.supersede must be true or false, got {self.supersede!r}")
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
    (``DecayCalculator.reinforce``). ``scopes``: ``"single"`` (default) lets a read without
    ``namespace=`` see every scope, as before scopes existed; ``"multi"`` (a controller serving
    several users or agents) refuses such a read, and a write without a namespace, with
    :class:`~remem.errors.ScopeRequiredError` (see :mod:`remem.scopes`). ``priming``: what
    :meth:`MemoryController.prime` starts from unless a call names a config (default
    :meth:`PrimingConfig.controller_fallback`, which primes from no previous sessions; a
    :class:`remem.Runtime` sets it from ``RuntimeConfig.priming``).
    """

    fusion: FusionConfig = field(default_factory=FusionConfig)
    candidates: int = 30
    inclusion: InclusionScorerConfig = field(default_factory=InclusionScorerConfig)
    decay: DecayConfig = field(default_factory=DecayConfig)
    stages: RecallStagesConfig = field(default_factory=RecallStagesConfig)
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    max_k: int = 1_000
    scopes: ScopeMode = "single"
    priming: PrimingConfig = field(default_factory=PrimingConfig.controller_fallback)

    def __post_init__(self) -> None:
        if self.scopes not in ("single", "multi"):
            raise ConfigError(
                f"scopes must be 'single' or 'multi', got {self.scopes!r}; 'multi' requires "
                "namespace= on every read and write"
            )
        for name in ("candidates", "max_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an integer ≥ 1, got {value!r}")
        if not isinstance(self.priming, PrimingConfig):
            raise ConfigError(
                f"priming must be a PrimingConfig, got {type(self.priming).__name__}; "
                "build one with PrimingConfig(...) or a preset such as "
                "PrimingConfig.controller_fallback()"
            )
