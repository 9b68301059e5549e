"""A persona's year: facts scattered over months, some said once, some changed, some corrected.

The year horizon's ground truth, a :class:`~remem.eval.persona.plan.PersonaPlan` like the weeks
mode's, drawn differently:

- **stable facts said once** — hometown, allergy, birthday, a health condition (half of the
  personas), favourite food, siblings, the first pets and hobbies — each on one day anywhere in
  the first ``days - 45`` days, and never again: these are the quiz's ``long_gap`` questions;
- **facts that change** — the city, the employer, the job title, the partner (a break-up, then
  someone new), the diet — first said in the first month; three or four of them change once in
  the second half; and their current value comes up again in passing every few weeks
  (``restate`` events), as it does in life;
- **pets** — one pet dies in the second half and a new one of the same kind is adopted later;
- **corrections** — one or two stable facts are first misstated and corrected 2-20 days later.

A pure function of ``(seed, index, days)``, like :func:`~remem.eval.persona.plan.generate_plan`.

    plan = generate_year_plan(seed=0, index=0, days=365)
    [e for e in plan.events if e.kind == "restate"][:2]
"""

from __future__ import annotations

import random
from datetime import datetime

from remem.errors import InvalidArgumentError
from remem.eval.persona.plan import DEFAULT_START, FactEvent, PersonaPlan
from remem.eval.persona.plan import _birthday as _birthday
from remem.eval.persona.plan import _birthday_slip as _birthday_slip
from remem.eval.persona.values import POOLS
from remem.eval.persona.year_templates import RESTATE

__all__ = ["LONG_GAP_DAYS", "MIN_YEAR_DAYS", "generate_year_plan", "generate_year_plans"]

MIN_YEAR_DAYS = 90
"""Shortest horizon that leaves every stable fact ≥ 45 days before the quiz."""
LONG_GAP_DAYS = 30
"""A question is ``long_gap`` when its only statement is at least this many days old."""
_CHANGING = ("city", "employer", "job_title", "partner", "diet")
_STABLE = ("hometown", "allergy", "birthday", "favourite_food")
_MISSTATABLE = ("allergy", "birthday", "hometown", "favourite_food")
_RESTATE_EVERY = (18, 45)
"""Days between two passing mentions of a changing fact's current value."""


def generate_year_plans(count: int, *, seed: int = 0, days: int = 365) -> list[PersonaPlan]:
    """``count`` different year-long personas from one seed."""
    if count < 1:
        raise InvalidArgumentError(f"persona count must be at least 1, got {count}")
    return [generate_year_plan(seed, index, days=days) for index in range(count)]


def generate_year_plan(
    seed: int, index: int = 0, *, days: int = 365, start: datetime = DEFAULT_START
) -> PersonaPlan:
    """The year plan of persona ``index`` of ``seed`` (see the module docstring)."""
    if days < MIN_YEAR_DAYS:
        raise InvalidArgumentError(
            f"the year horizon needs at least {MIN_YEAR_DAYS} days, got {days}; use the weeks "
            "horizon for shorter runs"
        )
    rng = random.Random(f"remem-year:{seed}:{index}")
    used: set[str] = set()

    def draw(pool: str) -> str:
        value = rng.choice([v for v in POOLS[pool] if v not in used])
        used.add(value)
        return value

    name = draw("persona")
    once_until = days - 45  # every stable fact is ≥ 45 days old at the quiz
    events: list[FactEvent] = []

    def once_day() -> int:
        return rng.randrange(once_until)

    for attribute in _CHANGING:
        events.append(FactEvent(rng.randrange(30), attribute, draw(attribute), "initial"))
    for attribute in _STABLE:
        value = _birthday(rng) if attribute == "birthday" else draw(attribute)
        events.append(FactEvent(once_day(), attribute, value, "initial"))
    if rng.random() < 0.5:
        events.append(FactEvent(once_day(), "health", draw("health"), "initial"))
    kinds = rng.sample(POOLS["pet_kind"], 2)
    for kind in kinds:
        events.append(FactEvent(once_day(), "pet", draw("pet"), "initial", qualifier=kind))
    for _ in range(2):
        events.append(FactEvent(once_day(), "hobby", draw("hobby"), "initial"))
    for kind in rng.sample(("sister", "brother"), rng.randint(1, 2)):
        events.append(FactEvent(once_day(), "sibling", draw(kind), "initial", qualifier=kind))

    for attribute in rng.sample(_MISSTATABLE, rng.randint(1, 2)):
        at = next(i for i, e in enumerate(events) if e.attribute == attribute)
        truth = events[at]
        assert truth.value is not None
        wrong = _birthday_slip(rng, truth.value) if attribute == "birthday" else draw(attribute)
        events[at] = FactEvent(truth.day, attribute, wrong, "misstatement")
        fix_day = truth.day + rng.randint(2, 20)
        events.append(FactEvent(fix_day, attribute, truth.value, "correction", previous=wrong))

    half = days // 2
    for attribute in rng.sample(_CHANGING, rng.randint(3, 4)):
        day = rng.randrange(half, days - 10)
        old = _value(events, attribute)
        if attribute == "partner":
            events.append(FactEvent(day, "partner", None, "end", previous=old))
            new_day = min(days - 2, day + rng.randint(5, 30))
            events.append(FactEvent(new_day, "partner", draw("partner"), "update", previous=old))
        else:
            events.append(FactEvent(day, attribute, draw(attribute), "update", previous=old))

    lost = next(e for e in events if e.attribute == "pet")
    death = rng.randrange(half, days - 20)
    events.append(
        FactEvent(death, "pet", None, "end", previous=lost.value, qualifier=lost.qualifier)
    )
    adopt = death + rng.randint(7, 15)
    events.append(FactEvent(adopt, "pet", draw("pet"), "add", qualifier=lost.qualifier))
    events.append(FactEvent(rng.randrange(half, days - 5), "hobby", draw("hobby"), "add"))

    events.extend(_restatements(rng, events, days))
    events.sort(key=lambda e: e.day)  # stable: same-day events keep their generation order
    return PersonaPlan(
        persona_id=f"y{seed}-{index}",
        name=name,
        seed=seed,
        start=start,
        days=days,
        events=tuple(events),
    )


def _restatements(rng: random.Random, events: list[FactEvent], days: int) -> list[FactEvent]:
    """Passing mentions of each changing fact's value while it holds (never on its own days)."""
    out: list[FactEvent] = []
    for attribute in sorted(RESTATE):
        spans = [e for e in events if e.attribute == attribute and e.kind != "restate"]
        spans.sort(key=lambda e: e.day)
        for event, following in zip(spans, [*spans[1:], None], strict=True):
            if event.value is None:
                continue
            until = following.day if following is not None else days
            day = event.day + rng.randint(*_RESTATE_EVERY)
            while day < until:
                out.append(FactEvent(day, attribute, event.value, "restate"))
                day += rng.randint(*_RESTATE_EVERY)
    return out


def _value(events: list[FactEvent], attribute: str) -> str:
    value = next(e.value for e in reversed(events) if e.attribute == attribute)
    assert value is not None
    return value
