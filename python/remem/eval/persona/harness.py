"""The persona harness: every variant × every persona, on real stores, in simulated time.

For each variant and persona: a fresh :class:`~remem.Runtime` in ``<out>/<variant>/<persona>``
on a :class:`~remem.models.ManualClock` at the plan's day 0; the rendered turns go through
``companion.turn(text, session_id="day-NN", now=turn time)`` with the clock set to each turn's
instant (nothing sleeps); then the quiz is asked the day after the last day, in a separate
``quiz`` session (so the answer must come from memory, not from the day's transcript): the
LLM-free score from ``build_prompt(question)``, and, when judges are configured,
``answer(question)`` judged by the :class:`JudgeEnsemble`. The clock then jumps
``delay_days`` ahead and the delayed subset is asked again.

``persona_set`` picks where personas come from: ``generated`` (the default, below) or
``handwritten`` (:mod:`~remem.eval.persona.handwritten`: typed by hand, with hand-written
questions; no delayed re-asks). ``horizon`` picks the generated personas' lives
(:mod:`~remem.eval.persona.horizon`: ``weeks`` or ``year``); ``budget``, when set, is the
equal prompt budget every variant was built with
(:func:`~remem.eval.persona.variants.resolve_variants`) — a prompt over it is recorded as an
error of its variant, so "equal tokens" is checked, not assumed.

    run = await run_eval(EvalSettings(personas=3), [variant], out=Path("runs/x"))
    summarise(run)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TextIO

from remem.brains import Brain
from remem.errors import InvalidArgumentError, RememError
from remem.eval.persona.handwritten import HANDWRITTEN_DIR, load_set
from remem.eval.persona.horizon import check_horizon, history_tokens, materialise
from remem.eval.persona.judges import JudgeEnsemble
from remem.eval.persona.llm_free import score_context
from remem.eval.persona.plan import PersonaPlan
from remem.eval.persona.progress import ProgressBar
from remem.eval.persona.protocol import EvalCompanion, Variant
from remem.eval.persona.quiz import Question
from remem.eval.persona.render import BrainRenderer, RenderedTurn
from remem.models import ManualClock
from remem.runtime import Runtime

__all__ = [
    "PERSONA_SETS",
    "QUIZ_HOUR",
    "EvalRun",
    "EvalSettings",
    "QuestionResult",
    "VariantRun",
    "run_eval",
]

QUIZ_HOUR = timedelta(hours=12)
"""Quizzes are asked at noon of their day."""
PERSONA_SETS: tuple[str, ...] = ("generated", "handwritten")


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """How big a run is. ``--quick`` uses the defaults of :data:`QUICK` in the CLI."""

    personas: int = 3
    days: int = 24
    seed: int = 0
    delay_days: int = 10
    resamples: int = 1000
    horizon: str = "weeks"
    budget: int | None = None
    """The equal prompt budget (tokens) the variants were built with; None: their own."""
    persona_set: str = "generated"
    """``generated`` (plans rendered from templates, sized by ``personas``/``days``/``horizon``)
    or ``handwritten`` (:mod:`~remem.eval.persona.handwritten`; ``personas`` caps how many)."""

    def __post_init__(self) -> None:
        check_horizon(self.horizon)
        if self.persona_set not in PERSONA_SETS:
            raise InvalidArgumentError(
                f"persona set {self.persona_set!r} is unknown; use one of {', '.join(PERSONA_SETS)}"
            )
        if self.persona_set == "handwritten" and self.horizon != "weeks":
            raise InvalidArgumentError(
                "the hand-written set has its own time span; drop --horizon for --set handwritten"
            )
        if self.budget is not None and (isinstance(self.budget, bool) or self.budget < 200):
            raise InvalidArgumentError(f"budget must be at least 200 tokens, got {self.budget}")
        if self.personas < 1:
            raise InvalidArgumentError(f"personas must be at least 1, got {self.personas}")
        if self.delay_days < 1:
            raise InvalidArgumentError(f"delay_days must be at least 1, got {self.delay_days}")
        if self.resamples < 100:
            raise InvalidArgumentError(f"resamples must be at least 100, got {self.resamples}")


@dataclass(frozen=True, slots=True)
class QuestionResult:
    variant: str
    question: Question
    recall: bool | None
    stale_only: bool | None
    tokens: int
    latency_ms: float
    answer: str | None = None
    passed: bool | None = None
    escalated: bool | None = None
    error: str | None = None


@dataclass(slots=True)
class VariantRun:
    name: str
    description: str = ""
    rows: list[QuestionResult] = field(default_factory=list)
    turn_latency_ms: list[float] = field(default_factory=list)
    turns: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass(slots=True)
class EvalRun:
    settings: EvalSettings
    out: Path
    brain: str
    variants: list[VariantRun]
    plans: list[PersonaPlan]
    judges: list[str] = field(default_factory=list)
    judges_same_family: bool = False
    disagreement_rate: float | None = None
    elapsed_s: float = 0.0
    rendered_by: str = "templates"
    history_tokens: list[int] = field(default_factory=list)
    """Per persona, exact tokens of the whole history (the ``whole-history`` rendering)."""


async def run_eval(
    settings: EvalSettings,
    variants: Sequence[Variant],
    *,
    out: Path,
    brain_factory: Callable[[], Brain],
    judges: JudgeEnsemble | None = None,
    renderer: BrainRenderer | None = None,
    progress: TextIO | None = None,
    set_dir: Path | None = None,
) -> EvalRun:
    """Run every variant on the same personas (see module docstring); ``set_dir`` replaces the
    shipped hand-written set's directory (``persona_set="handwritten"``)."""
    if not variants:
        raise InvalidArgumentError("give at least one variant to evaluate")
    names = [v.name for v in variants]
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"variant names must be unique, got {names}")
    if renderer is not None and (
        settings.horizon != "weeks" or settings.persona_set != "generated"
    ):
        raise InvalidArgumentError(
            "a model renders only the generated weeks horizon; drop --render-with-brain"
        )
    started = time.perf_counter()
    if settings.persona_set == "handwritten":
        plans, conversations, quizzes = load_set(
            set_dir or HANDWRITTEN_DIR, limit=settings.personas
        )
    else:
        plans, conversations, quizzes = materialise(
            settings.horizon,
            personas=settings.personas,
            days=settings.days,
            seed=settings.seed,
            delay_days=settings.delay_days,
        )
    if renderer is not None:
        conversations = [await renderer.render(plan, seed=settings.seed) for plan in plans]
    probe = brain_factory()
    run = EvalRun(
        settings,
        out,
        probe.name,
        [],
        plans,
        rendered_by=(
            "hand"
            if settings.persona_set == "handwritten"
            else "templates"
            if renderer is None
            else "model"
        ),
        history_tokens=[history_tokens(c) for c in conversations],
    )
    await probe.aclose()
    steps = sum(len(c) + len(q) for c, q in zip(conversations, quizzes, strict=True))
    for variant in variants:
        result = VariantRun(variant.name, variant.description)
        bar = ProgressBar(steps, variant.name, stream=progress)
        for plan, turns, quiz in zip(plans, conversations, quizzes, strict=True):
            bar.note = plan.persona_id
            await _one_persona(variant, plan, turns, quiz, out, brain_factory, judges, result, bar)
        if settings.budget is not None:
            over = [r for r in result.rows if r.tokens > settings.budget]
            result.errors.extend(
                f"{r.question.id}: prompt of {r.tokens} tokens is over the equal budget of "
                f"{settings.budget}"
                for r in over
            )
        bar.close()
        run.variants.append(result)
    if judges is not None:
        run.judges = judges.names
        run.judges_same_family = judges.same_family
        run.disagreement_rate = judges.disagreement_rate
    run.elapsed_s = time.perf_counter() - started
    return run


