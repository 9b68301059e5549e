"""Session-neighbour context for full-text turn hits, propagated at recall time.

A conversation's answer is often split over turns: "Did you go?" / "Yes, last Friday" — the
second turn holds the fact, the first the words the question uses. Each turn hit's full-text
score gains a down-weighted share of the scores of the turns around it in the same session
(``before`` turns before, ``after`` after, ``weight`` each), and the full-text list is re-sorted
by the result before fusion:

    score'(t) = score(t) + weight · Σ_{n ∈ neighbours(t) ∩ hits} max(score(n), 0)
                         + (reply_weight − weight) · max(score(t − 1), 0)   if t − 1 asks

A turn right after a hit that asks something (one utterance, no assistant reply in the turn,
with a "?" in it) is its answer more often than any other neighbour — "How often do you get
to see sunsets like that?" / "At least once a week" — so that one neighbour's share is taken
at ``reply_weight`` (1.25; ``None``: the plain ``weight``) instead of ``weight``. A companion's
turn holds its own answer (the assistant's reply) and lends no such share. Chosen on the
LoCoMo dev split (``python benches/locomo_stages.py --data DIR --out DIR --embedder local
--grid --knobs neighbours.reply_weight,…``; the README's table): MRR 61.4 → 65.4, R@10 81.3 →
81.8.

The hits of the (deeper, ``depth_factor`` ×) full-text search take part, and — the *expansion*
(``expand``) — so do the neighbours of the first ``expand`` turn hits that the search did not
return: the answer to "What did Jon plan for the grand opening?" is often a reply that shares no
word with the question ("Tomorrow's gonna be an awesome night…"), which no full-text depth
finds. :func:`expand_neighbours` reads those turns from the transcript (one range per run of
nearby turns of a session, every range in one read, through a reader the caller gives) and
adds them with score 0, so
their score is their share alone. BM25 and ts_rank are both "higher is better" and the share is
relative to the backend's own scale, so the stage behaves alike on every backend. Notes
(memories) have no turn number and keep their score. Chosen over indexing each turn with its
neighbours' words, which would change every store's tokenisation, by measurement
(``benches/locomo_stages.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from remem.errors import ConfigError
from remem.models import EpisodeKind, EpisodicHit
from remem.stores.sqlite.hit_rows import HitRows
from remem.writebehind.direct import USER_CHARS_KEY

__all__ = [
    "NeighbourConfig",
    "NeighbourScored",
    "TurnReader",
    "expand_neighbours",
    "missing_neighbours",
    "propagate_neighbours",
    "propagate_scores",
]

TurnReader = Callable[[Sequence[tuple[str, int, int]]], Awaitable[Sequence[Sequence[EpisodicHit]]]]
"""``read(ranges)``: per ``(session_id, first, last)``, the session's turns numbered
``first..last`` (inclusive) as turn hits with score 0, all ranges in one read; a session or
turn that does not exist is simply absent."""


@dataclass(frozen=True)
class NeighbourConfig:
    """``enabled``; ``before``/``after``: how many turns either side count; ``weight``: each
    neighbour's share; ``depth_factor``: the full-text search runs this many times deeper
    than the other retrievers so neighbours are found (the list is cut back afterwards);
    ``expand``: the neighbours of this many of the best turn hits are read from the transcript
    when the search missed them (0: only hits take part); ``reply_weight``: the share of the
    turn just before, when that turn asks something (None: ``weight``, as any neighbour)."""

    enabled: bool = True
    before: int = 2
    after: int = 2
    weight: float = 0.5
    depth_factor: int = 3
    expand: int = 10
    reply_weight: float | None = 1.25

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ConfigError(f"neighbours.enabled must be true or false, got {self.enabled!r}")
        for name in ("before", "after"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 10:
                raise ConfigError(f"neighbours.{name} must be an integer in 0..10, got {v!r}")
        f = self.depth_factor
        if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 20:
            raise ConfigError(f"neighbours.depth_factor must be an integer in 1..20, got {f!r}")
        if not (isinstance(self.weight, int | float) and 0.0 <= self.weight <= 1.0):
            raise ConfigError(f"neighbours.weight is {self.weight!r}; use a number in [0, 1]")
        r = self.reply_weight
        if r is not None and not (isinstance(r, int | float) and 0.0 <= r <= 2.0):
            raise ConfigError(f"neighbours.reply_weight is {r!r}; use a number in [0, 2]")
        e = self.expand
        if isinstance(e, bool) or not isinstance(e, int) or not 0 <= e <= 100:
            raise ConfigError(f"neighbours.expand must be an integer in 0..100, got {e!r}")


@dataclass(frozen=True, slots=True)
class NeighbourScored:
    """A full-text hit with its propagated score and the part its neighbours added."""

    hit: EpisodicHit
    score: float
    share: float


def propagate_neighbours(
    hits: Sequence[EpisodicHit], config: NeighbourConfig
) -> list[NeighbourScored]:
    """``hits`` re-scored by the formula in the module docstring, best first (ties keep the
    store's order). Disabled, every share is 0 and the order is unchanged.

    >>> propagate_neighbours([], NeighbourConfig())
    []
    """
    return [
        NeighbourScored(hits[i], score, share) for i, score, share in propagate_scores(hits, config)
    ]


def propagate_scores(
    hits: Sequence[EpisodicHit], config: NeighbourConfig
) -> list[tuple[int, float, float]]:
    """:func:`propagate_neighbours` as ``(position in hits, score, share)`` rows, in its order.
    Reads only the hits' positions and scores (of a :class:`HitRows`, its columns: no hit is
    built)."""
    positions, scores = _columns(hits)
    idle = config.weight == 0 and not config.reply_weight
    if not config.enabled or (config.before == 0 and config.after == 0) or idle:
        return [(i, score, 0.0) for i, score in enumerate(scores)]
    by_position: dict[tuple[str, int], float] = {}
    for p, score in zip(positions, scores, strict=True):
        if p is not None:
            by_position[p] = max(by_position.get(p, 0.0), max(score, 0.0))
    reply = config.reply_weight
    asks = (
        _asking(hits, positions, scores, by_position) if reply is not None and config.before else ()
    )
    out: list[tuple[int, float, float]] = []
    offsets = (*range(-config.before, 0), *range(1, config.after + 1))
    for i, (p, score) in enumerate(zip(positions, scores, strict=True)):
        share = 0.0
        if by_position and p is not None:
            session, n = p
            for offset in offsets:
                share += by_position.get((session, n + offset), 0.0)
            share *= config.weight
            if reply is not None and (session, n - 1) in asks:
                # the turn after a question answers it: its share at reply_weight instead
                share += (reply - config.weight) * by_position[(session, n - 1)]
        out.append((i, score + share, share))
    # Best first, ties in the store's order (a stable sort); the store's order is usually
    # already that (no turn gained a share), which one pass checks.
    if any(a[1] < b[1] for a, b in pairwise(out)):
        out.sort(key=lambda n: -n[1])
    return out


def _asking(
    hits: Sequence[EpisodicHit],
    positions: Sequence[tuple[str, int] | None],
    scores: Sequence[float],
    listed: Mapping[tuple[str, int], float],
) -> set[tuple[str, int]]:
    """The positions of the scored turn hits that ask something: one utterance (a turn with no
    assistant reply: a dialogue recorded a line at a time) with a "?" in it. A companion's turn
    holds its own answer — the assistant's reply — and is never one. Of a :class:`HitRows`,
    read from its rows. Only hits whose next turn is ``listed`` are looked at (no other turn's
    share depends on them), and the metadata only of those with a "?"."""
    rows = hits if isinstance(hits, HitRows) else None
    out: set[tuple[str, int]] = set()
    for i, (p, score) in enumerate(zip(positions, scores, strict=True)):
        if p is None or score <= 0 or (p[0], p[1] + 1) not in listed:
            continue
        text = rows.text(i) if rows is not None else hits[i].text
        if "?" not in text:
            continue
        n = (rows.metadata(i) if rows is not None else hits[i].metadata).get(USER_CHARS_KEY)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 < n <= len(text):
            continue
        if not text[n:].strip() and "?" in text[:n]:
            out.add(p)
    return out


def _columns(hits: Sequence[EpisodicHit]) -> tuple[list[tuple[str, int] | None], list[float]]:
    """Every hit's turn position (None: not a turn) and score."""
    if isinstance(hits, HitRows):
        return hits.positions(), hits.scores()
    return [_position(h) for h in hits], [h.score for h in hits]


