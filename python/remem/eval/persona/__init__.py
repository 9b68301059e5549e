"""The persona time-lapse: seeded personas with a ground-truth plan, conversations rendered from
it, quizzes generated from it, scored without a model (context recall) and with judges.

    plan = generate_plan(seed=7)
    turns = render_plan(plan, seed=7)
    questions = build_quiz(plan, delay_days=10)

The harness that runs variants over personas is :mod:`remem.eval.persona.harness`
(``remem eval``); a second, hand-written persona set with hand-written questions is
:mod:`remem.eval.persona.handwritten` (``remem eval --set handwritten``).
"""

from __future__ import annotations

from remem.eval.persona.matching import mentions, mentions_any, normalise
from remem.eval.persona.plan import FactEvent, PersonaPlan, generate_plan, generate_plans
from remem.eval.persona.quiz import CATEGORIES, Question, build_quiz
from remem.eval.persona.render import BrainRenderer, RenderedTurn, describe, render_plan

__all__ = [
    "CATEGORIES",
    "BrainRenderer",
    "FactEvent",
    "PersonaPlan",
    "Question",
    "RenderedTurn",
    "build_quiz",
    "describe",
    "generate_plan",
    "generate_plans",
    "mentions",
    "mentions_any",
    "normalise",
    "render_plan",
]
