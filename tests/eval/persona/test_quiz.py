"""Every scheduled change and correction yields questions with the right expected/stale values."""

from __future__ import annotations

import pytest

from remem.eval.persona import build_quiz, generate_plan
from remem.eval.persona.quiz import Question


def _find(questions: list[Question], category: str, attribute: str) -> list[Question]:
    return [q for q in questions if q.category == category and q.attribute == attribute]


@pytest.mark.parametrize("seed", range(10))
def test_updates_corrections_and_controls(seed: int) -> None:
    plan = generate_plan(seed, 0, days=24)
    quiz = build_quiz(plan, delay_days=10)
    immediate = [q for q in quiz if not q.delayed]
    for event in plan.events:
        if event.kind == "update":
            old = event.previous or plan.true_history("partner")[0][1]
            (current,) = _find(immediate, "current", event.attribute)
            assert current.evidence == (event.value,)
            assert old in current.stale
            (previous,) = _find(immediate, "previous", event.attribute)
            assert previous.accepted == (old,)
            assert previous.stale == ()
            (when,) = _find(immediate, "when_changed", event.attribute)
            date = plan.date_of(event.day)
            assert date.date().isoformat() in when.evidence
            assert when.age_days == plan.days - event.day
            still = [q for q in _find(immediate, "still_holds", event.attribute) if old in q.text]
            assert len(still) == 1
            assert still[0].accepted == ("no",)
            assert still[0].stale == (old,)
        if event.kind == "correction":
            (corrected,) = _find(immediate, "corrected", event.attribute)
            assert corrected.evidence == (event.value,)
            assert event.previous in corrected.stale
            assert corrected.stated_day == event.day
        if event.kind == "add":
            assert any(q.evidence == (event.value,) for q in immediate)
    unanswerable = [q for q in immediate if q.category == "unanswerable"]
    assert len(unanswerable) == 2
    assert all(q.evidence == () for q in unanswerable)


def test_delayed_subset_is_asked_later() -> None:
    plan = generate_plan(5, 0, days=20)
    quiz = build_quiz(plan, delay_days=10)
    delayed = [q for q in quiz if q.delayed]
    assert delayed
    assert {q.category for q in delayed} <= {"current", "corrected", "still_holds"}
    assert all(q.ask_day == plan.days + 10 for q in delayed)
    by_id = {q.id: q for q in quiz if not q.delayed}
    for q in delayed:
        original = by_id[q.id.rsplit("+", 1)[0]]
        assert (q.text, q.evidence, q.stale) == (original.text, original.evidence, original.stale)
        assert q.age_days == original.age_days + 10  # type: ignore[operator]
    assert len({q.id for q in quiz}) == len(quiz)


def test_quiz_is_deterministic() -> None:
    plan = generate_plan(2, 3)
    assert build_quiz(plan) == build_quiz(plan)
