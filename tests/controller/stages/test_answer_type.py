"""The answer-type prior: which questions ask for a category, which texts name an instance, its
config's validation, its factor in real recall (on / off) and its part in the prior cut."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from remem.controller import ControllerConfig
from remem.controller.stages import (
    AnswerTypePriorConfig,
    NeighbourScored,
    RecallStagesConfig,
    asked_categories,
    mentions,
    prior_cut,
)
from remem.controller.stages.answer_lexicon import CATEGORIES
from remem.controller.stages.answer_type import names_someone
from remem.errors import ConfigError, RememError
from remem.lifecycle import InclusionScorerConfig
from remem.models import EpisodeKind, EpisodicHit
from tests.controller.conftest import Factory

NOBODY: frozenset[str] = frozenset()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which cities has Jon visited?", {"place"}),
        ("What European countries has Maria been to?", {"place"}),
        ("Where has Maria vacationed?", {"place"}),
        ("Where did Caroline move from 4 years ago?", {"place"}),
        ("What books has Melanie read?", {"book"}),
        ("What instruments does Melanie play?", {"instrument"}),
        ("What martial arts has John done?", {"sport", "hobby"}),
        ("How many dogs has Maria adopted?", {"pet"}),
        ("What are the names of John's children?", {"people"}),
        ("In what kind of food does he cook?", {"food"}),
        ("What does Melanie play?", {"instrument", "sport", "game"}),
        # no category: a time, a feeling, a reason, a "what did X go through"
        ("When did Jon visit Rome?", set()),
        ("What did Jean go through before meeting Maria?", set()),
        ("Why did Gina open a store?", set()),
        ("How does Jon feel about cities?", set()),
        ("Where is the party?", set()),
        ("", set()),
    ],
)
def test_which_questions_ask_for_a_category(question: str, expected: set[str]) -> None:
    assert asked_categories(question) == frozenset(expected)


def test_instances_are_whole_words_and_phrases() -> None:
    place = frozenset({"place"})
    assert mentions("Took a short trip last week to Rome", place, NOBODY)
    assert mentions("We spent a week in New  York", place, NOBODY)
    assert not mentions("Romeo and Juliet was on at the theatre", place, NOBODY)
    assert not mentions("I had pasta for dinner", place, NOBODY)
    assert mentions("I had pasta for dinner", frozenset({"food", "place"}), NOBODY)
    assert mentions("Been practising the GUITAR every night", frozenset({"instrument"}), NOBODY)
    assert not mentions("anything at all", frozenset(), NOBODY)
    for name, category in CATEGORIES.items():
        assert category.nouns, name
        assert all(w == w.casefold() for w in category.instances), name


def test_a_name_is_a_capitalised_word_inside_a_sentence_and_no_participant() -> None:
    maria = frozenset({"Maria", "John"})
    assert names_someone("I met a lady called Jean at the shelter", maria)
    assert not names_someone("Hey John! Maria here. Talked to nobody today.", maria)
    assert not names_someone("We went out on Saturday in March", maria)
    assert not names_someone("Lovely day", maria)
    people = frozenset({"people"})
    assert mentions("My kids Kyle and Sara loved it", people, maria)
    assert not mentions("My kids loved it", people, maria)


@pytest.mark.parametrize(
    "kwargs",
    [{"enabled": 1}, {"boost": -0.1}, {"boost": 10.5}, {"boost": True}, {"boost": "2"}],
)
def test_bad_settings_raise_config_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as err:
        AnswerTypePriorConfig(**kwargs)  # type: ignore[arg-type]
    assert isinstance(err.value, RememError)
    assert "answer_type." in str(err.value)
    with pytest.raises(ConfigError, match="answer_type"):
        RecallStagesConfig.from_mapping({"answer_type": {"factor": 2}})
    on = RecallStagesConfig.from_mapping({"answer_type": {"enabled": True, "boost": 2.0}})
    assert on.answer_type == AnswerTypePriorConfig(enabled=True, boost=2.0)
    assert RecallStagesConfig().answer_type == AnswerTypePriorConfig(enabled=True, boost=2.0)
    off = RecallStagesConfig.from_mapping({"answer_type": {"enabled": False}})
    assert off.answer_type.enabled is False


ISOLATED = RecallStagesConfig().without(
    "recency",
    "neighbours",
    "speaker",
    "dates",
    "time_expressions",
    "conflicts",
    "rerank",
    "answer_type",
)
ON = dataclasses.replace(ISOLATED, answer_type=AnswerTypePriorConfig(enabled=True, boost=2.0))


@pytest.mark.parametrize("on", [True, False])
async def test_a_turn_naming_a_city_rises_for_a_cities_question(
    make_stack: Factory, on: bool
) -> None:
    s = await make_stack(config=ControllerConfig(stages=ON if on else ISOLATED))
    c = s.controller
    plain = await c.record_turn("s1", "Jon liked the drive, Jon liked it a lot", "")
    rome = await c.record_turn(
        "s2", "Jon liked the long slow dinners in Rome with his old dance friends", ""
    )
    # Weaker matches (one query word in a long turn), so min-max scaling does not map the
    # Rome turn to 0, which no bounded prior could lift.
    for i, filler in enumerate(
        ["the weather was grey all week", "my cousin bought a new bicycle", "the train was late"]
    ):
        await c.record_turn(f"w{i}", f"{filler} and the long night after that, he liked it", "")
    query = "Which cities has Jon liked?"
    hits = await c.recall(query, k=10, stages=["episodic"])
    by_id = {h.record.id: h for h in hits}
    ids = [h.record.id for h in hits]
    assert (ids.index(rome.id) < ids.index(plain.id)) is on
    if on:
        assert by_id[rome.id].signals["answer_type"] == 3.0
        assert by_id[plain.id].signals["answer_type"] == 1.0
        assert "answer_type" in by_id[rome.id].explanation
    else:
        assert "answer_type" not in by_id[rome.id].signals
    # A question asking for no category leaves every factor at 1.
    if on:
        for h in await c.recall("What has Jon liked?", k=5, stages=["episodic"]):
            assert h.signals["answer_type"] == 1.0


def _hit(n: int, text: str) -> NeighbourScored:
    h = EpisodicHit(
        id=f"t{n}",
        kind=EpisodeKind.TURN,
        session_id="s",
        turn_number=n,
        text=text,
        score=10.0 - n,
        metadata={"speaker": "Jon"},
        created_at=datetime(2023, 5, 1, tzinfo=UTC),
    )
    return NeighbourScored(h, h.score, 0.0)


def test_the_prior_cut_keeps_a_deep_hit_naming_an_instance() -> None:
    # t1 mentions a place by a travel word, t2 none, t3 by a city: t3 (score 7 × 3) beats t2 (8).
    hits = [_hit(1, "visited my aunt"), _hit(2, "bread at the shop"), _hit(3, "a week in Lisbon")]
    now = datetime(2023, 6, 1, tzinfo=UTC)
    inclusion = InclusionScorerConfig()
    query = "Which cities has Jon visited?"
    on = RecallStagesConfig()  # the default: the prior on at boost 2
    assert [n.hit.id for n in prior_cut(query, hits, 2, now, on, inclusion)] == ["t1", "t3"]
    off = RecallStagesConfig().without("answer_type")
    assert [n.hit.id for n in prior_cut(query, hits, 2, now, off, inclusion)] == ["t1", "t2"]
