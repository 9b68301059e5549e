"""The learned re-ranking stage: its features, its re-ordering by the weights, its config, and
in recall (real stores)."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remem.controller import ControllerConfig
from remem.controller.stages import RecallStagesConfig, RerankConfig, RerankRow, rerank_factors
from remem.controller.stages.rerank import (
    bounded_order,
    feature_names,
    question_types,
    rerank_features,
)
from remem.controller.stages.rerank_weights import WEIGHTS
from remem.errors import ConfigError, RememError
from tests.controller.conftest import Factory
from tests.controller.stages.test_stages_in_recall import ALL_OFF, FILLER


def _row(
    key: str,
    score: float,
    *,
    fulltext: tuple[int, float] | None = None,
    vector: tuple[int, float] | None = None,
    session: str | None = None,
    text: str = "a few words here",
    time: float = 1.0,
) -> RerankRow:
    return RerankRow(key, score, fulltext, vector, 0.0, 1.0, 1.0, time, session, text, True)


def test_the_block_is_reordered_by_the_weights_and_keeps_its_scores() -> None:
    rows = [
        _row("a", 2.0, fulltext=(1, 8.0)),
        _row("b", 1.0, vector=(1, 0.9)),
        _row("c", 0.5, vector=(2, 0.4)),
    ]
    on = RerankConfig(enabled=True, weights={"vector_cos": 1.0})
    f = rerank_factors("what did Ana cook?", rows, on)
    # b (cos 0.9) takes a's score, c (0.4) takes b's, a (no vector) takes c's.
    assert f == {"b": pytest.approx(2.0), "c": pytest.approx(2.0), "a": pytest.approx(0.25)}
    new = {r.key: r.score * f[r.key] for r in rows}
    assert sorted(new.values()) == sorted(r.score for r in rows)
    # A negative weight on the position reverses the block.
    rev = rerank_factors("x", rows, RerankConfig(enabled=True, weights={"final_rr": -1.0}))
    assert {k: rows_score * rev[k] for k, rows_score in (("a", 2.0), ("c", 0.5))} == {
        "a": pytest.approx(0.5),
        "c": pytest.approx(2.0),
    }


def test_only_the_depth_best_are_reordered() -> None:
    rows = [_row(k, s) for k, s in (("a", 3.0), ("b", 2.0), ("c", 1.0))]
    f = rerank_factors("x", rows, RerankConfig(enabled=True, depth=2, weights={"final_rr": -1.0}))
    assert f == {"a": pytest.approx(2 / 3), "b": pytest.approx(1.5)}


def test_off_no_weights_or_one_row_changes_nothing() -> None:
    rows = [_row("a", 2.0), _row("b", 1.0)]
    assert rerank_factors("x", rows, RerankConfig(weights={"final_rr": -1.0})) == {}
    assert rerank_factors("x", rows, RerankConfig(enabled=True, weights={})) == {}
    assert rerank_factors("x", rows[:1], RerankConfig(enabled=True, weights={"turn": 1.0})) == {}


def test_ties_keep_the_previous_order() -> None:
    rows = [_row("a", 2.0), _row("b", 1.0)]
    f = rerank_factors("x", rows, RerankConfig(enabled=True, weights={"turn": 1.0}))
    assert f == {"a": 1.0, "b": 1.0}


def test_features_of_a_block() -> None:
    rows = [
        _row("a", 2.0, fulltext=(1, 8.0), session="s1", text="one two"),
        _row("b", 1.0, fulltext=(3, 4.0), vector=(1, 0.5), session="s2", time=1.5),
        _row("c", 0.5, vector=(2, 0.25), session="s1"),
    ]
    xa, xb, xc = rerank_features("When did Ana move?", rows)
    assert xa["final_rr"] == 1.0
    assert "final_log" not in xa
    assert xa["fulltext_rel"] == 1.0
    assert xb["fulltext_rel"] == 0.5
    assert xb["fulltext_rr"] == pytest.approx(1 / 3)
    assert xb["both"] == 1.0
    assert "both" not in xa
    assert xc["vector_rel"] == 0.5
    assert xc["vector_cos"] == 0.25
    assert xc["final_log"] == pytest.approx(-1.3862943611)
    assert xa["session_rr"] == 1.0
    assert xb["session_rr"] == 0.5
    assert xc["session_hits"] == pytest.approx(2 / 3)
    assert xa["length"] == 0.02
    assert xb["time"] == 1.0
    assert xb["when*time"] == 1.0
    assert "time" not in xa
    assert "who*final_rr" not in xa
    assert set(xa) <= set(feature_names())


@pytest.mark.parametrize(
    ("query", "types"),
    [
        ("When did Caroline go to the LGBTQ support group?", {"when"}),
        ("How many times has Jon been to Rome?", {"how_many", "how"}),
        ("Would Melanie be considered religious?", {"yes_no"}),
        ("What year did Ana move?", {"when"}),
        ("Who gave Jon the shop?", {"who"}),
        ("Jon visited which cities?", {"which"}),
        ("Tell me about the trip", set()),
    ],
)
def test_question_types(query: str, types: set[str]) -> None:
    assert question_types(query) == types


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"depth": 1}, "depth"),
        ({"depth": True}, "depth"),
        ({"enabled": "yes"}, "enabled"),
        ({"weights": {"nope": 1.0}}, "unknown features"),
        ({"weights": {"turn": float("nan")}}, "finite"),
        ({"weights": [1.0]}, "table"),
        ({"scored_only": 1}, "scored_only"),
        ({"protect_top": -1}, "protect_top"),
        ({"protect_top": 2.0}, "protect_top"),
        ({"max_shift": 0}, "max_shift"),
        ({"max_shift": True}, "max_shift"),
        ({"alpha": 1.5}, "alpha"),
        ({"alpha": float("nan")}, "alpha"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        RerankConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, RememError)


def test_the_stage_is_off_by_default_with_the_fitted_weights_and_bounds() -> None:
    shipped = RecallStagesConfig().rerank
    assert shipped.enabled is False
    assert shipped.scored_only is True
    assert (shipped.protect_top, shipped.max_shift, shipped.alpha) == (0, None, 1.0)
    assert shipped.weights == WEIGHTS
    assert WEIGHTS
    assert set(WEIGHTS) <= set(feature_names())


def test_the_stage_is_switchable_from_the_stages_table() -> None:
    stages = RecallStagesConfig.from_mapping(
        {"rerank": {"enabled": True, "depth": 10, "weights": {"vector_cos": 2.0}}}
    )
    assert stages.rerank == RerankConfig(enabled=True, depth=10, weights={"vector_cos": 2.0})
    assert stages.without("rerank").rerank.enabled is False


@pytest.mark.parametrize("on", [True, False])
async def test_recall_orders_the_block_by_the_weights(make_stack: Factory, on: bool) -> None:
    reverse = RerankConfig(enabled=on, depth=50, weights={"final_rr": -1.0})
    stages = dataclasses.replace(ALL_OFF, rerank=reverse)
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    for i, filler in enumerate(FILLER):
        await c.record_turn(f"s{i}", f"{filler} " + "garden " * (i + 1), "")
    hits = await c.recall("garden", k=10, stages=["episodic"])
    assert len(hits) == len(FILLER)
    fused = [h.signals["fusion"] for h in hits]
    if on:
        # The weakest fused match comes first and takes the best score.
        assert fused == sorted(fused)
        assert fused[0] < fused[-1]
        assert all("rerank" in h.signals for h in hits)
        assert "rerank" in hits[0].explanation
    else:
        assert fused == sorted(fused, reverse=True)
        assert all("rerank" not in h.signals for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


REVERSE = {"final_rr": -1.0}
"""Weights that rank the block upside down (the last candidate scores best)."""


def _reversed(n: int, **bounds: object) -> dict[str, float]:
    rows = [_row(f"k{i:02d}", float(n - i)) for i in range(n)]
    return rerank_factors("x", rows, RerankConfig(enabled=True, weights=REVERSE, **bounds))  # type: ignore[arg-type]


def _new_order(n: int, factors: dict[str, float]) -> list[str]:
    scores = {f"k{i:02d}": (n - i) * factors[f"k{i:02d}"] for i in range(n)}
    return sorted(scores, key=lambda k: (-scores[k], k))


def test_a_movement_cap_bounds_every_move_both_ways() -> None:
    order = _new_order(6, _reversed(6, max_shift=2))
    # Reversed would be k05 … k00; capped at 2, k00 falls no lower than slot 2, k01 than 3.
    assert order == ["k02", "k03", "k00", "k01", "k05", "k04"]
    for slot, key in enumerate(order):
        assert abs(int(key[1:]) - slot) <= 2


def test_a_protected_head_keeps_its_places() -> None:
    order = _new_order(5, _reversed(5, protect_top=2))
    assert order == ["k00", "k01", "k04", "k03", "k02"]


def test_a_blend_takes_the_factor_to_the_power_alpha() -> None:
    full = _reversed(4)
    half = _reversed(4, alpha=0.5)
    assert half == {k: pytest.approx(f**0.5) for k, f in full.items()}
    assert set(_reversed(4, alpha=0.0).values()) == {1.0}


def test_scored_only_leaves_unscored_candidates_out_of_the_block() -> None:
    rows = [_row("a", 2.0), _row("b", 1.0), _row("z", 0.0), _row("y", 0.0)]
    weights = {"final_rr": -1.0}
    # Unbounded, b takes a zero score from the unscored candidates that climb over it.
    loose = rerank_factors(
        "x", rows, RerankConfig(enabled=True, weights=weights, scored_only=False)
    )
    assert loose["b"] == 0.0
    kept = RerankConfig(enabled=True, weights=weights)
    assert rerank_factors("x", rows, kept) == {"a": pytest.approx(0.5), "b": pytest.approx(2.0)}
    assert rerank_factors("x", rows[:1] + rows[2:], kept) == {}


@given(
    ranked=st.permutations(list(range(12))).flatmap(
        lambda p: st.integers(0, len(p)).map(lambda n: (list(p), n))
    ),
    shift=st.one_of(st.none(), st.integers(1, 13)),
)
def test_bounded_order_is_a_permutation_within_its_bounds(
    ranked: tuple[list[int], int], shift: int | None
) -> None:
    perm, head = ranked
    out = bounded_order(perm, head, shift)
    assert sorted(out) == list(range(len(perm)))
    assert out[:head] == list(range(min(head, len(perm))))
    if shift is not None:
        assert all(abs(i - slot) <= shift for slot, i in enumerate(out))
    if shift is None or shift >= len(perm):
        assert out[head:] == [i for i in perm if i >= head]


@pytest.mark.parametrize("n", [0, 1, 2])
def test_bounded_order_of_tiny_blocks(n: int) -> None:
    ranked = list(range(n))[::-1]
    assert bounded_order(ranked, 0, 1) == ranked
    assert bounded_order(ranked, 5, None) == list(range(n))


def test_the_bounds_are_set_from_the_stages_table() -> None:
    stages = RecallStagesConfig.from_mapping(
        {"rerank": {"scored_only": True, "protect_top": 3, "max_shift": 5, "alpha": 0.5}}
    )
    assert stages.rerank == RerankConfig(scored_only=True, protect_top=3, max_shift=5, alpha=0.5)


async def test_the_newest_keyed_value_still_wins_over_what_the_re_ranker_lifts(
    make_stack: Factory,
) -> None:
    # Weights that favour the better full-text match (the old value names Porto): run after
    # the conflicts, the re-ranker handed the superseded value the newest one's score.
    lift_old = RerankConfig(enabled=True, weights={"fulltext_rel": 5.0})
    stages = dataclasses.replace(RecallStagesConfig().without("recency"), rerank=lift_old)
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    key = {"subject": "user", "attribute": "city"}
    old = await c.remember("The user's city is Porto", metadata={**key, "value": "Porto"})
    s.clock.advance(timedelta(days=40))
    new = await c.remember("The user's city is now Lisbon", metadata={**key, "value": "Lisbon"})
    hits = await c.recall("user city Porto", k=5, stages=["short_term"])
    ids = [h.record.id for h in hits]
    assert ids[0] == new.id
    assert "rerank" in hits[ids.index(old.id)].signals
    assert hits[ids.index(old.id)].signals["conflict"] < 1.0
