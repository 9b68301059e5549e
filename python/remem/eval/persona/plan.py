"""A persona's ground truth: facts and their scheduled changes over simulated days.

The plan is the only source of truth in the eval: conversations are rendered *from* it and quiz
questions are generated *from* it, never from the transcript. It is a pure function of
``(seed, index, days)``: the same arguments give the same plan, byte for byte.

Event kinds:

- ``initial`` — a fact first stated (a city, a partner, a dog named Miso, ...);
- ``update`` — a single-valued fact changes (a move, a new job, a new diet); ``previous`` is the
  value it replaces;
- ``end`` — the partner relationship ends (``value`` is None); a later ``update`` may bring a
  new partner;
- ``add`` — another value of a multi-valued fact (a new hobby, a new pet);
- ``misstatement`` — the user states a wrong value (a slip), which a later ``correction``
  replaces; the misstated value was *never* true, so it is stale but not a "previous" value;
- ``restate`` — the current value mentioned again in passing (year horizon only,
  :mod:`~remem.eval.persona.year_plan`); it changes nothing.

    plan = generate_plan(seed=7, index=0, days=24)
    plan.current("city")        # "Porto"
    plan.true_history("city")   # [(0, "Lisbon"), (13, "Porto")]
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from remem.errors import InvalidArgumentError
from remem.eval.persona.values import MONTHS, POOLS

__all__ = [
    "DEFAULT_START",
    "MULTI_VALUED",
    "SINGLE_VALUED",
    "EventKind",
    "FactEvent",
    "PersonaPlan",
    "generate_plan",
    "generate_plans",
]

EventKind = Literal["initial", "update", "end", "add", "misstatement", "correction", "restate"]

SINGLE_VALUED = frozenset(
    {
        "city",
        "employer",
        "job_title",
        "partner",
        "diet",
        "favourite_food",
        "hometown",
        "allergy",
        "birthday",
        "health",
    }
)
"""Attributes a persona has one value of at a time (allergy too: each persona has one)."""
MULTI_VALUED = frozenset({"pet", "hobby", "sibling"})

DEFAULT_START = datetime(2026, 3, 2, tzinfo=UTC)
"""Day 0 of every plan (a Monday); simulated time only, nothing sleeps."""
MIN_DAYS = 6
_UPDATABLE = ("city", "employer", "job_title", "partner", "diet", "hobby", "pet")
_MISSTATABLE = ("allergy", "birthday", "hometown", "favourite_food")
_SIBLING_KINDS = ("sister", "brother")


@dataclass(frozen=True, slots=True)
class FactEvent:
    """One thing the user says about themselves on a simulated day (see module docstring)."""

    day: int
    attribute: str
    value: str | None
    kind: EventKind
    previous: str | None = None
    qualifier: str | None = None
    """The kind of pet ("dog") or sibling ("sister") a multi-valued value belongs to."""


@dataclass(frozen=True, slots=True)
class PersonaPlan:
    """A persona: a name, a start date, a number of days and the ordered fact events."""

    persona_id: str
    name: str
    seed: int
    start: datetime
    days: int
    events: tuple[FactEvent, ...]

    def date_of(self, day: float) -> datetime:
        return self.start + timedelta(days=day)

    def events_on(self, day: int) -> list[FactEvent]:
        return [e for e in self.events if e.day == day]

    def true_history(self, attribute: str) -> list[tuple[int, str | None]]:
        """``(day, value)`` for every true value of a single-valued attribute, oldest first.

        A correction rewrites the misstated value in place (from the misstatement's day): the
        user meant the corrected value all along. An ``end`` contributes ``(day, None)``.
        """
        history: list[tuple[int, str | None]] = []
        for event in self.events:
            if event.attribute != attribute:
                continue
            if event.kind == "correction":
                day, _ = history.pop()
                history.append((day, event.value))
            elif event.kind in ("initial", "update", "end", "misstatement"):
                history.append((event.day, event.value))
        return history

    def current(self, attribute: str) -> str | None:
        history = self.true_history(attribute)
        return history[-1][1] if history else None

    def misstated(self, attribute: str) -> list[str]:
        """Values the user stated for ``attribute`` that were never true."""
        return [
            e.value
            for e in self.events
            if e.attribute == attribute and e.kind == "misstatement" and e.value is not None
        ]

    def all_values(self) -> frozenset[str]:
        """Every value the plan ever states (lures must avoid them)."""
        return frozenset(e.value for e in self.events if e.value is not None) | {self.name}


def generate_plans(count: int, *, seed: int = 0, days: int = 24) -> list[PersonaPlan]:
    """``count`` different personas from one seed."""
    if count < 1:
        raise InvalidArgumentError(f"persona count must be at least 1, got {count}")
    return [generate_plan(seed, index, days=days) for index in range(count)]


def generate_plan(
    seed: int, index: int = 0, *, days: int = 24, start: datetime = DEFAULT_START
) -> PersonaPlan:
    """The plan of persona ``index`` of ``seed`` over ``days`` simulated days (see module doc)."""
    if days < MIN_DAYS:
        raise InvalidArgumentError(f"a plan needs at least {MIN_DAYS} days, got {days}")
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and platforms.
    rng = random.Random(f"remem-persona:{seed}:{index}")
    used: set[str] = set()

    def draw(pool: str) -> str:
        value = rng.choice([v for v in POOLS[pool] if v not in used])
        used.add(value)
        return value

    name = draw("persona")
    intro = max(2, days // 3)
    events: list[FactEvent] = []

    def intro_day() -> int:
        return rng.randrange(intro)

    for attribute in ("city", "employer", "job_title", "partner", "diet", "favourite_food"):
        events.append(FactEvent(intro_day(), attribute, draw(attribute), "initial"))
    events.append(FactEvent(intro_day(), "hometown", draw("hometown"), "initial"))
    events.append(FactEvent(intro_day(), "allergy", draw("allergy"), "initial"))
    events.append(FactEvent(intro_day(), "birthday", _birthday(rng), "initial"))
    if rng.random() < 0.5:
        events.append(FactEvent(intro_day(), "health", draw("health"), "initial"))
    kinds = rng.sample(POOLS["pet_kind"], 3)
    for kind in kinds[: rng.randint(1, 2)]:
        events.append(FactEvent(intro_day(), "pet", draw("pet"), "initial", qualifier=kind))
    for _ in range(2):
        events.append(FactEvent(intro_day(), "hobby", draw("hobby"), "initial"))
    for kind in rng.sample(_SIBLING_KINDS, rng.randint(1, 2)):
        events.append(FactEvent(intro_day(), "sibling", draw(kind), "initial", qualifier=kind))

    for attribute in rng.sample(_MISSTATABLE, rng.randint(1, 2)):
        at = next(i for i, e in enumerate(events) if e.attribute == attribute)
        truth = events[at]
        assert truth.value is not None
        wrong = _birthday_slip(rng, truth.value) if attribute == "birthday" else draw(attribute)
        events[at] = FactEvent(truth.day, attribute, wrong, "misstatement")
        fix_day = min(days - 1, truth.day + rng.randint(2, 6))
        events.append(FactEvent(fix_day, attribute, truth.value, "correction", previous=wrong))

    def change_day() -> int:
        return rng.randrange(intro, days - 1)

    for attribute in rng.sample(_UPDATABLE, rng.randint(3, 4)):
        day = change_day()
        if attribute == "partner":
            old = _value(events, "partner")
            end_day = min(day, days - 3)
            events.append(FactEvent(end_day, "partner", None, "end", previous=old))
            new_day = min(days - 1, end_day + rng.randint(2, 5))
            events.append(FactEvent(new_day, "partner", draw("partner"), "update"))
        elif attribute == "pet":
            kind = kinds[2]
            events.append(FactEvent(day, "pet", draw("pet"), "add", qualifier=kind))
        elif attribute == "hobby":
            events.append(FactEvent(day, "hobby", draw("hobby"), "add"))
        else:
            old = _value(events, attribute)
            events.append(FactEvent(day, attribute, draw(attribute), "update", previous=old))
    events.sort(key=lambda e: e.day)  # stable: same-day events keep their generation order
    return PersonaPlan(
        persona_id=f"p{seed}-{index}",
        name=name,
        seed=seed,
        start=start,
        days=days,
        events=tuple(events),
    )


def _value(events: list[FactEvent], attribute: str) -> str:
    value = next(e.value for e in reversed(events) if e.attribute == attribute)
    assert value is not None
    return value


def _birthday(rng: random.Random) -> str:
    return f"{rng.choice(MONTHS)} {rng.randint(1, 28)}"


def _birthday_slip(rng: random.Random, truth: str) -> str:
    """A plausible slip: the right month with another day, or the right day in another month."""
    month, day = truth.split(" ")
    if rng.random() < 0.5:
        other = rng.choice([d for d in range(1, 29) if d != int(day)])
        return f"{month} {other}"
    return f"{rng.choice([m for m in MONTHS if m != month])} {day}"
