"""The prior_depth stage on real embedded stores: a named speaker's turn that full text ranks
below the candidate depth still reaches fusion (and the top) when the stage is on, and is not a
candidate at all when it is off; the cut itself keeps the list's order and validates its knobs."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from remem.controller import ControllerConfig
from remem.controller.stages import (
    NeighbourScored,
    PriorDepthConfig,
    RecallStagesConfig,
    cut_vector,
    prior_cut,
)
from remem.errors import ConfigError, RememError
from remem.lifecycle import InclusionScorerConfig
from remem.models import (
    EpisodeKind,
    EpisodicHit,
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
)
from remem.staging import StagedScore
from tests.controller.conftest import Factory

ISOLATED = RecallStagesConfig().without(
    "recency", "neighbours", "dates", "time_expressions", "conflicts"
)


async def _stack(make_stack: Factory, on: bool) -> tuple[object, str]:
    stages = ISOLATED if on else ISOLATED.without("prior_depth")
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    # 40 short turns of Caroline's that match the question's words strongly (full text ranks
    # them first), then a long turn of Melanie's that matches them once (ranked 41st).
    for i in range(40):
        await c.record_turn(
            f"c{i}",
            f"lake painting, the lake painting number {i}",
            "",
            metadata={"speaker": "Caroline"},
        )
    mel = await c.record_turn(
        "m1",
        "Over the long weekend with the kids and the dog and my sister I finally did a "
        "painting of the lake near our old cabin in the hills",
        "",
        metadata={"speaker": "Melanie"},
    )
    # A weaker one of hers: full text's minimum, which min-max scaling maps to 0 (in real
    # recall the neighbour expansion's score-0 turns play that part).
    await c.record_turn(
        "m2",
        "We talked for hours about school, the garden, the new car, the neighbours, the "
        "weather, the holidays, the price of bread and, once, the lake",
        "",
        metadata={"speaker": "Melanie"},
    )
    return s, mel.id


@pytest.mark.parametrize("on", [True, False])
async def test_a_named_speakers_deep_hit_reaches_the_top(make_stack: Factory, on: bool) -> None:
    s, mel = await _stack(make_stack, on)
    query = "What lake painting did Melanie do?"
    hits = await s.controller.recall(query, k=5, stages=["episodic"])  # type: ignore[attr-defined]
    ids = [h.record.id for h in hits]
    assert (mel in ids) is on
    if on:
        assert ids[0] == mel
        assert hits[0].signals["speaker"] == 1.0 + RecallStagesConfig().speaker.boost
    # A question naming nobody cuts by score alone: the deep turn stays out either way.
    plain = await s.controller.recall("what lake painting?", k=5, stages=["episodic"])  # type: ignore[attr-defined]
    assert mel not in [h.record.id for h in plain]


def _hit(n: int, speaker: str, day: int) -> NeighbourScored:
    h = EpisodicHit(
        id=f"t{n}",
        kind=EpisodeKind.TURN,
        session_id="s",
        turn_number=n,
        text="words",
        score=10.0 - n,
        metadata={"speaker": speaker},
        created_at=datetime(2023, 5, day, tzinfo=UTC),
    )
    return NeighbourScored(h, h.score, 0.0)


def ids(cut: list[NeighbourScored]) -> list[str]:
    return [n.hit.id for n in cut]


def test_the_cut_keeps_the_lists_order_and_obeys_the_switch() -> None:
    hits = [_hit(1, "Bo", 1), _hit(2, "Bo", 2), _hit(3, "Al", 20), _hit(4, "Bo", 21)]
    now = datetime(2023, 6, 1, tzinfo=UTC)
    stages, inclusion = RecallStagesConfig(), InclusionScorerConfig()
    assert ids(prior_cut("What did Al say?", hits, 2, now, stages, inclusion)) == ["t1", "t3"]
    # A date window (20 May ± 7 days) lifts t3 and t4 over t2: the order stays the list's.
    dated = dataclasses.replace(stages, dates=dataclasses.replace(stages.dates, slack_days=1.0))
    got = prior_cut("What happened on 20 May 2023?", hits, 2, now, dated, inclusion)
    assert ids(got) == ["t3", "t4"]
    off = stages.without("prior_depth")
    assert ids(prior_cut("What did Al say?", hits, 2, now, off, inclusion)) == ["t1", "t2"]
    assert ids(prior_cut("anything", hits, 2, now, stages, inclusion)) == ["t1", "t2"]
    assert prior_cut("What did Al say?", hits, 9, now - timedelta(0), stages, inclusion) == hits


@pytest.mark.parametrize(
    "kwargs", [{"enabled": 1}, {"depth_factor": 0}, {"depth_factor": 21}, {"vector_factor": 0}]
)
def test_bad_settings_raise_config_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as err:
        PriorDepthConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(err.value, RememError)
    assert "prior_depth." in str(err.value)
    with pytest.raises(ConfigError, match="prior_depth"):
        RecallStagesConfig.from_mapping({"prior_depth": {"deep": 2}})


def _record(i: int, speaker: str) -> MemoryRecord:
    at = datetime(2023, 5, 1, tzinfo=UTC)
    return MemoryRecord(
        id=f"m{i}",
        text="words",
        kind=MemoryKind.NOTE,
        lifecycle=MemoryLifecycleMetadata(
            stage=MemoryStage.SHORT_TERM, score_reference_time=at, created_at=at
        ),
        metadata={"speaker": speaker},
    )


def test_the_vector_cut_skips_ineligible_hits_and_lifts_the_named_speaker() -> None:
    hits = [StagedScore(f"m{i}", 0.9 - i / 10, MemoryStage.SHORT_TERM) for i in range(5)]
    records = {f"m{i}": _record(i, "Al" if i == 4 else "Bo") for i in (0, 2, 3, 4)}  # m1: gone
    now = datetime(2023, 6, 1, tzinfo=UTC)
    stages, inclusion = RecallStagesConfig(), InclusionScorerConfig()
    got = cut_vector("What did Al say?", hits, records, 2, now, stages, inclusion)
    assert [h.id for h in got] == ["m0", "m4"]
    plain = cut_vector("anything", hits, records, 2, now, stages, inclusion)
    assert [h.id for h in plain] == ["m0", "m2"]
