"""The session-diversity stage: its order, its bounds, its config errors, and in recall."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remem.controller import ControllerConfig
from remem.controller.stages import DiversityConfig, RecallStagesConfig, diversify
from remem.errors import ConfigError, RememError
from tests.controller.conftest import Factory
from tests.controller.stages.test_stages_in_recall import ALL_OFF, _weak_matches

ON = DiversityConfig(enabled=True, decay=0.5, cap=2)


def test_a_sessions_second_candidate_steps_behind_another_sessions_near_equal_one() -> None:
    scores = {"a": 1.0, "b": 0.9, "c": 0.6, "d": 0.4, "x": 0.3}
    sessions = {"a": "s1", "b": "s1", "c": "s2", "d": "s1", "x": None}
    order, factors = diversify(scores, sessions, ON)
    # a (s1, first) · c (s2, first) · b (s1 holds 1: 0.45) · x (no session: 0.3) · d (0.1)
    assert order == ["a", "c", "b", "x", "d"]
    assert factors == {"a": 1.0, "c": 1.0, "b": 0.5, "x": 1.0, "d": 0.25}


def test_a_far_better_candidate_still_comes_first() -> None:
    scores = {"a": 1.0, "b": 0.9, "c": 0.1}
    order, _ = diversify(scores, {"a": "s", "b": "s", "c": "t"}, ON)
    assert order == ["a", "b", "c"]


def test_the_cap_bounds_the_penalty() -> None:
    scores = {f"k{i}": 1.0 - i / 100 for i in range(6)}
    _, factors = diversify(scores, dict.fromkeys(scores, "s"), ON)
    assert min(factors.values()) == pytest.approx(0.5**2)


def test_off_or_decay_one_is_the_plain_order() -> None:
    scores = {"b": 1.0, "a": 1.0, "c": 0.5}
    sessions = dict.fromkeys(scores, "s")
    plain = (["a", "b", "c"], {"a": 1.0, "b": 1.0, "c": 1.0})
    assert diversify(scores, sessions, DiversityConfig()) == plain
    assert diversify(scores, sessions, DiversityConfig(enabled=True, decay=1.0)) == plain
    assert diversify(scores, sessions, ON, limit=2)[0] == ["a", "b"]
    assert diversify({}, {}, ON) == ([], {})


@given(
    st.dictionaries(
        st.text("abcdef", min_size=1, max_size=3),
        st.tuples(st.floats(0.0, 10.0), st.sampled_from(["s1", "s2", "s3", None])),
        max_size=30,
    ),
    st.floats(0.05, 1.0),
    st.integers(1, 5),
    st.one_of(st.none(), st.integers(0, 40)),
)
def test_the_order_is_a_permutation_with_non_increasing_placed_scores(
    rows: dict[str, tuple[float, str | None]], decay: float, cap: int, limit: int | None
) -> None:
    scores = {k: v[0] for k, v in rows.items()}
    sessions = {k: v[1] for k, v in rows.items()}
    order, factors = diversify(scores, sessions, DiversityConfig(True, decay, cap), limit)
    n = len(scores) if limit is None else min(limit, len(scores))
    assert len(order) == n == len(set(order))
    assert set(order) <= set(scores)
    placed = [scores[k] * factors[k] for k in order]
    assert placed == sorted(placed, reverse=True)
    assert all(decay**cap - 1e-12 <= f <= 1.0 for f in factors.values())
    assert diversify(scores, sessions, DiversityConfig(True, decay, cap), limit) == (
        order,
        factors,
    )


@pytest.mark.parametrize(
    "kwargs", [{"decay": 0.0}, {"decay": 1.5}, {"cap": 0}, {"cap": True}, {"enabled": 1}]
)
def test_bad_settings_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="diversity") as info:
        DiversityConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, RememError)


def test_the_stage_is_off_by_default_and_switchable() -> None:
    assert RecallStagesConfig().diversity.enabled is False
    stages = RecallStagesConfig.from_mapping({"diversity": {"enabled": True, "decay": 0.7}})
    assert stages.diversity == DiversityConfig(enabled=True, decay=0.7)
    assert stages.without("diversity").diversity.enabled is False


@pytest.mark.parametrize("on", [True, False])
async def test_a_twin_in_another_session_rises_above_a_sessions_second(
    make_stack: Factory, on: bool
) -> None:
    div = DiversityConfig(enabled=True, decay=0.5, cap=3)
    stages = dataclasses.replace(ALL_OFF, diversity=div) if on else ALL_OFF
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    await _weak_matches(c, "camping")
    # The twin is older, so full text (ties: newer first) ranks it below ``second``.
    twin = await c.record_turn("s2", "camping by the lake once", "")
    s.clock.advance(timedelta(minutes=1))
    top = await c.record_turn("s1", "we went camping by the lake with the kids, lake camping", "")
    second = await c.record_turn("s1", "camping by the lake once", "")
    hits = await c.recall("camping by the lake with the kids", k=10, stages=["episodic"])
    ids = [h.record.id for h in hits]
    assert ids[0] == top.id
    by_id = {h.record.id: h for h in hits}
    # Twins share their words: only full text's rank between them tells them apart.
    assert by_id[second.id].signals["fulltext"] == pytest.approx(by_id[twin.id].signals["fulltext"])
    assert by_id[second.id].signals["fusion"] > by_id[twin.id].signals["fusion"]
    if on:
        assert ids.index(twin.id) < ids.index(second.id)
        assert by_id[second.id].signals["diversity"] == 0.5
        assert by_id[twin.id].signals["diversity"] == 1.0
        assert "diversity" in by_id[second.id].explanation
    else:
        assert ids.index(second.id) < ids.index(twin.id)
        assert "diversity" not in by_id[second.id].signals
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
