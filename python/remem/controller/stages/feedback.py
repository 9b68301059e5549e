"""Pseudo-relevance feedback on full text: the best hits' words find what the question's miss.

An answer often shares no word with its question but many with the turns that do match it
("Which cities has Jon visited?" finds "Jon: I love travelling", whose neighbours in meaning say
"Rome"). RM3-style feedback (Lavrenko & Croft's relevance model, interpolated with the query):

1. take the ``docs`` best full-text hits of the first search (and, with ``vector_docs``, the
   texts of that many best vector hits: the semantic retriever finds answers full text misses,
   and their words are what a second full-text search needs);
2. weigh each word ``w`` of them by its relevance-model mass times a rarity factor measured
   over the whole first-search list (the only term statistics recall has):

       weight(w) = Σ_d (score_d / score_best) · tf_d(w) / len_d  ×  log(1 + (N + 1) / (df(w) + 1))

   where the sum runs over the fed-back documents (each source's scores relative to its own
   best), ``N`` is the length of the first list and
   ``df(w)`` how many of its hits hold ``w``. Words of the query, stop words
   (:data:`~remem.stores.shared.search_text.DEFAULT_STOPWORDS`), words shorter than
   ``min_length``, numbers and the hit's own speaker label are never feedback terms;
3. search again with the ``terms`` heaviest words (ties by word), in the same batch shape as
   the first search;
4. merge: ``score = first + weight · second · (best first / best second)`` — the second list
   is scaled to the first's range and down-weighted, so feedback reorders and adds hits and
   never outweighs the question's own words by more than ``weight``. BM25 sums its terms'
   scores, so this is the expanded query's score with the feedback terms weighted by
   ``weight`` (up to the scale).

Hits found by the second search only join with their weighted score. The merged list is
ordered by score, then newer first, then id (the stores' own order), so the stage is
deterministic.

>>> from datetime import datetime, timezone
>>> from remem.models import EpisodeKind, EpisodicHit
>>> at = datetime(2024, 1, 1, tzinfo=timezone.utc)
>>> def hit(i, text, score):
...     return EpisodicHit(id=i, kind=EpisodeKind.TURN, session_id="s", turn_number=1,
...                        text=text, score=score, created_at=at)
>>> first = [hit("a", "Jon: my trip to Rome was lovely", 2.0), hit("b", "Jon: work again", 1.0)]
>>> feedback_query("where did Jon travel?", first, FeedbackConfig(enabled=True, docs=1, terms=2))
'lovely rome'
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from remem.errors import ConfigError
from remem.models import EpisodicHit, MemoryRecord
from remem.staging import StagedScore
from remem.stores.shared.search_text import DEFAULT_STOPWORDS, fold

__all__ = ["FeedbackConfig", "FeedbackDoc", "feedback_query", "merge_feedback", "with_feedback"]

_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class FeedbackConfig:
    """``enabled``; ``docs``: how many of the best first-search hits lend their words (0:
    none, then only the vector hits' do);
    ``terms``: how many words the second search uses; ``weight``: the second search's share
    of the merged score (0..1]; ``min_length``: the shortest word that may be a term;
    ``vector_docs``: how many of the best vector hits lend their words too (0: none)."""

    enabled: bool = False
    docs: int = 5
    terms: int = 8
    weight: float = 0.3
    min_length: int = 3
    vector_docs: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"feedback.enabled must be true or false, got {self.enabled!r}")
        for name, low, high in (
            ("docs", 0, 100),
            ("terms", 1, 64),
            ("min_length", 1, 20),
            ("vector_docs", 0, 100),
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise ConfigError(f"feedback.{name} must be an integer in {low}..{high}, got {v!r}")
        w = self.weight
        if isinstance(w, bool) or not (isinstance(w, int | float) and 0.0 < w <= 1.0):
            raise ConfigError(f"feedback.weight is {w!r}; use a number in (0, 1]")


@dataclass(frozen=True, slots=True)
class FeedbackDoc:
    """A document whose words are fed back: its text, its weight in (0, 1] (its score over its
    source's best) and its speaker label (never a feedback term), if any."""

    text: str
    weight: float
    speaker: str | None = None


def _words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


def hit_docs(hits: Sequence[EpisodicHit], docs: int) -> list[FeedbackDoc]:
    """The ``docs`` best positive ``hits`` as feedback documents, weighted by score / best."""
    top = [h for h in hits[:docs] if h.score > 0]
    out = []
    for h in top:
        speaker = h.metadata.get("speaker")
        out.append(
            FeedbackDoc(
                h.text, h.score / top[0].score, speaker if isinstance(speaker, str) else None
            )
        )
    return out


def feedback_query(
    query: str,
    hits: Sequence[EpisodicHit],
    config: FeedbackConfig,
    extra: Sequence[FeedbackDoc] = (),
) -> str | None:
    """The second search's query for ``query`` given its first-search ``hits`` (best first) and
    ``extra`` documents (e.g. the best vector hits'), or None when there is nothing to feed
    back (no positive hit or document, or no eligible word)."""
    docs = [*hit_docs(hits, config.docs), *extra]
    if not docs:
        return None
    excluded = set(_words(query)) | DEFAULT_STOPWORDS
    df: dict[str, int] = {}
    for h in hits:
        for w in set(_words(h.text)):
            df[w] = df.get(w, 0) + 1
    mass: dict[str, float] = {}
    for d in docs:
        words = _words(d.text)
        own = set(_words(d.speaker)) if d.speaker else set()
        share = d.weight / max(len(words), 1)
        for w in words:
            if len(w) >= config.min_length and w not in excluded and w not in own:
                mass[w] = mass.get(w, 0.0) + share
    if not mass:
        return None
    n = len(hits)
    weights = {w: m * math.log(1.0 + (n + 1) / (df.get(w, 0) + 1)) for w, m in mass.items()}
    chosen = sorted(weights, key=lambda w: (-weights[w], w))[: config.terms]
    return " ".join(sorted(chosen))


def merge_feedback(
    first: Sequence[EpisodicHit], second: Sequence[EpisodicHit], weight: float
) -> list[EpisodicHit]:
    """``first`` with ``second`` merged in at ``weight`` (see the module docstring)."""
    if not second or not first or second[0].score <= 0 or first[0].score <= 0:
        return list(first)
    scale = weight * first[0].score / second[0].score
    extra = {h.id: h.score * scale for h in second}
    merged = [h.model_copy(update={"score": h.score + extra.pop(h.id, 0.0)}) for h in first]
    merged += [h.model_copy(update={"score": extra[h.id]}) for h in second if h.id in extra]
    return sorted(merged, key=lambda h: (-h.score, -h.created_at.timestamp(), h.id))


Search = Callable[[Sequence[str]], Awaitable[Sequence[Sequence[EpisodicHit]]]]


async def with_feedback(
    queries: Sequence[str],
    firsts: Sequence[Sequence[EpisodicHit]],
    config: FeedbackConfig,
    search: Search,
    extra: Sequence[Sequence[FeedbackDoc]] | None = None,
) -> list[Sequence[EpisodicHit]]:
    """Every query's first-search hits with its feedback search merged in: ONE ``search``
    batch for the queries that have a feedback query; the others keep their hits.
    ``extra[i]``: more feedback documents of query ``i`` (see :func:`feedback_query`)."""
    if not config.enabled:
        return list(firsts)
    more = extra if extra is not None else [()] * len(queries)
    asked = [
        (i, fq)
        for i, (q, hits, docs) in enumerate(zip(queries, firsts, more, strict=True))
        if (fq := feedback_query(q, hits, config, docs)) is not None
    ]
    out = list(firsts)
    if not asked:
        return out
    seconds = await search([fq for _, fq in asked])
    for (i, _), second in zip(asked, seconds, strict=True):
        out[i] = merge_feedback(firsts[i], second, config.weight)
    return out


async def vector_docs(
    vectors: Sequence[Sequence[StagedScore]],
    config: FeedbackConfig,
    read: Callable[[list[str]], Awaitable[Mapping[str, MemoryRecord]]],
) -> list[list[FeedbackDoc]] | None:
    """The ``vector_docs`` best vector hits of every query as feedback documents (weighted by
    similarity over the query's best), their texts read in ONE ``read`` of the records (an
    ineligible or missing record lends nothing); None when the stage or the option is off."""
    if not config.enabled or config.vector_docs == 0:
        return None
    tops = [[m for m in hits[: config.vector_docs] if m.score > 0] for hits in vectors]
    records = await read(sorted({m.id for top in tops for m in top}))
    out: list[list[FeedbackDoc]] = []
    for top in tops:
        docs = []
        for m in top:
            rec = records.get(m.id)
            if rec is not None:
                s = rec.metadata.get("speaker")
                docs.append(
                    FeedbackDoc(rec.text, m.score / top[0].score, s if isinstance(s, str) else None)
                )
        out.append(docs)
    return out
