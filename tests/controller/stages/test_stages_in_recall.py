"""Each recall stage on real embedded stores: it changes the ranking it should, and switching it
off (``RecallStagesConfig.without``) gives the plain ranking back."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from remem.controller import ControllerConfig
from remem.controller.stages import RecallStagesConfig
from tests.controller.conftest import T0, Factory

ALL_OFF = RecallStagesConfig().without(
    "recency", "neighbours", "speaker", "dates", "time_expressions", "conflicts", "rerank"
)


def _only(*names: str) -> ControllerConfig:
    """Every stage off except ``names`` (recency too, so the stage under test is isolated)."""
    on = RecallStagesConfig()
    stages = ALL_OFF
    for name in names:
        stages = dataclasses.replace(stages, **{name: getattr(on, name)})
    return ControllerConfig(stages=stages)


FILLER = [
    "the weather was grey all week",
    "we watched a film about space travel",
    "my cousin bought a new bicycle",
    "dinner was pasta with mushrooms",
    "the train was late again this morning",
]


async def _weak_matches(c: object, word: str) -> None:
    """Turns that match ``word`` weakly, so the fused scores spread as in real recall.

    Linear fusion min-max scales each retriever's scores per query: with only two hits the
    second scales to 0 and no bounded prior can lift it; real recall ranks dozens of hits.
    """
    for i, filler in enumerate(FILLER):
        await c.record_turn(f"weak-{i}", f"{filler}, and {word} came up again", "")  # type: ignore[attr-defined]


async def _ids(s: object, query: str, **kw: object) -> list[str]:
    hits = await s.controller.recall(query, **kw)  # type: ignore[attr-defined]
    return [h.record.id for h in hits]


@pytest.mark.parametrize("on", [True, False])
async def test_neighbours_lift_the_answer_next_to_the_question(
    make_stack: Factory, on: bool
) -> None:
    s = await make_stack(config=_only("neighbours") if on else ControllerConfig(stages=ALL_OFF))
    c = s.controller
    for text in FILLER:
        await c.record_turn("chat", text, "")
    await c.record_turn("s1", "Did you go to the pottery class in the end?", "")
    answer = await c.record_turn("s1", "Yes, and I made a lovely blue bowl there at last", "")
    other = await c.record_turn("s2", "That bowl broke", "")
    ids = await _ids(s, "what bowl from pottery class", k=10, stages=["episodic"])
    assert answer.id in ids
    assert other.id in ids
    answer_first = ids.index(answer.id) < ids.index(other.id)
    assert answer_first is on
    if on:
        (hit,) = [h for h in await c.recall("bowl pottery", k=10) if h.record.id == answer.id]
        assert hit.signals["neighbours"] > 0
        assert "neighbours" in hit.explanation


@pytest.mark.parametrize("expand", [10, 0])
async def test_neighbour_expansion_finds_a_reply_that_shares_no_word(
    make_stack: Factory, expand: int
) -> None:
    stages = RecallStagesConfig()
    nb = dataclasses.replace(stages.neighbours, expand=expand)
    on = dataclasses.replace(ALL_OFF, neighbours=nb)
    s = await make_stack(config=ControllerConfig(stages=on))
    c = s.controller
    for text in FILLER:
        await c.record_turn("chat", text, "")
    await c.record_turn("s1", "How was the grand opening of your dance studio?", "")
    reply = await c.record_turn("s1", "Amazing night, I'll never forget a second of it", "")
    await c.record_turn("s1", "Glad to hear", "")
    ids = await _ids(s, "grand opening dance studio", k=10, stages=["episodic"])
    assert (reply.id in ids) is (expand > 0)
    if expand:
        (hit,) = [
            h for h in await c.recall("grand opening dance studio", k=10) if h.record.id == reply.id
        ]
        assert hit.signals["neighbours"] > 0
        assert hit.record.text == "user: Amazing night, I'll never forget a second of it"


@pytest.mark.parametrize("on", [True, False])
async def test_speaker_prior_favours_the_named_participant(make_stack: Factory, on: bool) -> None:
    s = await make_stack(config=_only("speaker") if on else ControllerConfig(stages=ALL_OFF))
    c = s.controller
    mel = await c.record_turn("s1", "I painted a lake at dawn", "", metadata={"speaker": "Melanie"})
    car = await c.record_turn("s1", "I painted a lake", "", metadata={"speaker": "Caroline"})
    await _weak_matches(c, "a lake")
    ids = await _ids(s, "What did Melanie paint? a lake?", k=5, stages=["episodic"])
    assert (ids.index(mel.id) < ids.index(car.id)) is on
    hits = await c.recall("What did Melanie paint? a lake?", k=5, stages=["episodic"])
    by_id = {h.record.id: h for h in hits}
    boost = RecallStagesConfig().speaker.boost
    assert by_id[mel.id].signals["speaker"] == (1.0 + boost if on else 1.0)
    assert by_id[car.id].signals["speaker"] == 1.0


@pytest.mark.parametrize("on", [True, False])
async def test_dates_in_the_question_favour_that_time(make_stack: Factory, on: bool) -> None:
    s = await make_stack(config=_only("dates") if on else ControllerConfig(stages=ALL_OFF))
    c = s.controller
    may = await c.record_turn(
        "s1", "We donated old coats to the shelter downtown", "", created_at=T0.replace(month=5)
    )
    july = await c.record_turn(
        "s2", "We donated coats to the shelter", "", created_at=T0.replace(month=7)
    )
    await _weak_matches(c, "the shelter")
    s.clock.set(T0.replace(month=9))
    ids = await _ids(s, f"What did they donate to the shelter in May {T0.year}?", k=5)
    assert (ids.index(may.id) < ids.index(july.id)) is on


@pytest.mark.parametrize("on", [True, False])
async def test_when_questions_favour_turns_that_say_a_time(make_stack: Factory, on: bool) -> None:
    s = await make_stack(
        config=_only("time_expressions") if on else ControllerConfig(stages=ALL_OFF)
    )
    c = s.controller
    timed = await c.record_turn("s1", "I ran the charity race for the shelter last Saturday", "")
    plain = await c.record_turn("s1", "I ran the charity race", "")
    await _weak_matches(c, "the race")
    ids = await _ids(s, "When did she run the charity race?", k=5, stages=["episodic"])
    assert (ids.index(timed.id) < ids.index(plain.id)) is on


@pytest.mark.parametrize("on", [True, False])
async def test_conflicting_keyed_values_newest_wins(make_stack: Factory, on: bool) -> None:
    # recency off: the bounded prior alone may reorder a near-tie; this isolates the conflicts
    stages = RecallStagesConfig().without("recency", *(() if on else ("conflicts",)))
    s = await make_stack(config=ControllerConfig(stages=stages))
    c = s.controller
    key = {"subject": "user", "attribute": "city"}
    old = await c.remember("The user's city is Porto", metadata={**key, "value": "Porto"})
    s.clock.advance(timedelta(days=40))
    new = await c.remember("The user's city is now Lisbon", metadata={**key, "value": "Lisbon"})
    # The old value is the better match (it names Porto); the newest value still wins.
    hits = await c.recall("user city Porto", k=5, stages=["short_term"])
    ids = [h.record.id for h in hits]
    assert (ids[0] == new.id) is on
    if on:
        assert hits[ids.index(old.id)].score <= 0.5 * hits[0].score + 1e-12
        assert hits[ids.index(old.id)].signals["conflict"] < 1.0


async def test_score_is_the_product_of_its_factors(make_stack: Factory) -> None:
    s = await make_stack()
    c = s.controller
    await c.record_turn(
        "s1", "Melanie ran the race last Saturday", "", metadata={"speaker": "Melanie"}
    )
    await c.record_turn("s1", "Caroline watched", "", metadata={"speaker": "Caroline"})
    await c.remember("Melanie likes races")
    s.clock.advance(timedelta(days=3))
    for h in await c.recall("When did Melanie run the race?", k=10):
        product = h.signals["fusion"]
        for name in ("recency", "usage", "speaker", "dates", "time_expressions", "conflict"):
            product *= h.signals[name]
        assert h.score == pytest.approx(product)
        assert 0.9 - 1e-9 <= h.signals["recency"] <= 1.0
