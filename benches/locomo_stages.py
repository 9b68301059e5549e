"""Choose and ablate recall's ranking stages on the LoCoMo dev split (deterministic).

    python benches/locomo_stages.py --data /work/shared/data/locomo-dev --out /tmp/stages \
        [--embedder hashing|local] [--grid]

Ingests each dev conversation ONCE (``--embedder``: the hashing embedder, default, or the
bundled MiniLM, ``local``; turns + memories, remem's controller
defaults, usage weight 0 so no question's recall reorders the next's), then recalls every
question of categories 1–4 under each variant by swapping the recall pipeline's config, and
prints R@10, MRR, All@10 and multi-hop R@10 (the issue's scoring). Variants:

* ``old``: the recall of before the stages (unbounded ``exp(-0.005 h)`` recency, no stages);
* ``old-norecency``: the same with recency 0 (what ``remem bench locomo`` measured before);
* ``default``: :class:`remem.controller.stages.RecallStagesConfig` as shipped;
* ``-<stage>``: the default with one stage off (the ablation; ``-neighbours.expand``: the
  neighbours stage without its expansion);
* ``--expand-index``: the alternative to the neighbours stage, measured: each turn is STORED
  with the words of the two turns before it and the one after (not down-weighted: FTS5 and
  ts_rank weigh one column alike), and recalled with the neighbours stage off;
* ``--grid``: coordinate ascent over each stage's knob, in a fixed order over fixed grids,
  maximising the mean of the four figures (how the shipped defaults were chosen: a first pass
  from recency 0.1 / neighbours 0.3, 2 before, 1 after / boosts 0.3, 0.3, 0.2 moved every knob
  to the edge of its grid, so the grid was widened and a second pass run from where the first
  ended — the shipped values). Re-run on top of linear fusion with the neighbour expansion
  (``--embedder local`` over the neighbour knobs first): the neighbour weight 0.5 and the
  expansion stayed best for MiniLM, the default; the hashing embedder would prefer weight 0.3.
  The grid also holds the linear fusion's weights (``fusion.<feature>``, searched live, after
  the neighbour stage and with the similarity floors, which the offline fit does not see).
  Re-run with ``--embedder local --grid --knobs`` over the three boosts and the four fusion
  weights: speaker 1 → 5 and dates 1 → 3 were taken (the shipped values); fulltext_rr 0.2
  (MRR +0.4, R@10 equal) was not, as it doubled ``remem eval --quick``'s stale-only rate.
  Session 21 (``--embedder local --grid --knobs neighbours.reply_weight``): the reply share
  1.25 was taken (R@10 81.3 → 81.8, MRR 61.4 → 65.4; the README's table);
* ``+sessions …``: the default with the session-evidence stage (off by default) switched on
  at each row of :data:`SESSIONS`;
* ``--new``: the default, the best row of each of the three stages below, both feedback stages
  together, and the default again (so its latency is measured at both ends of the run);
* ``--pieces N``: only the default row, with each turn longer than N words also stored per
  sentence (:mod:`remem.embeddings.pieces`; ``--pieces 0``: the same row without, to compare;
  ``--context``: also each turn with the previous one as a piece; ``--vector-factors 2,3``:
  also the row with the vector retriever searched that many times deeper, issue #14's lever 3);
* ``--rerank``: only the default with the learned re-ranker (``[recall.stages.rerank]``,
  weights of :mod:`remem.controller.stages.rerank_weights`) off, on, and off again (so its
  latency is measured at both ends of the run);
* ``--rerank-bounds``: only the default with the re-ranker off, then on under each row of
  :data:`RERANK_BOUNDS` (the bounds of :class:`remem.controller.stages.RerankConfig`: a
  movement cap, a protected head, a blend, leaving unscored candidates out), then off again;
* ``--answer-type``: only the default with the answer-type prior off, then the prior on at
  each boost of :data:`ANSWER_TYPE` (``--boosts 2,3,4``: those only), then the prior off again
  (``[recall.stages.answer_type]``, on at boost 2 by default: a question asking for instances
  of a category favours turns naming one); ``--with-rerank``: also the re-ranker (its shipped
  bounds, ``scored_only``) alone, then with the prior at each boost; ``--fusions linear,rrf``:
  instead, the prior off and on (``--boosts``, default 2) under each fusion method;
* ``--feedback`` / ``--dense`` / ``--diversity``: only the default and the rows of
  :data:`FEEDBACK` (full-text pseudo-relevance feedback), :data:`DENSE` (Rocchio feedback on
  the query vector, then both feedback stages together) or :data:`DIVERSITY` (MMR over
  sessions) — stages off by default, measured on top of it.

Each row also gives one recall's p50 wall time (ms; the shared machine's load included, so
only rows of one run compare).

Everything is deterministic: fixed data, fixed clock, a deterministic embedder, fixed grids.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from remem.controller import ControllerConfig
from remem.controller.config import FusionMethod, fitted_weights
from remem.controller.stages import (
    AnswerTypePriorConfig,
    DenseFeedbackConfig,
    DiversityConfig,
    FeedbackConfig,
    RecallStagesConfig,
    SessionConfig,
)
from remem.controller.stages.question_form import QuestionFormConfig
from remem.controller.writes import MemorySpec
from remem.embeddings import EmbeddingService, HashingEmbedder, SentenceTransformerEmbedder
from remem.embeddings.pieces import PiecesConfig, split_pieces
from remem.eval.locomo import evidence_metrics, ingest_conversation, load_locomo
from remem.eval.locomo.format import Conversation
from remem.eval.locomo.ingest import IngestedConversation
from remem.eval.locomo.retrieve import retrieve_conversation

CATEGORIES = ("1", "2", "3", "4")
DEPTH = 40  # what ``remem bench locomo`` asks for with ks up to 20 and index both


def _controller(
    stages: RecallStagesConfig,
    features: Mapping[str, float] | None = None,
    method: FusionMethod | None = None,
) -> ControllerConfig:
    base = ControllerConfig()
    inclusion = dataclasses.replace(base.inclusion, hit_weight=0.0)
    fusion = dataclasses.replace(
        base.fusion, features=features, method=method or base.fusion.method
    )
    return dataclasses.replace(base, inclusion=inclusion, stages=stages, fusion=fusion)


def _embedder(name: str) -> EmbeddingService:
    if name == "local":
        return SentenceTransformerEmbedder.bundled_minilm()
    return HashingEmbedder()


def _off() -> RecallStagesConfig:
    return RecallStagesConfig().without(
        "neighbours",
        "speaker",
        "dates",
        "time_expressions",
        "conflicts",
        "prior_depth",
        "answer_type",
    )


async def _score(
    convs: Sequence[IngestedConversation], config: ControllerConfig
) -> dict[str, float]:
    rows: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = []
    latencies: list[float] = []
    for conv in convs:
        # A tuning script may reach the pipeline: production code sets the config at open.
        pipeline = conv.runtime.controller._recall
        pipeline.config = config
        pipeline.fusion = config.fusion.for_embedder(
            pipeline.retrieval.collections.embeddings.model_name
        )
        for r in await retrieve_conversation(conv, ks=(10,), depth=DEPTH):
            if r.category in CATEGORIES and r.evidence:
                rows.append((conv.conversation.sample_id, r.category, r.ranked, r.evidence))
                latencies.append(r.latency_ms)
    out = _figures(rows)
    # One recall's wall time (the shared machine's load included: compare rows of one run).
    out["p50 ms"] = statistics.median(latencies) if latencies else 0.0
    # Per conversation too (``<sample id> R@10`` …): a choice should help all three.
    for sample in sorted({row[0] for row in rows}):
        part = _figures([row for row in rows if row[0] == sample])
        out.update({f"{sample} {name}": value for name, value in part.items()})
    return out


def _figures(rows: Sequence[tuple[str, str, tuple[str, ...], tuple[str, ...]]]) -> dict[str, float]:
    m = evidence_metrics([r[2] for r in rows], [r[3] for r in rows], (10,))
    multi = [r for r in rows if r[1] == "1"]
    mh = evidence_metrics([r[2] for r in multi], [r[3] for r in multi], (10,))
    out = {
        "R@10": 100 * m["recall@10"],
        "MRR": 100 * m["mrr"],
        "All@10": 100 * m["all@10"],
        "multi-hop R@10": 100 * mh["recall@10"],
        "n": float(len(rows)),
    }
    out["objective"] = (out["R@10"] + out["MRR"] + out["All@10"] + out["multi-hop R@10"]) / 4
    return out


def _line(name: str, m: dict[str, float]) -> str:
    line = (
        f"{name:28s} {m['R@10']:6.1f} {m['MRR']:6.1f} {m['All@10']:7.1f} "
        f"{m['multi-hop R@10']:9.1f} {m['objective']:7.2f} {m.get('p50 ms', 0.0):6.1f}"
    )
    samples = sorted(k.split()[0] for k in m if k.endswith(" objective"))
    return (
        line + "  | " + " ".join(f"{s}: {m[f'{s} R@10']:.1f}/{m[f'{s} MRR']:.1f}" for s in samples)
    )


async def _add_pieces(
    conv: IngestedConversation, config: PiecesConfig | None, context: bool = False
) -> int:
    """Store each long turn's sentence pieces as extra notes keyed (``dia_id``) to the turn.

    A piece is a note of its own (its vector and its words), dated like its turn's session;
    ``retrieve`` keeps a dia_id at its first (best) hit, so a turn ranks by the max over its
    pieces and its whole. ``context``: each turn after the first of its session also gets one
    piece of the previous turn's text and its own (the question it answers, issue #14's lever
    2). Returns the number of pieces written."""
    controller = conv.runtime.controller
    sample = conv.conversation.sample_id
    seen: set[str] = set()
    written = 0
    for session in conv.conversation.sessions:
        conv.clock.set(session.date_time)
        specs: list[MemorySpec] = []
        previous = ""
        for turn in session.turns:
            if turn.dia_id in seen:
                continue
            seen.add(turn.dia_id)
            pieces = split_pieces(turn.content(), config) if config is not None else []
            if context and previous:
                pieces.append(f"{previous} {turn.content()}")
            previous = turn.content()
            for i, piece in enumerate(pieces):
                specs.append(
                    MemorySpec(
                        piece,
                        memory_id=f"{sample}/{turn.dia_id}/piece{i}",
                        metadata={"dia_id": turn.dia_id, "speaker": turn.speaker, "piece": i},
                    )
                )
        if specs:
            await controller.remember_many(
                specs, kind="note", session_id=f"{sample}/session_{session.number}"
            )
            written += len(specs)
    conv.clock.set(conv.asked_at)
    return written


def _expanded(conv: Conversation) -> Conversation:
    sessions = []
    for session in conv.sessions:
        turns = session.turns
        grown = []
        for i, t in enumerate(turns):
            around = [u.text for u in (*turns[max(0, i - 2) : i], *turns[i + 1 : i + 2])]
            grown.append(dataclasses.replace(t, text=" ".join([t.text, *around])))
        sessions.append(dataclasses.replace(session, turns=tuple(grown)))
    return dataclasses.replace(conv, sessions=tuple(sessions))


GRID: list[tuple[str, str, list[Any]]] = [
    ("recency", "weight", [0.0, 0.05, 0.1]),
    ("neighbours", "weight", [0.2, 0.3, 0.5, 0.7]),
    ("neighbours", "expand", [0, 5, 10, 20, 40]),
    ("neighbours", "before", [1, 2, 3, 4]),
    ("neighbours", "after", [1, 2, 3]),
    ("neighbours", "depth_factor", [2, 3, 5]),
    ("neighbours", "reply_weight", [None, 0.75, 1.0, 1.25, 1.5, 2.0]),
    ("speaker", "boost", [1.0, 2.0, 3.0, 5.0]),
    ("dates", "boost", [0.5, 1.0, 2.0, 3.0]),
    ("dates", "slack_days", [1.0, 3.0, 7.0]),
    ("time_expressions", "boost", [0.2, 0.5, 1.0]),
    ("prior_depth", "vector_factor", [1, 2, 3, 5]),
    ("prior_depth", "depth_factor", [3, 5, 8]),
    # The linear fusion's weights, searched live (after the neighbour stage, with the floors):
    # the offline fit (``remem.eval.locomo.fit``) sees the retrievers' raw lists only.
    ("fusion", "vector", [0.2, 0.3, 0.5, 0.75, 1.0, 1.5]),
    ("fusion", "vector_rr", [0.0, 0.05, 0.1, 0.2]),
    ("fusion", "vector_cos", [0.0, 0.2, 0.5, 1.0]),
    ("fusion", "fulltext_rr", [0.0, 0.1, 0.2, 0.5]),
]


FEEDBACK: list[tuple[int, int, float, int]] = [
    (5, 8, 0.2, 0),
    (5, 8, 0.1, 0),
    (5, 8, 0.2, 3),
    (5, 8, 0.2, 5),
    (3, 8, 0.2, 5),
    (5, 8, 0.3, 5),
    (5, 12, 0.2, 5),
    (0, 8, 0.2, 5),
]
"""The pseudo-relevance feedback stage (off by default), as ``(docs, terms, weight,
vector_docs)`` rows (docs 0: the vector hits' words only)."""


DIVERSITY: list[tuple[float, int]] = [
    (0.9, 3),
    (0.8, 3),
    (0.7, 3),
    (0.8, 1),
    (0.6, 2),
]
"""The session-diversity stage (off by default), as ``(decay, cap)`` rows."""


DENSE: list[tuple[int, float, bool]] = [
    (3, 0.3, False),
    (3, 0.5, False),
    (3, 1.0, False),
    (5, 0.5, False),
    (1, 0.5, False),
    (1, 0.5, True),
    (3, 0.5, True),
    (1, 1.0, True),
]
"""The dense (Rocchio) feedback stage (off by default), as ``(docs, beta, keep_first)`` rows."""

RERANK_BOUNDS: list[tuple[str, dict[str, Any]]] = [
    ("unbounded", {"scored_only": False}),
    ("scored_only", {"scored_only": True}),
    ("scored_only max_shift=5", {"scored_only": True, "max_shift": 5}),
    ("scored_only max_shift=10", {"scored_only": True, "max_shift": 10}),
    ("scored_only protect_top=3", {"scored_only": True, "protect_top": 3}),
    ("scored_only alpha=0.5", {"scored_only": True, "alpha": 0.5}),
]
"""The re-ranker's bounds (:class:`remem.controller.stages.RerankConfig`), as ``(label,
fields)`` rows; ``scored_only`` (the default) in all but the first, as it alone keeps ``remem
eval --quick``'s current-fact answer in the prompt (README, "Learned re-ranking"). Run of
2026-12-02, MiniLM, R@10 / MRR / All@10 / multi-hop: off 80.9 / 60.4 / 74.9 / 50.0; unbounded
81.4 / 62.7 / 75.7 / 52.5; scored_only the same; + max_shift=5 80.6 / 62.6 / 74.7 / 50.3;
+ max_shift=10 80.5 / 62.6 / 74.7 / 51.1; + protect_top=3 81.4 / 60.6 / 75.7 / 52.5;
+ alpha=0.5 81.3 / 61.3 / 75.7 / 51.4."""


SESSIONS: list[tuple[int, float, float]] = [
    (1, 0.2, 0.5),
    (3, 0.2, 0.5),
    (3, 0.5, 0.5),
    (5, 0.3, 0.3),
]
"""The session-evidence stage (off by default), as ``(top, boost, min_ratio)`` rows."""

ANSWER_TYPE = (0.5, 1.0, 2.0, 3.0, 4.0)
"""The answer-type prior's boosts measured by ``--answer-type`` (off by default; ``--boosts``
picks some). With
``--embedder local`` (R@10 / MRR / All@10 / multi-hop): off 80.9 / 60.4 / 74.9 / 50.0; 0.5
81.0 / 61.2 / 74.9 / 50.4; 1 81.0 / 61.4 / 74.9 / 51.5; 2 81.3 / 61.4 / 75.5 / 53.2 (R@10
+0.4, short of the +0.5 bar for a default); 3 81.2 / 60.9 / 75.2 / 52.9; 4 81.2 / 60.7 / 75.2
/ 52.9 (``--boosts 2,3,4 --with-rerank``; ``--boosts 1.5,2.5``: 81.2 / 61.6 / 75.2 / 52.5 and
81.2 / 61.4 / 75.2 / 52.5). With ``--with-rerank``: the re-ranker alone 81.4 / 62.7 / 75.7 /
52.5, with boost 2 81.7 / 63.9 / 76.5 / 54.1, with boost 3 81.6 / 63.8 / 76.2 / 53.4 (the pair
stays off: the re-ranker's held-out cost, ``benches/rerank_synthetic.py --answer-type 2``)."""


def _fusion_method(name: str) -> FusionMethod:
    """``name`` as a fusion method (``linear``, ``rrf`` or ``weighted``)."""
    if name not in ("linear", "rrf", "weighted"):
        raise SystemExit(f"--fusions has {name!r}; use linear, rrf or weighted")
    return cast(FusionMethod, name)


async def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--grid", action="store_true", help="coordinate ascent over GRID")
    parser.add_argument("--knobs", default="", help="only these stage.knob entries of GRID")
    parser.add_argument("--expand-index", action="store_true", help="store neighbours' words")
    parser.add_argument("--embedder", choices=("hashing", "local"), default="hashing")
    parser.add_argument(
        "--feedback", action="store_true", help="only the default and the FEEDBACK rows"
    )
    parser.add_argument(
        "--diversity", action="store_true", help="only the default and the DIVERSITY rows"
    )
    parser.add_argument("--dense", action="store_true", help="only the default and the DENSE rows")
    parser.add_argument(
        "--question-form",
        action="store_true",
        help="the question-form stage off, on, off again",
    )
    parser.add_argument(
        "--answer-type",
        action="store_true",
        help="the answer-type prior off, per ANSWER_TYPE boost",
    )
    parser.add_argument(
        "--boosts", default="", help="with --answer-type: only these boosts (2,3,4)"
    )
    parser.add_argument(
        "--with-rerank",
        action="store_true",
        help="with --answer-type: also the re-ranker alone and with the prior at each boost",
    )
    parser.add_argument(
        "--fusions",
        default="",
        help="with --answer-type: the rows under each of these fusion methods (linear,rrf)",
    )
    parser.add_argument("--rerank", action="store_true", help="the re-ranker off, on, off again")
    parser.add_argument(
        "--rerank-bounds", action="store_true", help="the re-ranker off, on per RERANK_BOUNDS row"
    )
    parser.add_argument("--from-row", default="0", help="--dense: start at this DENSE row")
    parser.add_argument(
        "--new", action="store_true", help="the default and the best row of each new stage"
    )
    parser.add_argument(
        "--vector-factors",
        default="",
        help="with --pieces: also rows with prior_depth.vector_factor at each of these (2,3)",
    )
    parser.add_argument(
        "--context",
        action="store_true",
        help="with --pieces: also store each turn with the previous one as a piece",
    )
    parser.add_argument(
        "--pieces",
        type=int,
        default=None,
        metavar="N",
        help="also store each turn longer than N words per sentence; only the default row"
        " (0: the same run without pieces, the row to compare with)",
    )
    args = parser.parse_args(argv)
    conversations = load_locomo(args.data)
    if args.expand_index:
        conversations = [_expanded(c) for c in conversations]
    ingest_start = time.perf_counter()
    convs = [
        await ingest_conversation(
            c,
            args.out / "memories",
            embedder=_embedder(args.embedder),
            controller=_controller(_off()),
        )
        for c in conversations
    ]
    results: dict[str, dict[str, float]] = {}
    turns = sum(c.turns for c in convs)
    print(f"ingested {turns} turns in {time.perf_counter() - ingest_start:.1f} s", flush=True)
    started = time.perf_counter()
    if args.pieces or args.context:
        split = PiecesConfig(True, args.pieces) if args.pieces else None
        n_pieces = sum([await _add_pieces(c, split, args.context) for c in convs])
        print(f"pieces: {n_pieces} for {turns} turns in {time.perf_counter() - started:.1f} s")
    try:
        print(
            f"{'variant':28s} {'R@10':>6s} {'MRR':>6s} {'All@10':>7s} {'multi R10':>9s} {'obj':>7s}"
            f" {'p50 ms':>6s}"
            "  | per conversation R@10/MRR"
        )

        async def run(
            name: str,
            stages: RecallStagesConfig,
            rate: float | None = None,
            features: Mapping[str, float] | None = None,
            method: FusionMethod | None = None,
        ) -> float:
            config = _controller(stages, features, method)
            if rate is not None:
                config = dataclasses.replace(
                    config, inclusion=dataclasses.replace(config.inclusion, recency_rate=rate)
                )
            results[name] = m = await _score(convs, config)
            print(_line(name, m), flush=True)
            return m["objective"]

        if not (
            args.feedback
            or args.diversity
            or args.dense
            or args.question_form
            or args.new
            or args.rerank
            or args.rerank_bounds
            or args.answer_type
            or args.pieces is not None
        ):
            old = dataclasses.replace(_off().recency, weight=1.0, bounded_usage=False)
            await run("old", dataclasses.replace(_off(), recency=old))
            await run("old-norecency", _off(), rate=0.0)
        best = RecallStagesConfig()
        model = convs[0].runtime.controller._recall.retrieval.collections.embeddings.model_name
        weights = dict(fitted_weights(model))
        if args.pieces is not None:
            label = f"+pieces >{args.pieces} words" if args.pieces else "default (no pieces)"
            label = f"{label}{' +context' if args.context else ''}"
            await run(label, best, features=weights)
            for factor in [int(f) for f in args.vector_factors.split(",") if f]:
                deeper = dataclasses.replace(best.prior_depth, vector_factor=factor)
                trial = dataclasses.replace(best, prior_depth=deeper)
                await run(f"{label} vector_factor={factor}", trial, features=weights)
            return 0
        if args.expand_index:
            await run("expanded index, stages", best.without("neighbours"))
            await run("expanded index, no stages", _off())
            return 0
        if args.new:
            feedback = FeedbackConfig(enabled=True, docs=5, terms=8, weight=0.2)
            dense = DenseFeedbackConfig(enabled=True, docs=1, beta=1.0)
            diversity = DiversityConfig(enabled=True, decay=0.9, cap=3)
            await run("default", best, features=weights)
            for name, trial in (
                ("+feedback d=5 t=8 w=0.2", dataclasses.replace(best, feedback=feedback)),
                ("+dense feedback d=1 b=1.0", dataclasses.replace(best, dense_feedback=dense)),
                ("+diversity d=0.9 c=3", dataclasses.replace(best, diversity=diversity)),
                (
                    "+both feedbacks",
                    dataclasses.replace(best, feedback=feedback, dense_feedback=dense),
                ),
                ("default (again)", best),
            ):
                await run(name, trial, features=weights)
            return 0
        if args.rerank:
            off = dataclasses.replace(best, rerank=dataclasses.replace(best.rerank, enabled=False))
            with_rerank = dataclasses.replace(
                best, rerank=dataclasses.replace(best.rerank, enabled=True)
            )
            await run("rerank off", off, features=weights)
            await run("rerank on", with_rerank, features=weights)
            await run("rerank off (again)", off, features=weights)
            return 0
        if args.answer_type and args.fusions:
            # The prior off and on under each fusion method (``[recall] fusion``), one run.
            boosts = [float(b) for b in args.boosts.split(",") if b] or [2.0]
            untyped = dataclasses.replace(best, answer_type=AnswerTypePriorConfig(enabled=False))
            for method in args.fusions.split(","):
                fused = _fusion_method(method)
                await run(f"{method}, answer_type off", untyped, features=weights, method=fused)
                for boost in boosts:
                    typed = AnswerTypePriorConfig(enabled=True, boost=boost)
                    trial = dataclasses.replace(best, answer_type=typed)
                    name = f"{method}, answer_type boost={boost}"
                    await run(name, trial, features=weights, method=fused)
            return 0
        if args.answer_type:
            boosts = [float(b) for b in args.boosts.split(",") if b] or list(ANSWER_TYPE)
            reranked = dataclasses.replace(best.rerank, enabled=True)
            best = best.without("answer_type")  # the rows below switch it on
            await run("default (answer_type off)", best, features=weights)
            for boost in boosts:
                typed = AnswerTypePriorConfig(enabled=True, boost=boost)
                trial = dataclasses.replace(best, answer_type=typed)
                await run(f"+answer_type boost={boost}", trial, features=weights)
            if args.with_rerank:
                # The re-ranker with its shipped bounds (``scored_only``), alone and together.
                await run("+rerank", dataclasses.replace(best, rerank=reranked), features=weights)
                for boost in boosts:
                    typed = AnswerTypePriorConfig(enabled=True, boost=boost)
                    trial = dataclasses.replace(best, answer_type=typed, rerank=reranked)
                    await run(f"+answer_type boost={boost} +rerank", trial, features=weights)
            await run("default, answer_type off (again)", best, features=weights)
            return 0
        if args.rerank_bounds:
            off = dataclasses.replace(best, rerank=dataclasses.replace(best.rerank, enabled=False))
            await run("rerank off", off, features=weights)
            for label, bounds in RERANK_BOUNDS:
                bounded = dataclasses.replace(best.rerank, enabled=True, **bounds)
                trial = dataclasses.replace(best, rerank=bounded)
                await run(f"rerank on {label}", trial, features=weights)
            await run("rerank off (again)", off, features=weights)
            return 0
        if args.question_form:
            plain = best.without("question_form")
            framed = dataclasses.replace(best, question_form=QuestionFormConfig(enabled=True))
            await run("question form off", plain, features=weights)
            await run("question form on", framed, features=weights)
            await run("question form off (again)", plain, features=weights)
            return 0
        if args.dense:
            await run("default", best, features=weights)
            for docs, beta, keep in DENSE[int(args.from_row) :]:
                dense = DenseFeedbackConfig(enabled=True, docs=docs, beta=beta, keep_first=keep)
                name = f"+dense feedback d={docs} b={beta}{' keep' if keep else ''}"
                await run(name, dataclasses.replace(best, dense_feedback=dense), features=weights)
            # The best row of each feedback stage together (they feed different retrievers).
            both = dataclasses.replace(
                best,
                feedback=FeedbackConfig(enabled=True, docs=5, terms=8, weight=0.2),
                dense_feedback=DenseFeedbackConfig(enabled=True, docs=1, beta=1.0),
            )
            await run("+feedback d=5 t=8 w=0.2 +dense d=1 b=1.0", both, features=weights)
            return 0
        if args.diversity:
            await run("default", best, features=weights)
            for decay, cap in DIVERSITY:
                div = DiversityConfig(enabled=True, decay=decay, cap=cap)
                name = f"+diversity decay={decay} cap={cap}"
                await run(name, dataclasses.replace(best, diversity=div), features=weights)
            return 0
        if args.feedback:
            await run("default", best, features=weights)
            for docs, terms, weight, vdocs in FEEDBACK:
                fb_on = FeedbackConfig(
                    enabled=True,
                    docs=docs,
                    terms=terms,
                    weight=weight,
                    vector_docs=vdocs,
                )
                name = f"+feedback d={docs} t={terms} w={weight} v={vdocs}"
                await run(name, dataclasses.replace(best, feedback=fb_on), features=weights)
            return 0
        if args.grid:
            score = await run("default", best, features=weights)
            only = {k for k in args.knobs.split(",") if k}
            for stage, knob, values in GRID:
                if only and f"{stage}.{knob}" not in only:
                    continue
                for v in values:
                    if stage == "fusion":
                        trial, trial_weights = best, {**weights, knob: v}
                    else:
                        section = dataclasses.replace(getattr(best, stage), **{knob: v})
                        trial = dataclasses.replace(best, **{stage: section})
                        trial_weights = weights
                    s = await run(f"{stage}.{knob}={v}", trial, features=trial_weights)
                    if s > score + 1e-9:
                        best, weights, score = trial, trial_weights, s
            print("best:", best)
            print("fusion weights:", {k: v for k, v in weights.items() if v})
        await run("chosen" if args.grid else "default", best, features=weights)
        no_expansion = dataclasses.replace(best.neighbours, expand=0)
        await run(
            "-neighbours.expand",
            dataclasses.replace(best, neighbours=no_expansion),
            features=weights,
        )
        for stage in (
            "recency",
            "neighbours",
            "speaker",
            "dates",
            "time_expressions",
            "prior_depth",
            "answer_type",
        ):
            await run(f"-{stage}", best.without(stage), features=weights)
        await run(
            "all stages off",
            best.without(
                "neighbours", "speaker", "dates", "time_expressions", "prior_depth", "answer_type"
            ),
            features=weights,
        )
        for top, boost, ratio in SESSIONS:
            on = SessionConfig(enabled=True, top=top, boost=boost, min_ratio=ratio)
            name = f"+sessions top={top} boost={boost} r={ratio}"
            await run(name, dataclasses.replace(best, sessions=on), features=weights)
    finally:
        for c in convs:
            await c.runtime.aclose()
    (args.out / "stages.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
