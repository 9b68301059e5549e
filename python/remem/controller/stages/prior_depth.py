"""Prior-aware candidate depth: the query's cues choose which deep full-text hits reach fusion.

Full text is searched deeper than the other retrievers (``neighbours.depth_factor`` ×, or
``depth_factor`` here when the neighbours stage is off) and the list is cut back to the
candidate depth before fusion. Cut by score alone, the cut drops exactly the hits the priors
would have lifted: for "What painting did Melanie show to Caroline on October 13, 2023?" the turn
of that day's session that says "Here's one I did last week, inspired by the sunsets" shares one
word with the question and ranks 60th by BM25; the dates prior would multiply it by 4, but only
candidates get priors. This stage cuts by

    score × speaker × dates × time_expressions × answer_type

(the factors :func:`~remem.controller.stages.priors.prior_factors` gives the candidate, each 1.0
when its stage is off), keeping the ``depth`` best, and
returns them in the list's own order — so the full-text ranks and scores fusion sees are
unchanged, and the priors are still applied once, after fusion. Disabled, or a query without
cues, it is the plain cut ``hits[:depth]``. The vector list is cut the same way
(:func:`cut_vector`): the vector search runs ``vector_factor`` × deeper, the records of its hits
are read (eligibility needs them anyway) and the ``depth`` best by cosine × cue priors reach
fusion; a query without cues keeps the ``depth`` best by cosine, as before. The participants
whose names the speaker prior looks for are the speakers among the deep hits.

>>> from datetime import UTC, datetime
>>> from remem.models import EpisodeKind, EpisodicHit
>>> t = lambda n, who: EpisodicHit(id=f"t{n}", kind=EpisodeKind.TURN, session_id="s",
...     turn_number=n, text="x", score=10.0 - n, metadata={"speaker": who},
...     created_at=datetime(2024, 1, 1, tzinfo=UTC))
>>> from remem.controller.stages.config import RecallStagesConfig
>>> from remem.lifecycle import InclusionScorerConfig
>>> hits = [NeighbourScored(h, h.score, 0.0) for h in (t(1, "Bo"), t(2, "Bo"), t(3, "Al"))]
>>> cut = prior_cut("What did Al say?", hits, 2, datetime(2024, 1, 2, tzinfo=UTC),
...     RecallStagesConfig(), InclusionScorerConfig())
>>> [n.hit.id for n in cut]
['t1', 't3']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from remem.controller.stages.neighbours import NeighbourScored, propagate_scores
from remem.errors import ConfigError
from remem.models import EpisodicHit, MemoryRecord
from remem.staging import StagedScore
from remem.stores.sqlite.hit_rows import HitRows

if TYPE_CHECKING:
    from remem.controller.stages.config import RecallStagesConfig
    from remem.lifecycle import InclusionScorerConfig

__all__ = [
    "CUE_PRIORS",
    "PriorDepthConfig",
    "cut_indices",
    "cut_texts",
    "cut_vector",
    "prior_cut",
]

CUE_PRIORS = ("speaker", "dates", "time_expressions", "answer_type")
"""The priors read from the query that choose the cut (recency and usage do not)."""


@dataclass(frozen=True)
class PriorDepthConfig:
    """``enabled``; ``depth_factor``: how many times deeper than the candidate depth full text
    is searched for the cut when the neighbours stage (which has its own factor) is off;
    ``vector_factor``: the same for the vector retriever (1: its list is cut by score)."""

    enabled: bool = True
    depth_factor: int = 3
    # LoCoMo dev (``benches/locomo_stages.py --embedder local --grid --knobs
    # prior_depth.vector_factor,…``): 5 lifts multi-hop R@10 50.0 → 52.0 at equal R@10, but
    # doubles ``remem bench locomo``'s query p50 (27.7 → 58.1 ms, same loaded machine: 5× the
    # records read) and costs adversarial questions 10 points; not taken.
    vector_factor: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"prior_depth.enabled must be true or false, got {self.enabled!r}")
        f = self.depth_factor
        if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 20:
            raise ConfigError(f"prior_depth.depth_factor must be an integer in 1..20, got {f!r}")
        v = self.vector_factor
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 20:
            raise ConfigError(f"prior_depth.vector_factor must be an integer in 1..20, got {v!r}")


def prior_cut(
    query: str,
    hits: Sequence[NeighbourScored],
    depth: int,
    now: datetime,
    stages: RecallStagesConfig,
    inclusion: InclusionScorerConfig,
) -> list[NeighbourScored]:
    """The ``depth`` full-text hits best by score × cue priors, in ``hits``' order (see the
    module docstring); ``hits[:depth]`` when the stage is off or the query has no cue."""
    rows = [(n.score, n.hit.created_at, n.hit.text, n.hit.metadata.get("speaker")) for n in hits]
    return [hits[i] for i in cut_indices(query, rows, depth, now, stages, inclusion)]


def cut_texts(
    query: str,
    hits: Sequence[EpisodicHit],
    depth: int,
    now: datetime,
    stages: RecallStagesConfig,
    inclusion: InclusionScorerConfig,
) -> list[NeighbourScored]:
    """``prior_cut(query, propagate_neighbours(hits, stages.neighbours), depth, ...)`` — the
    same list — with a :class:`NeighbourScored` built for the ``depth`` survivors only; of a
    :class:`~remem.stores.sqlite.hit_rows.HitRows` only the survivors' hit objects are built
    (the propagation and the cut read its columns)."""
    scored = propagate_scores(hits, stages.neighbours)
    speakers: list[list[object]] = []  # read once, when the cut reads any (the stage is on)

    def speaker_of(j: int) -> object:
        if not speakers:
            speakers.append(_speakers(hits))
        return speakers[0][scored[j][0]]

    keep = _cut(
        query,
        len(scored),
        speaker_of,
        lambda j: (scored[j][1], *_cue(hits, scored[j][0])),
        depth,
        now,
        stages,
        inclusion,
    )
    return [NeighbourScored(hits[i], s, share) for i, s, share in (scored[j] for j in keep)]


def _speakers(hits: Sequence[EpisodicHit]) -> list[object]:
    """``metadata.get("speaker")`` of every hit, by position (a HitRows' column: no hit built)."""
    if isinstance(hits, HitRows):
        return hits.speakers()
    return [h.metadata.get("speaker") for h in hits]


def _cue(hits: Sequence[EpisodicHit], i: int) -> tuple[datetime, str]:
    if isinstance(hits, HitRows):
        return hits.cue(i)
    h = hits[i]
    return h.created_at, h.text


def cut_vector(
    query: str,
    hits: Sequence[StagedScore],
    records: Mapping[str, MemoryRecord],
    depth: int,
    now: datetime,
    stages: RecallStagesConfig,
    inclusion: InclusionScorerConfig,
) -> list[StagedScore]:
    """The vector hits with an eligible record (``records``), cut like :func:`prior_cut`."""
    kept = [h for h in hits if h.id in records]
    rows = [
        (
            h.score,
            records[h.id].lifecycle.created_at,
            records[h.id].text,
            records[h.id].metadata.get("speaker"),
        )
        for h in kept
    ]
    return [kept[i] for i in cut_indices(query, rows, depth, now, stages, inclusion)]


def cut_indices(
    query: str,
    rows: Sequence[tuple[float, datetime, str, object]],
    depth: int,
    now: datetime,
    stages: RecallStagesConfig,
    inclusion: InclusionScorerConfig,
) -> list[int]:
    """The positions of the ``depth`` rows best by score × cue priors, ascending; a row is
    ``(score, created_at, text, speaker)`` (a speaker that is not a non-empty string: none).
    ``0..depth-1`` when the stage is off or the query has no cue."""
    return _cut(
        query, len(rows), lambda i: rows[i][3], lambda i: rows[i][:3], depth, now, stages, inclusion
    )


def _cut(
    query: str,
    n: int,
    speaker_of: Callable[[int], object],
    row_of: Callable[[int], tuple[float, datetime, str]],
    depth: int,
    now: datetime,
    stages: RecallStagesConfig,
    inclusion: InclusionScorerConfig,
) -> list[int]:
    """:func:`cut_indices` over ``n`` rows read by position: the speakers of all (the
    participants the cues look for), then, only when the query has a cue, every row's
    ``(score, created_at, text)``."""
    # Imported here: the stages' config holds this stage's config, and the priors read it.
    from remem.controller.stages.priors import cue_factors, query_cues

    plain = list(range(min(depth, n)))
    if not stages.prior_depth.enabled or n <= depth:
        return plain
    speakers = [s if isinstance(s, str) and s.strip() else None for s in map(speaker_of, range(n))]
    cues = query_cues(query, now, {s for s in speakers if s is not None}, stages)
    if not (cues.speakers or cues.windows or cues.asks_time or cues.categories):
        return plain
    weighted: list[tuple[float, int]] = []
    for i in range(n):
        score, created_at, text = row_of(i)
        # Only the cue priors choose the cut (CUE_PRIORS, in that order): recency and usage
        # are not computed for it.
        speaker, dates, timed, typed = cue_factors(created_at, text, speakers[i], cues, stages)
        value = max(score, 0.0)
        value *= speaker
        value *= dates
        value *= timed
        value *= typed
        weighted.append((-value, i))
    return sorted(i for _, i in sorted(weighted)[:depth])
