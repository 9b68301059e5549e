"""The session-evidence stage: its factors, its bounds, its config errors, and in recall."""

from __future__ import annotations

import dataclasses

import pytest

from remem.controller import ControllerConfig
from remem.controller.stages import RecallStagesConfig, SessionConfig, session_factors
from remem.errors import ConfigError, RememError
from tests.controller.conftest import Factory
from tests.controller.stages.test_stages_in_recall import ALL_OFF, _weak_matches

ON = SessionConfig(enabled=True, top=1, boost=1.0, min_ratio=0.0)


def test_the_strongest_session_lifts_its_strong_turns_only() -> None:
    scores = {"a": 1.0, "b": 0.6, "c": 0.2, "d": 0.7, "e": 0.9}
    sessions = {"a": "s1", "b": "s1", "c": "s1", "d": "s2", "e": None}
    f = session_factors(scores, sessions, SessionConfig(enabled=True, top=1, boost=0.5))
    assert f == {"a": 1.5, "b": 1.5, "c": 1.0, "d": 1.0, "e": 1.0}


def test_a_weaker_session_gets_a_smaller_lift_bounded_by_one_plus_boost() -> None:
    scores = {"a": 1.0, "b": 0.5, "c": 0.4}
    sessions = {"a": "s1", "b": "s2", "c": "s2"}
    f = session_factors(scores, sessions, SessionConfig(enabled=True, top=2, boost=0.4))
    assert f["a"] == pytest.approx(1.4)
    assert f["b"] == f["c"] == pytest.approx(1.0 + 0.4 * 0.5)
    assert all(1.0 <= v <= 1.4 for v in f.values())


def test_off_zero_boost_or_no_positive_score_changes_nothing() -> None:
    scores = {"a": 1.0, "b": 0.5}
    sessions = {"a": "s1", "b": "s1"}
    assert set(session_factors(scores, sessions, SessionConfig()).values()) == {1.0}
    zero = SessionConfig(enabled=True, boost=0.0)
    assert set(session_factors(scores, sessions, zero).values()) == {1.0}
    assert set(session_factors({"a": 0.0}, {"a": "s"}, ON).values()) == {1.0}
    assert session_factors({}, {}, ON) == {}


def test_sessions_tied_on_their_best_go_by_id() -> None:
    scores = {"x": 1.0, "y": 1.0}
    f = session_factors(scores, {"x": "s2", "y": "s1"}, ON)
    assert f == {"x": 1.0, "y": 2.0}


@pytest.mark.parametrize(
    "kwargs",
    [{"top": 0}, {"top": True}, {"boost": -0.1}, {"boost": 11.0}, {"min_ratio": 1.5}],
)
def test_bad_settings_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="sessions") as info:
        SessionConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, RememError)


def test_the_stage_is_off_by_default_and_switchable() -> None:
    assert RecallStagesConfig().sessions.enabled is False
    stages = RecallStagesConfig.from_mapping({"sessions": {"enabled": True, "boost": 0.5}})
    assert stages.sessions == SessionConfig(enabled=True, boost=0.5)
    assert stages.without("sessions").sessions.enabled is False


@pytest.mark.parametrize("on", [True, False])
async def test_a_fair_turn_of_the_best_session_outranks_its_twin_elsewhere(
    make_stack: Factory, on: bool
) -> None:
    stages = dataclasses.replace(ALL_OFF, sessions=ON) if on else ALL_OFF
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    await _weak_matches(c, "camping")
    elsewhere = await c.record_turn("s2", "we went camping once", "")
    await c.record_turn("s1", "my family and I went camping by the lake with the kids", "")
    beside = await c.record_turn("s1", "we went camping once", "")
    query = "where did the family go camping with the kids by the lake"
    hits = await c.recall(query, k=10, stages=["episodic"])
    by_id = {h.record.id: h for h in hits}
    a, b = by_id[beside.id], by_id[elsewhere.id]
    # Twins share their words: only full text's rank between them can tell them apart.
    assert a.signals["fulltext"] == pytest.approx(b.signals["fulltext"])
    if on:
        assert a.signals["sessions"] == pytest.approx(2.0)
        assert b.signals["sessions"] == 1.0
        assert a.score == pytest.approx(2.0 * a.signals["fusion"])
        assert a.score > b.score
        assert "sessions" in a.explanation
    else:
        assert a.signals["sessions"] == b.signals["sessions"] == 1.0
        assert a.score == pytest.approx(a.signals["fusion"])
        assert b.score == pytest.approx(b.signals["fusion"])
