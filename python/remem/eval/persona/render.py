"""Render a plan into the user's turns, offline from templates or with a model.

Every simulated day is one session (``day-03``) of a few user turns in the evening: the day's
fact events, each in a style drawn from :data:`~remem.eval.persona.templates.STYLE_WEIGHTS`
(canonical, paraphrase, indirect, split over two turns), shuffled among distractor small talk
whose lures (other cities, names, foods) are values the persona never has. Rendering is seeded:
the same plan and seed give the same turns.

    turns = render_plan(plan, seed=7)
    turns[0].text, turns[0].at, turns[0].session_id

With a brain (:class:`BrainRenderer`), each fact turn is written by the model; a message that
does not name the value (or an alias of it) falls back to a template, so the plan stays
checkable.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from remem.brains import Brain, Message
from remem.eval.persona.matching import mentions
from remem.eval.persona.plan import FactEvent, PersonaPlan
from remem.eval.persona.templates import SMALL_TALK, STYLE_WEIGHTS, TEMPLATES, Template
from remem.eval.persona.values import POOLS, aliases_of

__all__ = [
    "EVENING",
    "TURN_GAP",
    "BrainRenderer",
    "RenderedTurn",
    "describe",
    "place_day",
    "render_plan",
    "template_turns",
]

EVENING = timedelta(hours=19)
"""Conversations happen at 19:00 simulated time, one turn every :data:`TURN_GAP`."""
TURN_GAP = timedelta(minutes=3)


@dataclass(frozen=True, slots=True)
class RenderedTurn:
    """One user message at a simulated instant; ``event`` is None for small talk."""

    persona_id: str
    day: int
    at: datetime
    session_id: str
    text: str
    style: str
    event: FactEvent | None = None


def render_plan(plan: PersonaPlan, *, seed: int = 0) -> list[RenderedTurn]:
    """The whole conversation of ``plan`` from templates, in time order."""
    rng = random.Random(f"remem-render:{plan.persona_id}:{seed}")
    lures = _lures(plan)
    turns: list[RenderedTurn] = []
    for day in range(plan.days):
        groups: list[list[tuple[str, str, FactEvent | None]]] = []
        for event in plan.events_on(day):
            style, texts = template_turns(event, rng)
            groups.append([(text, style, event) for text in texts])
        for template in rng.sample(SMALL_TALK, rng.randint(1, 3)):
            groups.append([(_small_talk(rng, template, lures), "smalltalk", None)])
        rng.shuffle(groups)
        flat = [item for group in groups for item in group]
        turns.extend(place_day(plan, day, flat))
    return turns


def template_turns(
    event: FactEvent,
    rng: random.Random,
    templates: Mapping[str, Mapping[str, Sequence[Template]]] = TEMPLATES,
) -> tuple[str, list[str]]:
    """``(style, texts)`` for one event: one text, or two for a split template."""
    kind = "initial" if event.kind == "misstatement" else event.kind
    options = templates[event.attribute][kind]
    styles = sorted({style for style, _ in options})
    style = rng.choices(styles, weights=[STYLE_WEIGHTS[s] for s in styles])[0]
    _, text = rng.choice([t for t in options if t[0] == style])
    parts = (text,) if isinstance(text, str) else text
    value = event.value or ""
    alias = rng.choice(aliases_of(value)[1:] or (value,))
    fields = {"v": value, "a": alias, "old": event.previous or "", "q": event.qualifier or ""}
    return style, [_articles(part.format(**fields)) for part in parts]


def _articles(text: str) -> str:
    return re.sub(r"\b([Aa]) ([aeiouAEIOU])", lambda m: f"{m.group(1)}n {m.group(2)}", text)


def _lures(plan: PersonaPlan) -> dict[str, list[str]]:
    taken = plan.all_values()
    return {
        "lure_city": [v for v in POOLS["city"] if v not in taken],
        "lure_name": [
            v for v in POOLS["partner"] + POOLS["sister"] + POOLS["brother"] if v not in taken
        ],
        "lure_food": [v for v in POOLS["favourite_food"] if v not in taken],
        "lure_hobby": [v for v in POOLS["hobby"] if v not in taken],
    }


def _small_talk(rng: random.Random, template: str, lures: dict[str, list[str]]) -> str:
    return template.format(**{k: rng.choice(v) for k, v in lures.items()})


def place_day(
    plan: PersonaPlan, day: int, items: list[tuple[str, str, FactEvent | None]]
) -> list[RenderedTurn]:
    """A day's ``(text, style, event)`` items as turns of its evening session, in order."""
    base = plan.date_of(day) + EVENING
    return [
        RenderedTurn(
            plan.persona_id, day, base + i * TURN_GAP, f"day-{day:02d}", text, style, event
        )
        for i, (text, style, event) in enumerate(items)
    ]


def describe(event: FactEvent) -> str:
    """The fact an event conveys, in plain words (for a model writing the turn, and reports)."""
    q = f" ({event.qualifier})" if event.qualifier else ""
    attribute = event.attribute.replace("_", " ")
    if event.kind == "end" and event.attribute == "pet":
        return f"their {event.qualifier} {event.previous} died"
    if event.kind == "restate":
        return f"something about their day that mentions their {attribute}, {event.value}"
    if event.kind == "end":
        return f"they broke up with their partner {event.previous}"
    if event.kind == "correction":
        return (
            f"correcting an earlier slip: their {attribute} is {event.value}, "
            f"not {event.previous} as they said before"
        )
    if event.kind == "update" and event.previous is None:
        return f"they have a new {attribute}: {event.value}"
    if event.kind == "update":
        return f"their {attribute} changed from {event.previous} to {event.value}"
    if event.kind == "add":
        return f"they have a new {attribute}{q}: {event.value}"
    return f"their {attribute}{q} is {event.value}"


class BrainRenderer:
    """Renders fact turns with a model; small talk and fallbacks come from templates.

    Example::

        turns = await BrainRenderer(brain).render(plan, seed=1)
    """

    def __init__(self, brain: Brain) -> None:
        self._brain = brain
        self.fallbacks = 0
        """Fact turns the model wrote without naming the value (a template was used instead)."""

    async def render(self, plan: PersonaPlan, *, seed: int = 0) -> list[RenderedTurn]:
        turns = render_plan(plan, seed=seed)
        out: list[RenderedTurn] = []
        done: set[int] = set()
        for turn in turns:
            event = turn.event
            if event is None:
                out.append(turn)
                continue
            if id(event) in done:  # the second half of a split template: the model wrote one turn
                continue
            done.add(id(event))
            text = await self._write(plan, event)
            if text is None:
                self.fallbacks += 1
                out.extend(t for t in turns if t.event is event)
            else:
                out.append(
                    RenderedTurn(
                        turn.persona_id, turn.day, turn.at, turn.session_id, text, "model", event
                    )
                )
        return out

    async def _write(self, plan: PersonaPlan, event: FactEvent) -> str | None:
        prompt = (
            f"Write one casual chat message (1-2 sentences) that {plan.name} sends to their AI "
            f"companion and that conveys, indirectly if natural: {describe(event)}. Do not use "
            "a textbook sentence like 'I live in X'. Reply with the message only."
        )
        completion = await self._brain.complete([Message.user(prompt)], temperature=0.7)
        text = completion.text.strip().strip('"')
        needed = event.value if event.kind != "end" else event.previous
        if not text or needed is None or not mentions(text, needed):
            return None
        return text
