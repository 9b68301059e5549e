"""Render a year plan: one evening session a day, the day's facts among two to four small talks.

Like :func:`~remem.eval.persona.render.render_plan`, but with the year's phrasings
(:data:`~remem.eval.persona.year_templates.YEAR_TEMPLATES`, passing mentions included) and its
small talk (:mod:`~remem.eval.persona.chatter`, lures that share the facts' words). Seeded: the
same plan and seed give the same turns.

    turns = render_year(generate_year_plan(0), seed=0)
    len(turns), turns[-1].session_id    # ≈ 1,200 turns, "day-364"
"""

from __future__ import annotations

import random

from remem.eval.persona.chatter import lures_for, small_talk
from remem.eval.persona.plan import FactEvent, PersonaPlan
from remem.eval.persona.render import RenderedTurn, place_day, template_turns
from remem.eval.persona.year_templates import YEAR_TEMPLATES

__all__ = ["SMALL_TALK_PER_DAY", "render_year"]

SMALL_TALK_PER_DAY = (2, 4)
"""Inclusive range of small-talk turns a day (the facts of the day come on top)."""


def render_year(plan: PersonaPlan, *, seed: int = 0) -> list[RenderedTurn]:
    """The whole year of ``plan`` from templates, in time order (see module docstring)."""
    rng = random.Random(f"remem-year-render:{plan.persona_id}:{seed}")
    lures = lures_for(plan)
    turns: list[RenderedTurn] = []
    by_day: dict[int, list[FactEvent]] = {}
    for event in plan.events:
        by_day.setdefault(event.day, []).append(event)
    for day in range(plan.days):
        groups: list[list[tuple[str, str, FactEvent | None]]] = []
        for event in by_day.get(day, []):
            style, texts = template_turns(event, rng, YEAR_TEMPLATES)
            groups.append([(_sentence(text), style, event) for text in texts])
        for text in small_talk(rng, lures, rng.randint(*SMALL_TALK_PER_DAY)):
            groups.append([(text, "smalltalk", None)])
        rng.shuffle(groups)
        turns.extend(place_day(plan, day, [item for group in groups for item in group]))
    return turns


def _sentence(text: str) -> str:
    """A turn starts with a capital, as typed ("penicillin is …" → "Penicillin is …")."""
    return text[:1].upper() + text[1:]
