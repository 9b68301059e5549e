"""The learned re-ranking stage: its features, its re-ordering by the weights, its config, and
in recall (real stores)."""

from __future__ import annotations

import dataclasses

import pytest

from remem.controller import ControllerConfig
from remem.controller.stages import RecallStagesConfig, RerankConfig, RerankRow, rerank_factors
from remem.controller.stages.rerank import feature_names, question_types, rerank_features
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
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        RerankConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, RememError)


def test_the_stage_is_off_by_default_with_the_fitted_weights() -> None:
    shipped = RecallStagesConfig().rerank
    assert shipped.enabled is False
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
