"""The recall stages as pure functions: bounds, naming, windows, propagation, conflicts, config."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remem.controller.stages import (
    ConflictConfig,
    DatePriorConfig,
    Keyed,
    NeighbourConfig,
    RecallStagesConfig,
    RecencyPriorConfig,
    SpeakerPriorConfig,
    asks_for_time,
    expand_neighbours,
    missing_neighbours,
    named_speakers,
    propagate_neighbours,
    question_windows,
    recency_prior,
    resolve_conflicts,
    states_time,
    usage_prior,
)
from remem.errors import ConfigError
from remem.models import EpisodeKind, EpisodicHit
from remem.runtime_config import RuntimeConfig
from remem.writebehind.direct import USER_CHARS_KEY

NOW = datetime(2023, 9, 1, 12, tzinfo=UTC)


@given(
    hours=st.floats(min_value=-1e6, max_value=1e12, allow_nan=False),
    rate=st.floats(min_value=0, max_value=10),
    weight=st.floats(min_value=0, max_value=1),
)
def test_recency_is_bounded_below_and_monotone(hours: float, rate: float, weight: float) -> None:
    r = recency_prior(hours, rate=rate, weight=weight)
    assert 1 - weight - 1e-12 <= r <= 1 + 1e-12
    assert recency_prior(hours + 100, rate=rate, weight=weight) <= r + 1e-12


def test_recency_does_not_tend_to_zero() -> None:
    assert recency_prior(24 * 365 * 10, rate=0.005, weight=0.1) == pytest.approx(0.9)
    assert recency_prior(0, rate=0.005, weight=0.1) == 1.0
    # weight 1 is the old unbounded factor
    assert recency_prior(48, rate=0.005, weight=1.0) == pytest.approx(math.exp(-0.24))


@given(n=st.integers(min_value=-5, max_value=10**9), w=st.floats(min_value=0, max_value=5))
def test_usage_is_bounded(n: int, w: float) -> None:
    u = usage_prior(n, hit_weight=w)
    assert 1.0 <= u <= 1.0 + w
    assert usage_prior(n + 1, hit_weight=w) >= u


def _hit(
    i: str, session: str | None, n: int | None, score: float, kind: EpisodeKind = EpisodeKind.TURN
) -> EpisodicHit:
    return EpisodicHit(
        id=i,
        kind=kind,
        session_id=session,
        turn_number=n,
        text=f"text {i}",
        score=score,
        created_at=NOW,
    )


def test_neighbours_lift_a_turn_between_matching_turns() -> None:
    hits = [
        _hit("far", "s1", 40, 3.0),
        _hit("q", "s1", 9, 2.5),
        _hit("answer", "s1", 10, 1.0),
        _hit("q2", "s1", 11, 2.0),
        _hit("other-session", "s2", 10, 1.5),
        _hit("note", "s1", None, 1.2, EpisodeKind.NOTE),
    ]
    out = propagate_neighbours(hits, NeighbourConfig(before=2, after=1, weight=0.5))
    by_id = {n.hit.id: n for n in out}
    # answer: own 1.0 + 0.5·(2.5 before + 2.0 after)
    assert by_id["answer"].share == pytest.approx(2.25)
    assert by_id["answer"].score == pytest.approx(3.25)
    # q2: 2.0 + 0.5·(2.5 + 1.0) from the two turns before it; q: 2.5 + 0.5·1.0 (one after)
    assert [n.hit.id for n in out] == ["q2", "answer", "far", "q", "other-session", "note"]
    assert by_id["other-session"].share == 0.0
    assert by_id["note"].share == 0.0
    assert by_id["far"].share == 0.0
    scores = [n.score for n in out]
    assert scores == sorted(scores, reverse=True)
    off = propagate_neighbours(hits, NeighbourConfig(enabled=False))
    assert [n.hit.id for n in off] == [h.id for h in hits]
    assert all(n.share == 0 for n in off)


def test_the_turn_after_a_question_takes_its_share_at_the_reply_weight() -> None:
    def said(i: str, n: int, text: str, user_chars: int | None = None) -> EpisodicHit:
        meta = {USER_CHARS_KEY: len(text) if user_chars is None else user_chars}
        return _hit(i, "s1", n, 2.0).model_copy(update={"text": text, "metadata": meta})

    hits = [
        said("ask", 5, "How often do you see sunsets like that one?"),
        said("said", 20, "I saw a sunset."),
        # a companion's turn: the user asked, the assistant's reply (in the turn) answered
        said("turn", 30, "Should I quit?\nI'd wait until the bonus lands.", user_chars=14),
        _hit("after-turn", "s1", 31, 0.0),
        _hit("answer", "s1", 6, 0.0),  # the reply: shares no word, its share is its score
        _hit("after-said", "s1", 21, 0.0),
        _hit("before-ask", "s1", 4, 0.0),  # a question's answer follows it, never precedes
    ]
    plain_config = NeighbourConfig(reply_weight=None)
    plain = {n.hit.id: n.share for n in propagate_neighbours(hits, plain_config)}
    config = NeighbourConfig(reply_weight=1.5)
    out = propagate_neighbours(hits, config)
    share = {n.hit.id: n.share for n in out}
    assert share["answer"] == pytest.approx(1.5 * 2.0)  # after a question: 1.5 instead of 0.5
    assert share["after-said"] == pytest.approx(0.5 * 2.0) == plain["after-said"]
    assert share["after-turn"] == pytest.approx(0.5 * 2.0) == plain["after-turn"]
    assert share["before-ask"] == pytest.approx(0.5 * 2.0) == plain["before-ask"]
    assert plain["answer"] == pytest.approx(0.5 * 2.0)
    assert out[0].hit.id == "answer"
    # None is the plain weight (the default is 1.25); a weight out of [0, 2] is refused, and a
    # reply weight works with the plain weight at 0.
    assert NeighbourConfig().reply_weight == 1.25
    with pytest.raises(ConfigError, match="reply_weight"):
        NeighbourConfig(reply_weight=2.5)
    only = {n.hit.id: n.share for n in propagate_neighbours(hits, NeighbourConfig(weight=0.0))}
    assert only["answer"] == 2.5
    assert {k for k, v in only.items() if v} == {"answer"}


def test_missing_neighbours_are_the_best_hits_windows_less_the_hits() -> None:
    hits = [
        _hit("a", "s1", 10, 3.0),
        _hit("b", "s1", 11, 2.0),
        _hit("note", "s1", None, 1.9, EpisodeKind.NOTE),
        _hit("c", "s2", 1, 1.5),
        _hit("d", "s1", 30, 1.0),  # the fourth turn hit: beyond expand=3, no window
    ]
    config = NeighbourConfig(before=2, after=1, expand=3)
    # s1: 8, 9 before a; 12 after b (10, 11 are hits) -> one range; s2: turn 2 (no turn 0, -1)
    assert missing_neighbours(hits, config) == [("s1", 8, 12), ("s2", 2, 2)]
    far = [_hit("x", "s1", 5, 2.0), _hit("y", "s1", 50, 1.0)]
    assert missing_neighbours(far, config) == [("s1", 3, 6), ("s1", 48, 51)]
    assert missing_neighbours(hits, dataclasses.replace(config, expand=0)) == []
    assert missing_neighbours(hits, dataclasses.replace(config, enabled=False)) == []
    assert missing_neighbours([], config) == []


async def test_expanded_neighbours_join_with_their_share_as_score() -> None:
    hits = [_hit("q", "s1", 9, 2.0), _hit("q2", "s1", 11, 1.0), _hit("r", "s2", 40, 0.5)]
    reads: list[list[tuple[str, int, int]]] = []

    async def read(ranges: Sequence[tuple[str, int, int]]) -> list[list[EpisodicHit]]:
        reads.append(list(ranges))
        # the transcript has turns 1..12 of s1 (none of s2); the reader's scores are ignored
        return [
            [_hit(f"t{n}", s, n, 9.0) for n in range(first, min(last, 12) + 1) if s == "s1"]
            for s, first, last in ranges
        ]

    config = NeighbourConfig(before=1, after=1, weight=0.5, expand=10)
    grown = await expand_neighbours(hits, config, read)
    assert reads == [[("s1", 8, 12), ("s2", 39, 41)]]  # every range in one read
    # 9 and 11 are hits; 8, 10 and 12 are in a window; nothing else is added
    assert [h.id for h in grown] == ["q", "q2", "r", "t8", "t10", "t12"]
    assert all(h.score == 0.0 for h in grown[3:])
    by_id = {n.hit.id: n for n in propagate_neighbours(grown, config)}
    assert by_id["t10"].score == pytest.approx(0.5 * (2.0 + 1.0))
    assert by_id["t8"].score == pytest.approx(0.5 * 2.0)
    assert by_id["q"].share == 0.0  # a score-0 neighbour adds nothing
    off = await expand_neighbours(hits, dataclasses.replace(config, expand=0), read)
    assert off == hits
    assert len(reads) == 1  # nothing read with the expansion off


def test_speaker_named_only_when_some_not_all() -> None:
    both = {"Caroline", "Melanie"}
    assert named_speakers("What did Caroline paint?", both) == {"Caroline"}
    assert named_speakers("what did caroline\u2019s dog eat", both) == {"Caroline"}
    assert named_speakers("What did Caroline and Melanie do?", both) == frozenset()
    assert named_speakers("What did Carol paint?", both) == frozenset()
    assert named_speakers("What did Caroline paint?", {"Caroline"}) == frozenset()
    assert named_speakers("Where did Óscar go?", {"Óscar", "Ana"}) == {"Óscar"}


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("Who did Maria have dinner with on May 3, 2023?", "2023-05-03", "2023-05-04"),
        ("What was the pet she lost on 3 June, 2023?", "2023-06-03", "2023-06-04"),
        ("What did Maria donate in December 2022?", "2022-12-01", "2023-01-01"),
        ("What did they do in May?", "2023-05-01", "2023-06-01"),
        ("What happened in 2022?", "2022-01-01", "2023-01-01"),
        ("What did he do last week?", "2023-08-25", "2023-09-01"),
    ],
)
def test_question_windows(question: str, start: str, end: str) -> None:
    (w,) = question_windows(question, NOW, 0.0)
    assert (w[0].date().isoformat(), w[1].date().isoformat()) == (start, end)
    (wide,) = question_windows(question, NOW, 2.0)
    assert wide == (w[0] - timedelta(days=2), w[1] + timedelta(days=2))


def test_questions_without_dates_have_no_window() -> None:
    assert question_windows("What does Maria like to paint?", NOW, 3.0) == []
    # an impossible day is no day window; its month still is one
    (w,) = question_windows("What did she say on 31 February, 2023?", NOW, 0.0)
    assert (w[0].date().isoformat(), w[1].date().isoformat()) == ("2023-02-01", "2023-03-01")


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("When did Melanie run a charity race?", True),
        ("How long has Caroline had her friends?", True),
        ("In what year did John start surfing?", True),
        ("Which month did they move?", True),
        ("How many years ago did she marry?", True),
        ("What did Melanie paint?", False),
        ("Who is Caroline's friend since high school?", False),
    ],
)
def test_asks_for_time(question: str, asks: bool) -> None:
    assert asks_for_time(question) is asks


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("I ran it last Saturday!", True),
        ("We went there two weeks ago.", True),
        ("It was back in 2019.", True),
        ("See you on May 5th", True),
        ("Yesterday was great", True),
        ("I love painting sunsets with my kids.", False),
        ("That sounds amazing, tell me more", False),
    ],
)
def test_states_time(text: str, states: bool) -> None:
    assert states_time(text) is states


def _keyed(key: str, score: float, day: int, value: str | None) -> Keyed:
    meta: dict[str, object] = {"subject": "user", "attribute": "city"}
    if value is not None:
        meta["value"] = value
    return Keyed(key, score, NOW + timedelta(days=day), meta)


def test_conflicting_values_newest_wins() -> None:
    items = [_keyed("porto", 1.0, 0, "Porto"), _keyed("lisbon", 0.6, 30, "Lisbon")]
    out = resolve_conflicts(items, ConflictConfig(stale_factor=0.5))
    assert out["lisbon"] * 0.6 == pytest.approx(1.0)
    assert out["porto"] * 1.0 == pytest.approx(0.5)
    same = [_keyed("a", 1.0, 0, "Porto"), _keyed("b", 0.6, 30, "porto")]
    assert resolve_conflicts(same, ConflictConfig()) == {}
    assert resolve_conflicts(items, ConflictConfig(enabled=False)) == {}
    unkeyed = [Keyed("x", 1.0, NOW, {}), Keyed("y", 2.0, NOW, {"subject": "user"})]
    assert resolve_conflicts(unkeyed, ConflictConfig()) == {}


@pytest.mark.parametrize(
    "make",
    [
        lambda: RecencyPriorConfig(weight=1.5),
        lambda: NeighbourConfig(before=-1),
        lambda: NeighbourConfig(depth_factor=0),
        lambda: NeighbourConfig(expand=-1),
        lambda: NeighbourConfig(expand=True),
        lambda: NeighbourConfig(weight=float("nan")),
        lambda: SpeakerPriorConfig(boost=-1),
        lambda: DatePriorConfig(slack_days=100),
        lambda: ConflictConfig(stale_factor=2),
        lambda: RecallStagesConfig(speaker=NeighbourConfig()),  # type: ignore[arg-type]
        lambda: RecallStagesConfig().without("nope"),
        lambda: RecallStagesConfig.from_mapping({"nope": {}}),
        lambda: RecallStagesConfig.from_mapping({"speaker": {"bost": 1}}),
    ],
)
def test_bad_config_is_a_config_error(make: object) -> None:
    with pytest.raises(ConfigError):
        make()  # type: ignore[operator]


def test_stages_settable_in_toml() -> None:
    cfg = RuntimeConfig.from_mapping(
        {
            "recall": {
                "stages": {
                    "speaker": {"boost": 0.5},
                    "neighbours": {"enabled": False},
                    "recency": {"weight": 0.2},
                }
            }
        }
    )
    stages = cfg.controller.stages
    assert stages.speaker.boost == 0.5
    assert stages.neighbours.enabled is False
    assert stages.recency.weight == 0.2
    assert stages.dates == RecallStagesConfig().dates
    assert "recall.stages.speaker.boost = 0.5" in cfg.describe()
    off = RecallStagesConfig().without("recency", "speaker")
    assert off.recency.weight == 0.0
    assert off.speaker.enabled is False


def test_conflicts_order_by_validity_and_leave_multi_valued_facts_alone() -> None:
    # "I lived in Faro in 2019", said today: valid long before the current city.
    faro = Keyed(
        "faro",
        1.0,
        NOW + timedelta(days=30),
        {"subject": "user", "attribute": "city", "value": "Faro"},
        valid_from=NOW - timedelta(days=2000),
    )
    out = resolve_conflicts([faro, _keyed("lisbon", 0.6, 0, "Lisbon")], ConflictConfig())
    assert out["faro"] == pytest.approx(0.5)
    assert out["lisbon"] == pytest.approx(1.0 / 0.6)
    # Two dogs are both true: a multi-valued attribute never conflicts.
    pets = [
        Keyed("rex", 1.0, NOW, {"subject": "user", "attribute": "pet", "value": "Rex"}),
        Keyed(
            "max",
            0.4,
            NOW + timedelta(days=3),
            {"subject": "user", "attribute": "pet", "value": "Max"},
        ),
    ]
    assert resolve_conflicts(pets, ConflictConfig()) == {}


def test_a_newer_ending_caps_the_value_it_ends() -> None:
    partner = {"subject": "user", "attribute": "partner", "value": "Sam"}
    items = [
        Keyed("with-sam", 1.0, NOW, partner),
        Keyed("split", 0.3, NOW + timedelta(days=9), {**partner, "operation": "end"}),
    ]
    out = resolve_conflicts(items, ConflictConfig(stale_factor=0.5))
    assert out["with-sam"] == pytest.approx(0.5)
    assert out["split"] * 0.3 == pytest.approx(1.0)


def test_an_ending_followed_by_another_value_stays_true_until_its_value_returns() -> None:
    """ "broke up with Rui", then "partner Elena": the ending is history, not a stale value —
    only "back with Rui" makes it stale."""
    rui = {"subject": "user", "attribute": "partner", "value": "Rui"}
    split = Keyed("split", 1.0, NOW, {**rui, "operation": "end"})
    elena = Keyed("elena", 0.4, NOW + timedelta(days=10), {**rui, "value": "Elena"})
    out = resolve_conflicts([split, elena], ConflictConfig(stale_factor=0.5))
    assert "split" not in out  # not capped
    assert out["elena"] * 0.4 == pytest.approx(1.0)  # the current value still leads
    back = Keyed("back", 0.2, NOW + timedelta(days=20), rui)
    out = resolve_conflicts([split, elena, back], ConflictConfig(stale_factor=0.5))
    assert out["split"] == pytest.approx(0.5)
    assert out["back"] * 0.2 == pytest.approx(1.0)
    assert "elena" not in out  # already below the cap


def _propagated_by_sort(
    hits: list[EpisodicHit], config: NeighbourConfig
) -> list[tuple[str, float, float]]:
    """The propagation as first written (every hit keyed and sorted): the oracle of the
    one-pass version, which skips the sort when the order already holds."""
    reply = config.reply_weight
    idle = config.weight == 0 and not reply
    if not config.enabled or (config.before == 0 and config.after == 0) or idle:
        return [(h.id, h.score, 0.0) for h in hits]
    by_position: dict[tuple[str, int], float] = {}
    asks: set[tuple[str, int]] = set()
    for h in hits:
        if h.kind is EpisodeKind.TURN and h.session_id is not None and h.turn_number is not None:
            key = (h.session_id, h.turn_number)
            by_position[key] = max(by_position.get(key, 0.0), max(h.score, 0.0))
            n = h.metadata.get(USER_CHARS_KEY)
            one_utterance = isinstance(n, int) and 0 < n <= len(h.text) and not h.text[n:].strip()
            if h.score > 0 and one_utterance and "?" in h.text:
                asks.add(key)
    out = []
    for i, h in enumerate(hits):
        share = 0.0
        if h.kind is EpisodeKind.TURN and h.session_id is not None and h.turn_number is not None:
            for offset in (*range(-config.before, 0), *range(1, config.after + 1)):
                share += by_position.get((h.session_id, h.turn_number + offset), 0.0)
            share *= config.weight
            before = (h.session_id, h.turn_number - 1)
            if reply is not None and config.before and before in asks:
                share += (reply - config.weight) * by_position[before]
        out.append((-(h.score + share), i, (h.id, h.score + share, share)))
    out.sort(key=lambda t: (t[0], t[1]))
    return [t[2] for t in out]


@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from([EpisodeKind.TURN, EpisodeKind.NOTE]),
            st.sampled_from([None, "s1", "s2"]),
            st.one_of(st.none(), st.integers(1, 6)),
            st.sampled_from([0.0, 1.0, 2.5, -1.0, 3.0]),  # ties, negatives, equal scores
            st.booleans(),  # the hit asks something
            st.booleans(),  # one utterance (else a turn with an assistant reply)
        ),
        max_size=12,
    ),
    before=st.integers(0, 2),
    after=st.integers(0, 2),
    weight=st.sampled_from([0.0, 0.5, 1.0]),
    reply=st.sampled_from([None, 0.0, 1.25]),
    ordered=st.booleans(),
)
def test_propagation_equals_the_sorting_formulation(
    rows: list[tuple[EpisodeKind, str | None, int | None, float, bool, bool]],
    before: int,
    after: int,
    weight: float,
    reply: float | None,
    ordered: bool,
) -> None:
    if ordered:  # the store's order (best first), where the sort is skipped
        rows = sorted(rows, key=lambda r: -r[3])
    hits = [
        _hit(f"h{i}", s, n, score, kind).model_copy(
            update={
                "text": f"text h{i}" + "?" * asks + ("" if one else "\nan answer"),
                "metadata": {USER_CHARS_KEY: len(f"text h{i}") + asks},
            }
        )
        for i, (kind, s, n, score, asks, one) in enumerate(rows)
    ]
    config = NeighbourConfig(before=before, after=after, weight=weight, reply_weight=reply)
    got = [(n.hit.id, n.score, n.share) for n in propagate_neighbours(hits, config)]
    assert got == _propagated_by_sort(hits, config)
