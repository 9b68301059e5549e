"""The pseudo-relevance feedback stage: its feedback query, its merge, its config, and in recall."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from remem.controller import ControllerConfig
from remem.controller.stages import (
    FeedbackConfig,
    FeedbackDoc,
    RecallStagesConfig,
    feedback_query,
    vector_docs,
    with_feedback,
)
from remem.controller.stages.feedback import merge_feedback
from remem.errors import ConfigError, RememError
from remem.models import (
    EpisodeKind,
    EpisodicHit,
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
)
from remem.staging import StagedScore
from tests.controller.conftest import T0, Factory
from tests.controller.stages.test_stages_in_recall import ALL_OFF, FILLER

ON = FeedbackConfig(enabled=True, docs=2, terms=3, weight=0.5)


def _hit(
    i: str, text: str, score: float, *, speaker: str | None = None, age: int = 0
) -> EpisodicHit:
    return EpisodicHit(
        id=i,
        kind=EpisodeKind.TURN,
        session_id="s",
        turn_number=1,
        text=text,
        score=score,
        created_at=T0 - timedelta(hours=age),
        metadata={"speaker": speaker} if speaker else {},
    )


def _record(i: str, text: str, metadata: dict[str, object]) -> MemoryRecord:
    lc = MemoryLifecycleMetadata(
        stage=MemoryStage.LONG_TERM, score_reference_time=T0, created_at=T0
    )
    return MemoryRecord(id=i, text=text, kind=MemoryKind.NOTE, lifecycle=lc, metadata=metadata)


def test_the_feedback_query_holds_the_best_hits_own_words_only() -> None:
    hits = [
        _hit("a", "Jon: the gondola ride in 2019 was what I loved", 3.0, speaker="Jon"),
        _hit("b", "Jon: gondola canals, nothing else", 1.5, speaker="Jon"),
        _hit("c", "Gina: canals again and canals", 1.0, speaker="Gina"),
    ]
    q = feedback_query("what did Jon love on the ride?", hits, ON)
    assert q is not None
    terms = q.split()
    # Query words (jon, ride), stop words (the, in, was, what, i), numbers, the speaker's own
    # label and words of hits below the ``docs`` best ("again") are never fed back.
    assert set(terms) <= {"gondola", "loved", "canals", "nothing", "else"}
    assert len(terms) == ON.terms
    # gondola: in both fed-back hits, so the most relevance mass.
    assert "gondola" in terms
    assert terms == sorted(terms)


def test_rarer_words_in_the_first_list_weigh_more() -> None:
    common = [_hit(f"x{i}", "weekend plans", 0.5) for i in range(8)]
    hits = [_hit("a", "weekend museum", 2.0), *common]
    one = dataclasses.replace(ON, docs=1, terms=1)
    # Same mass in the best hit; "weekend" is in every hit of the list, "museum" in one.
    assert feedback_query("what happened", hits, one) == "museum"


def test_nothing_to_feed_back_gives_none() -> None:
    assert feedback_query("anything", [], ON) is None
    assert feedback_query("anything", [_hit("a", "gondola", 0.0)], ON) is None
    assert feedback_query("the gondola", [_hit("a", "the gondola", 1.0)], ON) is None


def test_the_merge_scales_and_down_weights_the_second_list() -> None:
    first = [_hit("a", "x", 4.0), _hit("b", "x", 2.0)]
    second = [_hit("c", "x", 10.0), _hit("b", "x", 5.0)]
    merged = merge_feedback(first, second, 0.5)
    scores = {h.id: h.score for h in merged}
    # scale = 0.5 * 4 / 10 = 0.2
    assert scores == pytest.approx({"a": 4.0, "b": 2.0 + 1.0, "c": 2.0})
    assert [h.id for h in merged] == ["a", "b", "c"]
    # A tie goes to the newer hit, then by id: the stores' own order.
    tied = merge_feedback([_hit("a", "x", 1.0, age=5)], [_hit("z", "x", 2.0)], 1.0)
    assert [h.id for h in tied] == ["z", "a"]
    assert merge_feedback(first, [], 0.5) == first
    assert merge_feedback([], second, 0.5) == []


async def test_with_feedback_runs_one_batch_for_the_queries_that_have_one() -> None:
    calls: list[list[str]] = []

    async def search(qs: object) -> list[list[EpisodicHit]]:
        calls.append(list(qs))  # type: ignore[call-overload]
        return [[_hit("new", "gondola canals", 1.0)] for _ in calls[-1]]

    firsts = [[_hit("a", "gondola canals", 2.0)], []]
    out = await with_feedback(["trip", "nothing"], firsts, ON, search)
    assert calls == [["canals gondola"]]
    assert [h.id for h in out[0]] == ["a", "new"]
    assert out[1] == []
    off = await with_feedback(["trip"], firsts[:1], FeedbackConfig(), search)
    assert off == firsts[:1]
    assert len(calls) == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"docs": -1},
        {"vector_docs": 101},
        {"terms": 65},
        {"terms": True},
        {"weight": 0.0},
        {"weight": 1.5},
        {"min_length": 0},
        {"enabled": "yes"},
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="feedback") as info:
        FeedbackConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, RememError)


def test_the_stage_is_off_by_default_and_switchable() -> None:
    assert RecallStagesConfig().feedback.enabled is False
    stages = RecallStagesConfig.from_mapping({"feedback": {"enabled": True, "terms": 4}})
    assert stages.feedback == FeedbackConfig(enabled=True, terms=4)
    assert stages.without("feedback").feedback.enabled is False
    with pytest.raises(ConfigError, match="feedback"):
        RecallStagesConfig.from_mapping({"feedback": {"depth": 3}})


@pytest.mark.parametrize("on", [True, False])
async def test_a_turn_sharing_no_word_with_the_question_is_found_through_feedback(
    make_stack: Factory, on: bool
) -> None:
    fb = FeedbackConfig(enabled=True, docs=1, terms=4, weight=0.5)
    stages = dataclasses.replace(ALL_OFF, feedback=fb) if on else ALL_OFF
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    for i, text in enumerate(FILLER):
        await c.record_turn(f"chat-{i}", text, "")
    found = await c.record_turn("s1", "our holiday trip: a gondola ride along the canals", "")
    answer = await c.record_turn("s2", "that gondola ride through the canals was magical", "")
    hits = await c.recall("how was the holiday trip", k=10, stages=["episodic"])
    ids = [h.record.id for h in hits]
    assert ids[0] == found.id
    assert (answer.id in ids) is on
    if on:
        (hit,) = [h for h in hits if h.record.id == answer.id]
        assert hit.score < hits[0].score  # down-weighted: below the question's own match


async def test_the_best_vector_hits_lend_their_words_in_one_record_read() -> None:
    reads: list[list[str]] = []
    records = {
        "m1": _record("m1", "Jon: the gondola canals", {"speaker": "Jon"}),
        "m2": _record("m2", "a quiet week", {}),
    }

    async def read(ids: list[str]) -> dict[str, MemoryRecord]:
        reads.append(ids)
        return {i: records[i] for i in ids if i in records}

    lt = MemoryStage.LONG_TERM
    vec = [[StagedScore("m1", 0.8, lt), StagedScore("gone", 0.6, lt), StagedScore("m2", 0.4, lt)]]
    cfg = FeedbackConfig(enabled=True, docs=0, vector_docs=3, terms=2)
    docs = await vector_docs(vec, cfg, read)
    assert reads == [["gone", "m1", "m2"]]
    assert docs == [
        [FeedbackDoc("Jon: the gondola canals", 1.0, "Jon"), FeedbackDoc("a quiet week", 0.5)]
    ]
    # With docs=0 only the vector hits' words are fed back; the speaker label never is.
    assert feedback_query("trip", [], cfg, docs[0]) == "canals gondola"
    assert await vector_docs(vec, FeedbackConfig(enabled=True), read) is None
    assert len(reads) == 1
