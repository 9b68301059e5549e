"""The judge ensemble with ScriptedBrains: agreement, escalation, embellishment, strict JSON."""

from __future__ import annotations

import json

import pytest

from remem.brains import ScriptedBrain
from remem.errors import BrainError, InvalidArgumentError
from remem.eval.persona.judges import JudgeEnsemble
from remem.eval.persona.quiz import Question

Q = Question(
    "p:current:city:0",
    "p",
    "current",
    "city",
    "Which city do I live in now?",
    "Porto",
    ("Porto",),
    ("Porto",),
    ("Lisbon",),
    3,
    10,
)


def verdict(correct: bool, embellished: bool = False) -> str:
    return json.dumps({"correct": correct, "embellished": embellished, "reason": "r"})


def judge(*answers: str, model: str) -> ScriptedBrain:
    return ScriptedBrain(list(answers), model=model)


async def test_agreement_stands_and_no_tiebreak_is_asked() -> None:
    tiebreak = judge(model="t")
    ensemble = JudgeEnsemble(
        [judge(verdict(True), model="a"), judge(verdict(True), model="b")], tiebreak=tiebreak
    )
    result = await ensemble.judge(Q, "You live in Porto.")
    assert result.passed
    assert not result.escalated
    assert tiebreak.requests == []
    assert ensemble.disagreement_rate == 0.0


async def test_disagreement_escalates_to_the_stricter_tiebreak() -> None:
    tiebreak = judge(verdict(False), model="t")
    ensemble = JudgeEnsemble(
        [judge(verdict(True), model="a"), judge(verdict(False), model="b")], tiebreak=tiebreak
    )
    result = await ensemble.judge(Q, "Porto, or maybe Lisbon.")
    assert result.escalated
    assert not result.passed
    assert result.tiebreak is not None
    assert result.tiebreak.judge == "scripted:t"
    (request,) = tiebreak.requests
    assert "tiebreak" in request.messages[0].content
    assert "scripted:a: pass" in request.messages[-1].content
    assert ensemble.disagreement_rate == 1.0


async def test_disagreement_without_tiebreak_fails() -> None:
    ensemble = JudgeEnsemble([judge(verdict(True), model="a"), judge(verdict(False), model="b")])
    result = await ensemble.judge(Q, "Porto")
    assert result.escalated
    assert not result.passed


async def test_embellished_correct_answer_fails() -> None:
    answers = [verdict(True, embellished=True), verdict(True, embellished=True)]
    ensemble = JudgeEnsemble([judge(answers[0], model="a"), judge(answers[1], model="b")])
    result = await ensemble.judge(Q, "You live in Porto with your husband Jorge.")
    assert result.verdicts[0].correct
    assert not result.passed


async def test_disagreement_rate_over_several_answers() -> None:
    a = judge(verdict(True), verdict(True), verdict(False), verdict(True), model="a")
    b = judge(verdict(True), verdict(False), verdict(False), verdict(True), model="b")
    ensemble = JudgeEnsemble([a, b])
    for _ in range(4):
        await ensemble.judge(Q, "Porto")
    assert ensemble.disagreement_rate == 0.25
    assert ensemble.judged == 4


async def test_prompt_carries_ground_truth_and_asks_for_json() -> None:
    a = judge(verdict(True), model="a")
    await JudgeEnsemble([a]).judge(Q, "Porto", asked_on="March 23, 2026")
    (request,) = a.requests
    assert request.response_format is not None
    assert request.response_format["type"] == "json_schema"
    text = request.messages[-1].content
    assert "Ground truth: Porto" in text
    assert "Assistant's answer: Porto" in text
    assert "March 23, 2026" in text


async def test_malformed_verdict_is_retried_once_then_a_typed_error() -> None:
    a = judge("sure, looks right", verdict(True), model="a")
    assert (await JudgeEnsemble([a]).judge(Q, "Porto")).passed
    assert len(a.requests) == 2
    bad = judge("nope", '{"correct": "yes"}', model="bad")
    with pytest.raises(BrainError, match="boolean"):
        await JudgeEnsemble([bad]).judge(Q, "Porto")


def test_same_family_and_bad_sizes() -> None:
    assert JudgeEnsemble([judge(model="a"), judge(model="b")]).same_family
    with pytest.raises(InvalidArgumentError):
        JudgeEnsemble([])
    with pytest.raises(InvalidArgumentError):
        JudgeEnsemble([judge(model=str(i)) for i in range(3)])
