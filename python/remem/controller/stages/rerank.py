"""Learned re-ranking: the best fused candidates re-ordered by a dot product of richer features.

After fusion and every prior (and the session factors; before the conflicts), the ``depth`` best
candidates of a query (by score, ties by key) are described by :func:`rerank_features` — each
retriever's rank and scaled score, the neighbour share, which priors fired, the candidate's
session's standing among the query's sessions, its length, and the question's type (who /
what / when / where / why / how many / how / which / would …) times a few of them — and scored
``s = Σ_f w_f · x_f`` with the weights of :data:`~remem.controller.stages.rerank_weights.WEIGHTS`
(fitted by ``python -m remem.eval.locomo.rerank_fit``; see that module). The candidates are then
placed in the order of ``s`` (ties by their previous order) and take the previous scores in
that order, so the set of scores, and the standing of the re-ranked block against the rest,
stay as they were: candidate ``i``'s factor is ``new score / old score`` (``signals["rerank"]``).

Run before the conflicts stage, so a superseded keyed value it lifts is still capped below
the newest. ``scored_only`` (on): a candidate with a zero score is not re-ranked, so it cannot
climb over a scored one and hand it a zero score — which, unbounded, dropped ``remem eval
--quick``'s "What's my job?" memory (fusion place 32 of 37 → 36, score 0.14 → 0) out of the
prompt (current-fact 100 → 98.3 %); with it the persona evaluations lose nothing and LoCoMo
dev keeps the whole gain (R@10 80.9 → 81.4, MRR 60.4 → 62.7, multi-hop 50.0 → 52.5). The other
bounds (``protect_top``, ``max_shift``, ``alpha``) each gave back part of that gain.

**Off by default** all the same: on the synthetic persona set of
``tests/controller/test_fusion_eval.py`` (paraphrased questions, no LoCoMo in the fit) it
costs MRR 0.510 → 0.335 and R@5 0.86 → 0.58 with the hashing embedder, 0.780 → 0.395 and
1.00 → 0.81 with MiniLM (``python benches/rerank_synthetic.py``): the weights do not carry
beyond LoCoMo's conversations (README, "Learned re-ranking"). Example::

    rows = [RerankRow("a", 2.0, ...), RerankRow("b", 1.0, ...)]
    rerank_factors("when did Ana move?", rows, RerankConfig(enabled=True))
    # {"a": 0.5, "b": 2.0} when b's features score higher
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from remem.controller.stages.rerank_weights import WEIGHTS
from remem.errors import ConfigError

__all__ = [
    "BASE_FEATURES",
    "INTERACTED",
    "QUESTION_TYPES",
    "RerankConfig",
    "RerankRow",
    "bounded_order",
    "feature_names",
    "question_types",
    "rerank_factors",
    "rerank_features",
]

QUESTION_TYPES = ("who", "what", "when", "where", "why", "how_many", "how", "which", "yes_no")
"""The question-type indicators :func:`question_types` reads (at most one is set, except
``how_many``, which also counts as ``how``)."""

BASE_FEATURES = (
    "final_log",
    "final_rr",
    "fulltext_rr",
    "fulltext_rel",
    "vector_rr",
    "vector_cos",
    "vector_rel",
    "both",
    "neighbours",
    "speaker",
    "dates",
    "time",
    "session_rr",
    "session_hits",
    "length",
    "turn",
)
"""The per-candidate features (see :func:`rerank_features`)."""

INTERACTED = (
    "final_log",
    "fulltext_rr",
    "vector_rr",
    "vector_cos",
    "neighbours",
    "speaker",
    "dates",
    "time",
    "session_rr",
    "length",
)
"""The base features that are also given per question type (``when*time``, …)."""

_YES_NO = re.compile(
    r"^(would|could|will|is|are|was|were|does|do|did|has|have|had|can|should|might)\b"
)
_WORD = re.compile(r"[a-z']+")


def feature_names() -> tuple[str, ...]:
    """Every feature's name, in the order of :func:`rerank_features`' vectors."""
    crossed = tuple(f"{q}*{f}" for q in QUESTION_TYPES for f in INTERACTED)
    return BASE_FEATURES + crossed


def question_types(query: str) -> frozenset[str]:
    """The question-type indicators of ``query`` (lower-cased; the first wh-word or a leading
    auxiliary verb decides): ``"How many times did Jon…"`` → ``{"how_many", "how"}``."""
    q = query.strip().lower()
    words = _WORD.findall(q)
    out: set[str] = set()
    if _YES_NO.match(q):
        out.add("yes_no")
    for i, w in enumerate(words):
        if w in ("who", "whom", "whose"):
            out.add("who")
        elif w == "when" or (w == "what" and words[i + 1 : i + 2] in (["year"], ["date"])):
            out.add("when")
        elif w in ("what", "where", "why", "which"):
            out.add(w)
        elif w == "how":
            out.add("how")
            if words[i + 1 : i + 2] in (["many"], ["much"], ["often"], ["long"]):
                out.add("how_many")
        else:
            continue
        break
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class RerankRow:
    """What the re-ranker reads of one candidate: its key and score so far, its fusion
    inputs (``fulltext`` / ``vector``: ``(rank from 1, raw score)`` or None when that retriever
    missed it), its neighbour share, its prior factors, session, text and whether it is a
    turn (else a memory or graph path)."""

    key: str
    score: float
    fulltext: tuple[int, float] | None
    vector: tuple[int, float] | None
    share: float
    speaker: float
    dates: float
    time: float
    session: str | None
    text: str
    turn: bool


@dataclass(frozen=True)
class RerankConfig:
    """``enabled``; ``depth``: how many of the best candidates are re-ordered; ``weights``:
    feature name → weight (default: the fitted :data:`WEIGHTS`; a name not in
    :func:`feature_names` is refused).

    The bounds: ``scored_only`` (on by default): a candidate whose score is not positive is
    left out of the block (it cannot take a scored candidate's place and hand it a zero
    score); off by default: ``protect_top``: the first N of the block keep
    their places, only the rest is re-ordered; ``max_shift``: no candidate moves more than this
    many places, up or down, from its place before (None: unbounded); ``alpha`` in [0, 1]: the
    final factor is the re-ordering's factor ** alpha (1: the scores of the new order; 0: no
    change; between: a blend of the two scores in log space)."""

    enabled: bool = False
    depth: int = 40
    weights: Mapping[str, float] = field(default_factory=lambda: dict(WEIGHTS))
    scored_only: bool = True
    protect_top: int = 0
    max_shift: int | None = None
    alpha: float = 1.0

    def __post_init__(self) -> None:
        for flag in ("enabled", "scored_only"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(
                    f"rerank.{flag} must be true or false, got {getattr(self, flag)!r}"
                )
        d = self.depth
        if isinstance(d, bool) or not isinstance(d, int) or not 2 <= d <= 1000:
            raise ConfigError(f"rerank.depth must be an integer in 2..1000, got {d!r}")
        p = self.protect_top
        if isinstance(p, bool) or not isinstance(p, int) or p < 0:
            raise ConfigError(f"rerank.protect_top must be an integer ≥ 0, got {p!r}")
        m = self.max_shift
        if m is not None and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
            raise ConfigError(
                f"rerank.max_shift must be an integer ≥ 1 (leave it out for no cap), got {m!r}"
            )
        a = self.alpha
        if isinstance(a, bool) or not isinstance(a, int | float) or not 0.0 <= a <= 1.0:
            raise ConfigError(f"rerank.alpha must be a number in 0..1, got {a!r}")
        if not isinstance(self.weights, Mapping):
            raise ConfigError("rerank.weights must be a table of feature name = number")
        known = set(feature_names())
        unknown = sorted(set(self.weights) - known)
        if unknown:
            raise ConfigError(
                f"rerank.weights has unknown features {unknown}; see "
                "remem.controller.stages.rerank.feature_names()"
            )
        for name, w in self.weights.items():
            if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w):
                raise ConfigError(f"rerank.weights.{name} is {w!r}; use a finite number")


def _top(rows: Sequence[RerankRow], depth: int, scored_only: bool) -> list[RerankRow]:
    kept = [r for r in rows if r.score > 0] if scored_only else list(rows)
    return sorted(kept, key=lambda r: (-r.score, r.key))[:depth]


def bounded_order(ranked: Sequence[int], protect_top: int, max_shift: int | None) -> list[int]:
    """The block's new order (indices into the old order, 0 = first) from ``ranked`` (the
    indices by the model's score, best first), bounded: the first ``protect_top`` stay in
    place, and with ``max_shift`` no index ends more than that many places from where it was.

    The cap is filled slot by slot: an index that would fall further than ``max_shift``
    below its old place takes the slot now; otherwise the best-ranked index that may move up
    to this slot does. ``bounded_order([2, 0, 1], 0, 1)`` → ``[0, 2, 1]``."""
    n = len(ranked)
    head = list(range(min(protect_top, n)))
    rest = [i for i in ranked if i >= len(head)]
    if max_shift is None:
        return head + rest
    placed: set[int] = set(head)
    out = list(head)
    for slot in range(len(head), n):
        due = slot - max_shift
        if due >= len(head) and due not in placed:
            pick = due
        else:
            pick = next(i for i in rest if i not in placed and i <= slot + max_shift)
        placed.add(pick)
        out.append(pick)
    return out


def rerank_features(query: str, rows: Sequence[RerankRow]) -> list[dict[str, float]]:
    """The features of ``rows`` (already the re-ranked block, best first), non-zero only.

    ``final_log`` = ln(score / best score), clipped to −5 (0 for a non-positive score);
    ``final_rr`` = 1 / position; ``fulltext_rr`` / ``vector_rr`` = 1 / the retriever's rank;
    ``fulltext_rel`` = raw BM25 / the block's best; ``vector_cos`` the cosine, ``vector_rel``
    = cosine / the block's best; ``both`` = found by both; ``neighbours`` = the neighbour share
    / the block's best BM25; ``speaker`` / ``dates`` / ``time`` = 1 when that prior lifted it;
    ``session_rr`` = 1 / its session's rank among the block's sessions (by their best
    candidate); ``session_hits`` = its session's share of the block; ``length`` =
    min(words, 100) / 100; ``turn`` = 1 for a turn. ``<type>*<f>``: ``f`` for a question of
    that type (:func:`question_types`), else 0."""
    types = question_types(query)
    best = rows[0].score if rows and rows[0].score > 0 else 0.0
    ft_best = max((r.fulltext[1] for r in rows if r.fulltext is not None), default=0.0)
    vec_best = max((r.vector[1] for r in rows if r.vector is not None), default=0.0)
    sessions: dict[str, int] = {}
    hits: dict[str, int] = {}
    for r in rows:
        if r.session is not None:
            sessions.setdefault(r.session, len(sessions) + 1)
            hits[r.session] = hits.get(r.session, 0) + 1
    out: list[dict[str, float]] = []
    for pos, r in enumerate(rows, start=1):
        x: dict[str, float] = {"final_rr": 1.0 / pos}
        if best > 0 and r.score > 0:
            x["final_log"] = max(-5.0, math.log(r.score / best))
        if r.fulltext is not None:
            x["fulltext_rr"] = 1.0 / r.fulltext[0]
            if ft_best > 0:
                x["fulltext_rel"] = r.fulltext[1] / ft_best
        if r.vector is not None:
            x["vector_rr"] = 1.0 / r.vector[0]
            x["vector_cos"] = r.vector[1]
            if vec_best > 0:
                x["vector_rel"] = r.vector[1] / vec_best
        if r.fulltext is not None and r.vector is not None:
            x["both"] = 1.0
        if r.share and ft_best > 0:
            x["neighbours"] = r.share / ft_best
        for name, factor in (("speaker", r.speaker), ("dates", r.dates), ("time", r.time)):
            if factor > 1.0:
                x[name] = 1.0
        if r.session is not None:
            x["session_rr"] = 1.0 / sessions[r.session]
            x["session_hits"] = hits[r.session] / len(rows)
        x["length"] = min(len(r.text.split()), 100) / 100.0
        if r.turn:
            x["turn"] = 1.0
        for t in types:
            for f in INTERACTED:
                v = x.get(f)
                if v:
                    x[f"{t}*{f}"] = v
        out.append({k: v for k, v in x.items() if v != 0.0})
    return out


def rerank_factors(query: str, rows: Sequence[RerankRow], config: RerankConfig) -> dict[str, float]:
    """Each re-ranked candidate's factor (see the module docstring and the bounds of
    :class:`RerankConfig`); ``{}`` when off, with fewer than two rows or no weights.
    Candidates outside the block are not listed."""
    if not config.enabled or len(rows) < 2 or not config.weights:
        return {}
    block = _top(rows, config.depth, config.scored_only)
    if len(block) < 2:
        return {}
    w = config.weights
    scored = []
    for i, x in enumerate(rerank_features(query, block)):
        # Summed in the features' name order, so equal inputs give bit-identical scores.
        s = 0.0
        for name in sorted(x):
            weight = w.get(name)
            if weight is not None:
                s += weight * x[name]
        scored.append((-s, i))
    scored.sort()
    order = bounded_order([i for _, i in scored], config.protect_top, config.max_shift)
    out: dict[str, float] = {}
    for slot, i in enumerate(order):
        old, new = block[i].score, block[slot].score
        factor = new / old if old > 0 else 1.0
        out[block[i].key] = factor**config.alpha
    return out