async def _one_persona(
    variant: Variant,
    plan: PersonaPlan,
    turns: list[RenderedTurn],
    quiz: list[Question],
    out: Path,
    brain_factory: Callable[[], Brain],
    judges: JudgeEnsemble | None,
    result: VariantRun,
    bar: ProgressBar,
) -> None:
    clock = ManualClock(plan.start)
    brain = brain_factory()
    path = out / variant.name / plan.persona_id
    async with Runtime.open(path, clock=clock, config=variant.runtime) as runtime:
        companion = variant.build(runtime, brain)
        try:
            for turn in turns:
                clock.set(turn.at)
                t0 = time.perf_counter()
                await companion.turn(turn.text, session_id=turn.session_id, now=turn.at)
                result.turn_latency_ms.append((time.perf_counter() - t0) * 1000)
                result.turns += 1
                bar.advance()
            await runtime.controller.flush_extraction()
            for q in sorted(quiz, key=lambda q: q.ask_day):
                when = plan.date_of(q.ask_day) + QUIZ_HOUR
                if when > clock.now():
                    clock.set(when)
                result.rows.append(await _ask(companion, variant.name, q, judges, clock))
                bar.advance()
        finally:
            await companion.aclose()
            await brain.aclose()
        # Background failures (extraction, indexing) are part of the result, never swallowed.
        result.errors.extend(f"{plan.persona_id}: {f}" for f in runtime.controller.failures())


async def _ask(
    companion: EvalCompanion,
    variant: str,
    q: Question,
    judges: JudgeEnsemble | None,
    clock: ManualClock,
) -> QuestionResult:
    now = clock.now()
    t0 = time.perf_counter()
    prompt = await companion.build_prompt(q.text, session_id="quiz", now=now)
    latency = (time.perf_counter() - t0) * 1000
    score = score_context(q, prompt.text, tokens=prompt.tokens, latency_ms=latency)
    base = QuestionResult(variant, q, score.recall, score.stale_only, score.tokens, latency)
    if judges is None:
        return base
    try:
        answer = await companion.answer(q.text, session_id="quiz", now=now)
        judgement = await judges.judge(q, answer, asked_on=f"{now:%B} {now.day}, {now.year}")
    except RememError as exc:
        # A judge or model failure costs this question, not the run; the report counts them.
        return QuestionResult(
            variant, q, score.recall, score.stale_only, score.tokens, latency, error=str(exc)
        )
    return QuestionResult(
        variant,
        q,
        score.recall,
        score.stale_only,
        score.tokens,
        latency,
        answer=answer,
        passed=judgement.passed,
        escalated=judgement.escalated,
    )