def _position(h: EpisodicHit) -> tuple[str, int] | None:
    if h.kind is EpisodeKind.TURN and h.session_id is not None and h.turn_number is not None:
        return h.session_id, h.turn_number
    return None


def _windows(
    positions: Sequence[tuple[str, int] | None], config: NeighbourConfig
) -> set[tuple[str, int]]:
    """The positions around the first ``config.expand`` turn hits (turn numbers from 1)."""
    out: set[tuple[str, int]] = set()
    seeds = [p for p in positions if p is not None][: config.expand]
    for session, n in seeds:
        out.update((session, m) for m in range(max(1, n - config.before), n + config.after + 1))
    return out


def missing_neighbours(
    hits: Sequence[EpisodicHit], config: NeighbourConfig
) -> list[tuple[str, int, int]]:
    """The ``(session_id, first, last)`` turn ranges to read for the expansion: the window of
    each of the first ``config.expand`` turn hits, less the turns already hit, nearby turns of
    one session merged into one range (so a run of hits costs one read). Sorted; empty when
    the stage or the expansion is off.

    >>> from datetime import UTC, datetime
    >>> t = lambda n: EpisodicHit(id=f"t{n}", kind=EpisodeKind.TURN, session_id="s",
    ...     turn_number=n, text="x", score=1.0, created_at=datetime(2024, 1, 1, tzinfo=UTC))
    >>> missing_neighbours([t(5), t(6)], NeighbourConfig(before=1, after=1))
    [('s', 4, 7)]
    """
    if not config.enabled or config.expand == 0 or (config.before == 0 and config.after == 0):
        return []
    positions = _columns(hits)[0]
    hit = {p for p in positions if p is not None}
    wanted: dict[str, set[int]] = {}
    for session, n in _windows(positions, config):
        if (session, n) not in hit:
            wanted.setdefault(session, set()).add(n)
    ranges: list[tuple[str, int, int]] = []
    for session in sorted(wanted):
        numbers = sorted(wanted[session])
        first = last = numbers[0]
        for m in numbers[1:]:
            if m - last > config.before + config.after + 1:
                ranges.append((session, first, last))
                first = m
            last = m
        ranges.append((session, first, last))
    return ranges


