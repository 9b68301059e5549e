"""Judged scoring: two judges from different model families, a stricter tiebreak on dispute.

A judge is any :class:`~remem.brains.Brain`. Each judge independently returns a strict JSON
verdict ``{"correct": bool, "embellished": bool, "reason": str}``; an answer *passes* only when
it is correct **and** asserts no specific detail absent from the ground truth (embellishment
screening: "you live in Porto, near the river with Sam" fails if the river is not in the plan).
When the judges agree, their verdict stands; when they disagree the question escalates to the
tiebreak brain with a stricter rubric and both verdicts' reasons; without a tiebreak a dispute
fails (the strict reading). :attr:`JudgeEnsemble.disagreement_rate` is printed by every judged
run.

    ensemble = JudgeEnsemble([gpt, claude], tiebreak=bigger_model)
    judgement = await ensemble.judge(question, "You live in Porto.")
    judgement.passed, ensemble.disagreement_rate
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from remem.brains import Brain, Message
from remem.errors import BrainError, InvalidArgumentError
from remem.eval.persona.quiz import Question

__all__ = ["VERDICT_SCHEMA", "JudgeEnsemble", "Judgement", "Verdict", "parse_verdict"]

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "verdict",
        "schema": {
            "type": "object",
            "properties": {
                "correct": {"type": "boolean"},
                "embellished": {"type": "boolean"},
                "reason": {"type": "string"},
            },
            "required": ["correct", "embellished", "reason"],
            "additionalProperties": False,
        },
    },
}

_RUBRIC = """You grade a memory assistant's answer to a question about its user.
Ground truth comes from the user's real history; judge only against it.
- correct: the answer gives the ground-truth answer (a paraphrase, an alias such as a
  neighbourhood for its city, or an equivalent date counts). For an unanswerable question,
  correct means the answer says it does not know or was never told.
- embellished: the answer asserts a specific detail (a name, place, date, number, event) that
  the ground truth does not contain. Generic politeness is not embellishment.
Reply with one JSON object only: {"correct": true|false, "embellished": true|false,
"reason": "<one sentence>"}."""

_STRICT = """You are the tiebreak: two judges disagreed. Apply the rubric strictly: an answer
that hedges between several values, contradicts itself, or adds any unsupported specific detail
does not pass."""


@dataclass(frozen=True, slots=True)
class Verdict:
    judge: str
    correct: bool
    embellished: bool
    reason: str

    @property
    def passed(self) -> bool:
        return self.correct and not self.embellished


@dataclass(frozen=True, slots=True)
class Judgement:
    """The outcome for one answer: the verdicts, whether it escalated, and whether it passed."""

    passed: bool
    verdicts: tuple[Verdict, ...]
    escalated: bool = False
    tiebreak: Verdict | None = None


def parse_verdict(text: str, judge: str) -> Verdict:
    """Parse a strict JSON verdict; anything else raises :class:`~remem.errors.BrainError`."""
    body = text.strip()
    if body.startswith("```"):  # a fenced block is still one JSON object; tolerate the fence only
        body = body.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise BrainError(
            f"judge {judge} did not answer with JSON ({exc.msg}); use a model that follows "
            "response_format or a larger one"
        ) from exc
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("correct"), bool)
        or not isinstance(data.get("embellished"), bool)
    ):
        raise BrainError(
            f"judge {judge} answered {body[:120]!r}, not an object with boolean 'correct' and "
            "'embellished'; use a model that follows response_format"
        )
    return Verdict(judge, data["correct"], data["embellished"], str(data.get("reason", "")))


class JudgeEnsemble:
    """One or two independent judges and an optional stricter tiebreak (see module docstring).

    Judges should come from different model families; :attr:`same_family` says when they do
    not, and the report prints it.
    """

    def __init__(self, judges: Sequence[Brain], *, tiebreak: Brain | None = None) -> None:
        if not 1 <= len(judges) <= 2:
            raise InvalidArgumentError(
                f"give one or two judges (and optionally a tiebreak), got {len(judges)}"
            )
        self.judges = tuple(judges)
        self.tiebreak = tiebreak
        self.judged = 0
        self.disagreements = 0

    @property
    def names(self) -> list[str]:
        tail = [f"{self.tiebreak.name} (tiebreak)"] if self.tiebreak is not None else []
        return [j.name for j in self.judges] + tail

    @property
    def same_family(self) -> bool:
        providers = {j.name.split(":", 1)[0] for j in self.judges}
        return len(self.judges) == 2 and len(providers) == 1

    @property
    def disagreement_rate(self) -> float | None:
        """Share of judged answers the judges disagreed on (None before any, or one judge)."""
        if self.judged == 0 or len(self.judges) < 2:
            return None
        return self.disagreements / self.judged

    async def judge(self, question: Question, answer: str, *, asked_on: str = "") -> Judgement:
        prompt = _prompt(question, answer, asked_on)
        verdicts = tuple([await self._ask(judge, _RUBRIC, prompt) for judge in self.judges])
        self.judged += 1
        if len({v.passed for v in verdicts}) == 1:
            return Judgement(verdicts[0].passed, verdicts)
        self.disagreements += 1
        if self.tiebreak is None:
            return Judgement(False, verdicts, escalated=True)
        reasons = "\n".join(
            f"- {v.judge}: {'pass' if v.passed else 'fail'} ({v.reason})" for v in verdicts
        )
        strict = f"{prompt}\n\nThe judges said:\n{reasons}"
        final = await self._ask(self.tiebreak, f"{_RUBRIC}\n\n{_STRICT}", strict)
        return Judgement(final.passed, verdicts, escalated=True, tiebreak=final)

    async def _ask(self, brain: Brain, system: str, prompt: str) -> Verdict:
        messages = [Message.system(system), Message.user(prompt)]
        completion = await brain.complete(messages, response_format=VERDICT_SCHEMA, max_tokens=200)
        try:
            return parse_verdict(completion.text, brain.name)
        except BrainError:
            # One retry with the error spelled out; a second malformed answer is the judge's fault.
            retry = [
                *messages,
                completion.as_message(),
                Message.user("That was not the JSON object asked for. Reply with it only."),
            ]
            again = await brain.complete(retry, response_format=VERDICT_SCHEMA, max_tokens=200)
            return parse_verdict(again.text, brain.name)

    async def aclose(self) -> None:
        for brain in (*self.judges, *([self.tiebreak] if self.tiebreak else [])):
            await brain.aclose()


def _prompt(question: Question, answer: str, asked_on: str) -> str:
    accepted = ", ".join(question.accepted) if question.accepted else "(none: unanswerable)"
    when = f"Asked on: {asked_on}\n" if asked_on else ""
    return (
        f"{when}Question: {question.text}\n"
        f"Ground truth: {question.answer}\n"
        f"Accepted values: {accepted}\n"
        f"Assistant's answer: {answer}"
    )
