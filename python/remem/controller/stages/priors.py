"""The per-candidate priors of one query: recency, usage, speaker, dates, time expressions
and the answer type.

:class:`QueryCues` is read from the query once (which participants it names, which date windows,
whether it asks for a time); :func:`prior_factors` turns one candidate into named factors, each
≥ a positive floor, which recall multiplies into the fused score:

    final = fused × recency × usage × speaker × dates × time_expressions
            × answer_type (× conflict)

A switched-off stage contributes 1.0; the answer-type prior (on by default) adds its
``answer_type`` key only when on (switched off, signals and explanations are as before it).
Example: a question naming Caroline, asked 180 days after a turn Caroline spoke, with the
defaults: ``recency ≈ 0.95`` (never lower), ``speaker = 6``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from remem.controller.stages.answer_type import asked_categories, mentions
from remem.controller.stages.config import RecallStagesConfig
from remem.controller.stages.question_dates import Window, question_windows
from remem.controller.stages.recency import recency_prior, usage_prior
from remem.controller.stages.speaker import named_speakers
from remem.controller.stages.time_expressions import asks_for_time, states_time
from remem.lifecycle import InclusionScorerConfig

__all__ = [
    "PRIOR_NAMES",
    "CandidateView",
    "QueryCues",
    "age_priors",
    "cue_factors",
    "prior_factors",
    "query_cues",
    "speaker_of",
]

PRIOR_NAMES = ("recency", "usage", "speaker", "dates", "time_expressions")


@dataclass(frozen=True, slots=True)
class CandidateView:
    """What the priors read of a candidate."""

    created_at: datetime
    access_count: int
    text: str
    speaker: str | None


@dataclass(frozen=True, slots=True)
class QueryCues:
    """What the priors read of a query (see :func:`query_cues`)."""

    speakers: frozenset[str]
    windows: tuple[Window, ...]
    asks_time: bool
    categories: frozenset[str] = frozenset()
    """The answer-type categories the query asks for (empty when that stage is off)."""
    participants: frozenset[str] = frozenset()
    """The candidates' speakers (a ``people`` instance is nobody of these)."""


def speaker_of(metadata: Mapping[str, object]) -> str | None:
    """``metadata["speaker"]`` when it is a non-empty string."""
    s = metadata.get("speaker")
    return s if isinstance(s, str) and s.strip() else None


def query_cues(
    query: str, now: datetime, participants: Iterable[str], config: RecallStagesConfig
) -> QueryCues:
    """The cues of ``query`` asked at ``now``; ``participants``: the candidates' speakers."""
    speakers = named_speakers(query, participants) if config.speaker.enabled else frozenset()
    windows = (
        tuple(question_windows(query, now, config.dates.slack_days)) if config.dates.enabled else ()
    )
    asks = config.time_expressions.enabled and asks_for_time(query)
    if not config.answer_type.enabled:
        return QueryCues(speakers, windows, asks)
    return QueryCues(
        speakers,
        windows,
        asks,
        asked_categories(query),
        frozenset(p for p in participants if p and p.strip()),
    )


def age_priors(
    c: CandidateView, now: datetime, config: RecallStagesConfig, inclusion: InclusionScorerConfig
) -> tuple[float, float]:
    """``(recency, usage)`` of ``c``: the priors that do not read the query, so a batch of
    queries computes them once per candidate (:class:`remem.controller.recall.RecallPipeline`)."""
    hours = max(0.0, (now - c.created_at).total_seconds() / 3600.0)
    return (
        recency_prior(hours, rate=inclusion.recency_rate, weight=config.recency.weight),
        usage_prior(
            c.access_count, hit_weight=inclusion.hit_weight, bounded=config.recency.bounded_usage
        ),
    )


def cue_factors(
    created_at: datetime,
    text: str,
    speaker: str | None,
    cues: QueryCues,
    config: RecallStagesConfig,
) -> tuple[float, float, float, float]:
    """``(speaker, dates, time_expressions, answer_type)`` of a candidate: the priors that read
    the query (:func:`prior_factors`' values; ``answer_type`` is 1.0 when that stage is off)."""
    speaker_f = 1.0
    if cues.speakers and speaker in cues.speakers:
        speaker_f += config.speaker.boost
    dates = 1.0
    if cues.windows and any(a <= created_at < b for a, b in cues.windows):
        dates += config.dates.boost
    timed = 1.0
    if cues.asks_time and states_time(text):
        timed += config.time_expressions.boost
    typed = 1.0
    if cues.categories and mentions(text, cues.categories, cues.participants):
        typed += config.answer_type.boost
    return speaker_f, dates, timed, typed


def prior_factors(
    c: CandidateView,
    cues: QueryCues,
    now: datetime,
    config: RecallStagesConfig,
    inclusion: InclusionScorerConfig,
    ages: tuple[float, float] | None = None,
) -> dict[str, float]:
    """Every prior's factor for ``c`` (keys :data:`PRIOR_NAMES`, in order, then
    ``answer_type`` when that stage is on); ``ages``: the candidate's :func:`age_priors` when
    already computed (else they are computed here)."""
    speaker, dates, timed, typed = cue_factors(c.created_at, c.text, c.speaker, cues, config)
    recency, usage = ages if ages is not None else age_priors(c, now, config, inclusion)
    factors = {
        "recency": recency,
        "usage": usage,
        "speaker": speaker,
        "dates": dates,
        "time_expressions": timed,
    }
    if config.answer_type.enabled:
        factors["answer_type"] = typed
    return factors