async def expand_neighbours(
    hits: Sequence[EpisodicHit], config: NeighbourConfig, read: TurnReader
) -> Sequence[EpisodicHit]:
    """``hits`` followed by the missing neighbours (:func:`missing_neighbours`) that ``read``
    returns, each with score 0 (a turn read in a merged range but in no window is dropped),
    in ``(session, turn)`` order; :func:`propagate_neighbours` then gives them their share.
    A :class:`HitRows` stays one (its hits unbuilt), the neighbours appended."""
    ranges = missing_neighbours(hits, config)
    if not ranges:
        return hits if isinstance(hits, HitRows) else list(hits)
    positions = _columns(hits)[0]
    hit = {p for p in positions if p is not None}
    near = _windows(positions, config)
    # A neighbour is in its session's scope: the scope of the last hit of that session (only
    # the sessions read are looked up, from the end).
    wanted = {session for session, _, _ in ranges}
    scopes: dict[str, str] = {}
    rows = hits if isinstance(hits, HitRows) else None
    for i in reversed(range(len(hits))):
        s = rows.session_id(i) if rows is not None else hits[i].session_id
        if s in wanted and s not in scopes:
            scopes[s] = rows.namespace(i) if rows is not None else hits[i].namespace
            if len(scopes) == len(wanted):
                break
    out: list[EpisodicHit] = []
    for (session, _, _), turns in zip(ranges, await read(ranges), strict=True):
        scope = scopes.get(session)
        for turn in turns:
            p = _position(turn)
            if p is not None and p in near and p not in hit:
                hit.add(p)
                if turn.score != 0.0 or (scope is not None and turn.namespace != scope):
                    update: dict[str, object] = {"score": 0.0}
                    if scope is not None:
                        update["namespace"] = scope
                    turn = turn.model_copy(update=update)
                out.append(turn)
    return hits.extended(out) if isinstance(hits, HitRows) else [*hits, *out]
