"""Fusion: RRF and weighted fusion, and the labelled synthetic evaluation of every method."""

from __future__ import annotations

from dataclasses import replace

import pytest

from remem.controller import ControllerConfig, FusionConfig, RankedList
from remem.controller.config import DEFAULT_FUSION
from remem.controller.fusion import reciprocal_rank_fusion, weighted_score_fusion
from remem.controller.stages import AnswerTypePriorConfig, RecallStagesConfig
from tests.controller import eval_set
from tests.controller.conftest import Factory


def test_rrf_rewards_agreement_and_uses_ranks_only() -> None:
    lists = [
        RankedList("vector", [("a", 0.9), ("b", 0.8)]),
        RankedList("fulltext", [("b", 120.0), ("c", 3.0)]),
    ]
    fused = reciprocal_rank_fusion(lists, k=60)
    assert fused["b"].score == pytest.approx(1 / 62 + 1 / 61)
    assert max(fused.values(), key=lambda f: f.score).key == "b"
    assert fused["b"].parts["fulltext"][0] == 1


def test_weighted_min_max_and_lone_hit() -> None:
    lists = [RankedList("vector", [("a", 0.9), ("b", 0.5)]), RankedList("graph", [("c", 0.1)])]
    fused = weighted_score_fusion(lists, weights={"vector": 2.0, "graph": 1.0})
    assert fused["a"].score == pytest.approx(2.0)
    assert fused["b"].score == pytest.approx(0.0)
    assert fused["c"].score == pytest.approx(1.0)


async def measure(
    make_stack: Factory, method: str, name: str, stages: RecallStagesConfig | None = None
) -> tuple[float, float]:
    data = eval_set.build(seed=7)
    config = ControllerConfig(fusion=FusionConfig(method=method))  # type: ignore[arg-type]
    if stages is not None:
        config = replace(config, stages=stages)
    s = await make_stack(config=config, name=name)
    for mid, text in data.memories:
        await s.controller.remember(text, memory_id=mid)
    for user, assistant in data.turns:
        await s.controller.record_turn("chat", user, assistant)
    results = await s.controller.recall_many([q.question for q in data.questions], k=10)
    ranked = [[h.record.id for h in r] for r in results]
    return eval_set.mrr_and_recall(ranked, data.questions)


async def test_fusion_methods_on_the_synthetic_persona_set(make_stack: Factory) -> None:
    """Recall@5 and MRR on a set none of the weights were fitted on (a held-out check of the
    default fusion), with the defaults and with the answer-type prior off (the old defaults).

    The default, linear fusion with the hashing weights fitted on LoCoMo dev
    (:mod:`remem.eval.locomo.fit`), gives full text most of the vote; on this set of paraphrased
    questions, where the lexical vectors carry more, it measured R@5 0.665 against RRF's 0.820
    (MRR 0.397 vs 0.383) — a known cost of fitting on real conversations, recorded in
    :mod:`remem.controller.fusion` — and, with the stages and the neighbour expansion, 0.860
    against 0.830 (MRR 0.510 vs 0.463). With the answer-type prior on (the default since
    2026-12-03) RRF gains more MRR here: measured MRR / R@5 rrf 0.816 / 0.965, weighted
    0.754 / 1.000, linear 0.777 / 0.995. Linear stays the default on the evidence of LoCoMo dev
    (``benches/locomo_stages.py --embedder local --answer-type --fusions linear,rrf``, R@10 /
    MRR / All@10 / multi-hop R@10): linear 80.9 / 60.4 / 74.9 / 50.0 → 81.3 / 61.4 / 75.5 /
    53.2 with the prior, rrf 74.2 / 51.6 / 68.1 / 45.4 → 75.1 / 52.2 / 68.9 / 51.5. This test
    pins what holds: linear's R@5 is at least RRF's, the defaults beat the old defaults of
    either method, and with the prior off linear still beats RRF on both figures."""
    old = RecallStagesConfig().without("answer_type")
    rrf = await measure(make_stack, "rrf", "rrf")
    weighted = await measure(make_stack, "weighted", "weighted")
    linear = await measure(make_stack, "linear", "linear")
    rrf_old = await measure(make_stack, "rrf", "rrf-old", old)
    linear_old = await measure(make_stack, "linear", "linear-old", old)
    print(
        f"\nrrf MRR={rrf[0]:.3f} R@5={rrf[1]:.3f}; "
        f"weighted MRR={weighted[0]:.3f} R@5={weighted[1]:.3f}; "
        f"linear MRR={linear[0]:.3f} R@5={linear[1]:.3f}; prior off: "
        f"rrf MRR={rrf_old[0]:.3f} R@5={rrf_old[1]:.3f}; "
        f"linear MRR={linear_old[0]:.3f} R@5={linear_old[1]:.3f}"
    )
    assert min(rrf[1], weighted[1], linear[1]) > 0.3  # all are useful on a lexical embedder
    assert DEFAULT_FUSION == "linear"
    assert RecallStagesConfig().answer_type.enabled
    # With the neighbour expansion and the answer-type prior: R@5 linear 0.995, rrf 0.965.
    assert linear[1] >= 0.95
    assert linear[1] >= rrf[1]
    # The defaults beat the old defaults (prior off) of either method, on both figures.
    assert linear[0] > max(rrf_old[0], linear_old[0])
    assert linear[1] > max(rrf_old[1], linear_old[1])
    # The old pin, the prior off: linear beats RRF (MRR 0.510 vs 0.463, R@5 0.860 vs 0.830).
    assert linear_old[0] >= rrf_old[0]
    assert linear_old[1] >= rrf_old[1]


async def test_the_answer_type_prior_helps_the_held_out_synthetic_set(
    make_stack: Factory,
) -> None:
    """The answer-type prior (on by default, boost 2) against the same defaults with it off,
    the default fusion: its held-out check (the lexicon was written from LoCoMo dev misses). A
    question asking for a category ("Which city …") lifts the person's fact naming one above
    their other facts: measured MRR 0.510 → 0.777, R@5 0.860 → 0.995 (hashing). Pinned so the
    stage never costs this set."""
    off = await measure(make_stack, "linear", "off", RecallStagesConfig().without("answer_type"))
    typed = AnswerTypePriorConfig(enabled=True, boost=2.0)
    assert RecallStagesConfig().answer_type == typed  # the default
    on = await measure(make_stack, "linear", "on", replace(RecallStagesConfig(), answer_type=typed))
    print(
        f"\nanswer_type off MRR={off[0]:.3f} R@5={off[1]:.3f}; on MRR={on[0]:.3f} R@5={on[1]:.3f}"
    )
    assert on[0] > off[0]
    assert on[1] >= off[1]


def test_fusion_config_validation() -> None:
    from remem.errors import ConfigError

    with pytest.raises(ConfigError):
        FusionConfig(method="max")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        FusionConfig(weights={"vector": -1.0})
    with pytest.raises(ConfigError):
        FusionConfig(weights={"bm25": 1.0})
    assert replace(FusionConfig(), rrf_k=10).rrf_k == 10
