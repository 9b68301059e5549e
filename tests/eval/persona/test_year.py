"""The year horizon: histories far past the budget, long-gap facts said once, an honest scorer."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

import remem
from remem.cli import main
from remem.cli.eval import YEAR, YEAR_QUICK
from remem.companion import EpisodicOnly, Full, offline_brain
from remem.errors import InvalidArgumentError
from remem.eval.persona import mentions, mentions_any
from remem.eval.persona.harness import EvalSettings
from remem.eval.persona.history_baseline import WholeHistoryBaseline, history_line
from remem.eval.persona.horizon import Materialised, history_tokens, materialise
from remem.eval.persona.llm_free import score_context
from remem.eval.persona.quiz import Question
from remem.eval.persona.render import RenderedTurn
from remem.eval.persona.variants import equal_budget_config
from remem.eval.persona.year_plan import LONG_GAP_DAYS, generate_year_plan
from remem.extraction import RuleExtractor
from remem.models import ManualClock

QUICK_DAYS = YEAR_QUICK.days


def _year(personas: int, days: int, seed: int = 0) -> Materialised:
    return materialise("year", personas=personas, days=days, seed=seed, delay_days=10)


@pytest.mark.parametrize("settings", [YEAR_QUICK, YEAR], ids=["quick", "year"])
def test_histories_are_at_least_five_times_the_budget(settings: EvalSettings) -> None:
    assert settings.horizon == "year"
    assert settings.budget is not None
    _, conversations, _ = _year(settings.personas, settings.days)
    for turns in conversations:
        assert history_tokens(turns) >= 5 * settings.budget


@pytest.mark.parametrize("seed", range(4))
def test_every_long_gap_fact_is_said_once_and_long_before(seed: int) -> None:
    _, conversations, quizzes = _year(2, QUICK_DAYS, seed)
    for turns, quiz in zip(conversations, quizzes, strict=True):
        gaps = [q for q in quiz if q.category == "long_gap"]
        assert len([q for q in gaps if not q.delayed]) >= 4
        for q in gaps:
            (stating,) = [t for t in turns if mentions_any(t.text, q.evidence)]
            assert stating.event is not None  # a fact turn, not a lure
            assert q.ask_day - stating.day >= LONG_GAP_DAYS
            assert q.stated_day == stating.day
            assert not mentions_any(q.text, q.evidence)  # the question does not give it away


def test_the_quiz_has_every_category_and_changes_happened() -> None:
    plans, _, quizzes = _year(3, 365)
    categories = {q.category for quiz in quizzes for q in quiz}
    assert categories == {
        "current",
        "long_gap",
        "corrected",
        "previous",
        "when_changed",
        "still_holds",
        "unanswerable",
    }
    for plan in plans:
        kinds = {(e.attribute, e.kind) for e in plan.events}
        assert ("pet", "end") in kinds
        assert ("pet", "add") in kinds
        assert any(kind == "update" for _, kind in kinds)
        assert any(kind == "correction" for _, kind in kinds)
        assert any(kind == "restate" for _, kind in kinds)


def test_small_talk_shares_the_facts_words_but_never_a_value() -> None:
    plans, conversations, _ = _year(3, 365, seed=5)
    lure_words = ("moved to", "job at", "allergic", "birthday", "dating", "lives in")
    for plan, turns in zip(plans, conversations, strict=True):
        values = plan.all_values()
        talk = [t.text for t in turns if t.event is None]
        for text in talk:
            assert not any(mentions(text, v) for v in values), text
        for words in lure_words:
            assert any(words in text for text in talk), words


def test_a_fact_turn_names_only_its_own_values() -> None:
    # Otherwise a fact said "once" would be said again in passing by another fact's turn.
    plans, conversations, _ = _year(3, 365, seed=4)
    for plan, turns in zip(plans, conversations, strict=True):
        values = plan.all_values()
        for turn in turns:
            if turn.event is not None:
                own = {turn.event.value, turn.event.previous}
                assert not [v for v in values if v not in own and mentions(turn.text, v)]


def test_fact_turns_do_not_repeat_the_quiz_phrasing() -> None:
    # The questions' key phrases: a statement using them would hand a keyword index the answer.
    quiz_phrases = (
        *("live in", "work at", "allergic to", "birthday is", "dating", "grew up in"),
        *("favourite food", "health condition", "the name of my", "what diet"),
    )
    _, conversations, _ = _year(3, 365, seed=1)
    for turns in conversations:
        for turn in turns:
            if turn.event is not None:
                lowered = turn.text.lower()
                assert not any(p in lowered for p in quiz_phrases), turn.text


def test_facts_are_phrased_in_several_ways() -> None:
    _, conversations, _ = _year(3, 365, seed=2)
    styles = {t.style for turns in conversations for t in turns if t.event is not None}
    assert {"paraphrase", "indirect", "split"} <= styles
    for attribute in ("city", "employer", "partner"):
        texts = {
            t.text
            for turns in conversations
            for t in turns
            if t.event is not None and t.event.attribute == attribute
        }
        assert len(texts) >= 6, attribute


def test_a_year_is_deterministic_per_seed() -> None:
    assert _year(1, QUICK_DAYS, seed=3) == _year(1, QUICK_DAYS, seed=3)
    assert _year(1, QUICK_DAYS, seed=3)[1] != _year(1, QUICK_DAYS, seed=4)[1]


def test_the_year_needs_enough_days() -> None:
    with pytest.raises(InvalidArgumentError, match="at least 90 days"):
        generate_year_plan(0, days=60)
    with pytest.raises(InvalidArgumentError, match="horizon 'decade' is unknown"):
        EvalSettings(horizon="decade")


def _prompt(turns: list[RenderedTurn], q: Question) -> str:
    body = "\n".join(history_line(t.at, t.text) for t in turns)
    return f"History:\n{body}\n\nUser: {q.text}"


def test_the_scorer_scores_known_prompts_right() -> None:
    _, conversations, quizzes = _year(2, QUICK_DAYS, seed=7)
    checked = 0
    for turns, quiz in zip(conversations, quizzes, strict=True):
        talk = [t for t in turns if t.event is None][:40]
        for q in quiz:
            if q.category != "long_gap":
                continue
            (stating,) = [t for t in turns if mentions_any(t.text, q.evidence)]
            holding = _prompt([*talk[:20], stating, *talk[20:]], q)
            without = _prompt(talk, q)
            assert score_context(q, holding, tokens=0, latency_ms=0).recall is True
            assert score_context(q, without, tokens=0, latency_ms=0).recall is False
            checked += 1
    assert checked >= 8


def test_a_change_date_counts_only_beside_its_value() -> None:
    _, conversations, quizzes = _year(1, QUICK_DAYS, seed=2)
    (turns,), (quiz,) = conversations, quizzes
    whens = [q for q in quiz if q.category == "when_changed"]
    assert whens
    for q in whens:
        assert q.near
        iso = q.evidence[-1]
        other = next(t for t in turns if t.event is None and f"{t.at:%Y-%m-%d}" != iso)
        beside = f"[{iso}] user: {other.text}"
        assert score_context(q, beside, tokens=0, latency_ms=0).recall is False
        named = f"[{iso}] user: so that was {q.near[0]}\n{history_line(other.at, other.text)}"
        assert score_context(q, named, tokens=0, latency_ms=0).recall is True


async def test_every_variant_is_held_to_the_equal_budget(tmp_path: Path) -> None:
    (plan,), (turns,), (quiz,) = _year(1, 90, seed=1)
    budget = 400
    questions = [q for q in quiz if not q.delayed][:6]
    for cls in (Full, EpisodicOnly):
        config = equal_budget_config(cls, budget)
        assert config.budget > budget + config.output_reserve  # room for the tool schemas
        async with remem.Runtime.open(tmp_path / cls.__name__, clock=ManualClock(plan.start)) as rt:
            companion = cls(offline_brain(), rt, config=config, extractor=RuleExtractor())
            for turn in turns[:60]:
                rt.clock.set(turn.at)  # type: ignore[attr-defined]
                await companion.turn(turn.text, session_id=turn.session_id, now=turn.at)
            now = turns[59].at + timedelta(days=1)
            for q in questions:
                prompt = await companion.build_prompt(q.text, session_id="quiz", now=now)
                assert prompt.tokens <= budget
                assert remem.kernels.count_tokens_one(prompt.text) == prompt.tokens
    async with remem.Runtime.open(tmp_path / "history", clock=ManualClock(plan.start)) as rt:
        baseline = WholeHistoryBaseline(rt, budget=budget)
        for turn in turns[:200]:
            await baseline.turn(turn.text, session_id=turn.session_id, now=turn.at)
        for q in questions:
            packed = await baseline.build_prompt(q.text)
            assert budget - 60 <= packed.tokens <= budget  # full: within one line of the budget
            assert remem.kernels.count_tokens_one(packed.text) == packed.tokens


def test_the_cli_prints_the_budget_and_the_ratio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    argv = ["eval", "--horizon", "year", "--quick", "--personas", "1", "--days", "90"]
    argv += ["--variants", "raw-recall,whole-history", "--resamples", "200", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "year horizon, 1 personas x 90 days" in printed
    assert "Equal prompt budget: 1,000 tokens for every variant" in printed
    assert "x the budget" in printed
    assert "long gap" in printed
    data = json.loads((out / "results.json").read_text())
    assert data["settings"]["budget"] == 1000
    assert data["history_to_budget"][0] >= 5
    for variant in data["variants"]:
        assert variant["background_errors"] == []
        assert variant["tokens_max"] <= 1000
