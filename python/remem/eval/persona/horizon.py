"""Horizons: how long a persona's life is, and what it is made of.

``weeks`` (the default) — :func:`~remem.eval.persona.plan.generate_plan` over a few weeks
(``--quick``: 21 days, ~1,350 history tokens): every history fits a prompt, so it tests
supersession and phrasing, not memory. ``year`` — :func:`~remem.eval.persona.year_plan.
generate_year_plan`, a year of daily small talk with the facts scattered through it (~26,000
history tokens a persona, ≥ 25× a 1,000-token prompt), quizzed with ``long_gap`` questions
(a fact said once, ≥ :data:`~remem.eval.persona.year_plan.LONG_GAP_DAYS` days before).

:func:`history_tokens` is the size of a persona's whole history as the ``whole-history``
baseline would render it (exact ``o200k_base`` tokens); the report divides it by the prompt
budget.

    plans, conversations, quizzes = materialise("year", personas=2, days=120, seed=0,
                                                delay_days=10)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from remem import kernels
from remem.errors import InvalidArgumentError
from remem.eval.persona.history_baseline import history_line
from remem.eval.persona.plan import PersonaPlan, generate_plans
from remem.eval.persona.quiz import Question, build_quiz
from remem.eval.persona.render import RenderedTurn, render_plan
from remem.eval.persona.year_plan import LONG_GAP_DAYS, generate_year_plans
from remem.eval.persona.year_render import render_year

__all__ = ["HORIZONS", "Horizon", "Materialised", "check_horizon", "history_tokens", "materialise"]

Horizon = Literal["weeks", "year"]
HORIZONS: tuple[Horizon, ...] = ("weeks", "year")

Materialised = tuple[list[PersonaPlan], list[list[RenderedTurn]], list[list[Question]]]


def check_horizon(horizon: str) -> Horizon:
    """``horizon`` if it is one of :data:`HORIZONS`, else InvalidArgumentError."""
    for known in HORIZONS:
        if horizon == known:
            return known
    raise InvalidArgumentError(f"horizon {horizon!r} is unknown; use one of {', '.join(HORIZONS)}")


def materialise(
    horizon: str, *, personas: int, days: int, seed: int, delay_days: int
) -> Materialised:
    """Plans, template-rendered conversations and quizzes of one run (see module docstring)."""
    if check_horizon(horizon) == "weeks":
        plans = generate_plans(personas, seed=seed, days=days)
        turns = [render_plan(p, seed=seed) for p in plans]
        quizzes = [build_quiz(p, delay_days=delay_days, seed=seed) for p in plans]
        return plans, turns, quizzes
    plans = generate_year_plans(personas, seed=seed, days=days)
    turns = [render_year(p, seed=seed) for p in plans]
    quizzes = [
        build_quiz(p, delay_days=delay_days, seed=seed, long_gap_days=LONG_GAP_DAYS) for p in plans
    ]
    return plans, turns, quizzes


def history_tokens(turns: Sequence[RenderedTurn]) -> int:
    """Exact tokens of the whole history, one ``whole-history`` line per turn."""
    if not turns:
        return 0
    text = "\n".join(history_line(t.at, t.text) for t in turns)
    return kernels.count_tokens_one(text)
