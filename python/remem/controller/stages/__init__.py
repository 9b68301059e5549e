"""Recall's ranking stages after retrieval, each named, switchable and explained.

* :mod:`~remem.controller.stages.neighbours` — full-text turn hits gain a share of their session
  neighbours' scores, and the best hits' neighbours join the candidates (before fusion);
* :mod:`~remem.controller.stages.recency` — bounded recency and usage priors;
* :mod:`~remem.controller.stages.speaker` — a question naming a participant favours their turns;
* :mod:`~remem.controller.stages.question_dates` — dates, months and relative times in a question
  favour what was said then;
* :mod:`~remem.controller.stages.time_expressions` — "when / how long" favours turns that say
  a time;
* :mod:`~remem.controller.stages.answer_type` — a question asking for instances of a category
  ("Which cities …") favours turns naming one (lexicon in ``answer_lexicon``; on, boost 2);
* :mod:`~remem.controller.stages.sessions` — the sessions holding the best hits lift their other
  strong turns (bounded; off by default);
* :mod:`~remem.controller.stages.prior_depth` — the speaker, dates and time priors choose which
  of the deeper full-text hits reach fusion (before fusion);
* :mod:`~remem.controller.stages.feedback` — pseudo-relevance feedback: the best full-text
  hits' words searched again, merged down-weighted (before fusion; off by default);
* :mod:`~remem.controller.stages.diversity` — a session's later candidates yield to other
  sessions' near-equal ones (MMR over sessions; off by default);
* :mod:`~remem.controller.stages.dense_feedback` — the query vector moves towards its best
  hits' (Rocchio) and the vector search runs again (before fusion; off by default);
* :mod:`~remem.controller.stages.rerank` — the best candidates re-ordered by a fitted dot
  product of richer features (after the priors);
* :mod:`~remem.controller.stages.question_form` — the semantic retriever embeds a question as
  the statement it asks about ("What do Melanie's kids like?" → "Melanie's kids like"; before
  retrieval; off by default);
* :mod:`~remem.controller.stages.conflicts` — among different values of one keyed fact, the
  newest wins.

:mod:`~remem.controller.stages.priors` applies the per-candidate ones;
:class:`RecallStagesConfig` (``ControllerConfig.stages``) holds their settings.
"""

from __future__ import annotations

from remem.controller.stages.answer_type import AnswerTypePriorConfig, asked_categories, mentions
from remem.controller.stages.config import STAGE_NAMES, RecallStagesConfig
from remem.controller.stages.conflicts import ConflictConfig, Keyed, resolve_conflicts
from remem.controller.stages.dense_feedback import DenseFeedbackConfig, dense_feedback, rocchio
from remem.controller.stages.diversity import DiversityConfig, diversify
from remem.controller.stages.feedback import (
    FeedbackConfig,
    FeedbackDoc,
    feedback_query,
    vector_docs,
    with_feedback,
)
from remem.controller.stages.neighbours import (
    NeighbourConfig,
    NeighbourScored,
    TurnReader,
    expand_neighbours,
    missing_neighbours,
    propagate_neighbours,
)
from remem.controller.stages.prior_depth import (
    PriorDepthConfig,
    cut_texts,
    cut_vector,
    prior_cut,
)
from remem.controller.stages.priors import (
    PRIOR_NAMES,
    CandidateView,
    QueryCues,
    age_priors,
    prior_factors,
    query_cues,
    speaker_of,
)
from remem.controller.stages.question_dates import DatePriorConfig, question_windows
from remem.controller.stages.recency import RecencyPriorConfig, recency_prior, usage_prior
from remem.controller.stages.rerank import RerankConfig, RerankRow, rerank_factors
from remem.controller.stages.sessions import SessionConfig, session_factors
from remem.controller.stages.speaker import SpeakerPriorConfig, named_speakers
from remem.controller.stages.time_expressions import (
    TimeExpressionPriorConfig,
    asks_for_time,
    states_time,
)

__all__ = [
    "PRIOR_NAMES",
    "STAGE_NAMES",
    "AnswerTypePriorConfig",
    "CandidateView",
    "ConflictConfig",
    "DatePriorConfig",
    "DenseFeedbackConfig",
    "DiversityConfig",
    "FeedbackConfig",
    "FeedbackDoc",
    "Keyed",
    "NeighbourConfig",
    "NeighbourScored",
    "PriorDepthConfig",
    "QueryCues",
    "RecallStagesConfig",
    "RecencyPriorConfig",
    "RerankConfig",
    "RerankRow",
    "SessionConfig",
    "SpeakerPriorConfig",
    "TimeExpressionPriorConfig",
    "TurnReader",
    "age_priors",
    "asked_categories",
    "asks_for_time",
    "cut_texts",
    "cut_vector",
    "dense_feedback",
    "diversify",
    "expand_neighbours",
    "feedback_query",
    "mentions",
    "missing_neighbours",
    "named_speakers",
    "prior_cut",
    "prior_factors",
    "propagate_neighbours",
    "query_cues",
    "question_windows",
    "recency_prior",
    "rerank_factors",
    "resolve_conflicts",
    "rocchio",
    "session_factors",
    "speaker_of",
    "states_time",
    "usage_prior",
    "vector_docs",
    "with_feedback",
]
