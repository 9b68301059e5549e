"""Quiz questions generated from a plan (never from the transcript).

Categories:

- ``current`` — the value now ("Which city do I live in now?"); superseded values are stale;
- ``corrected`` — the value now, for a fact the user misstated and later corrected; the slip is
  stale;
- ``previous`` — the value before the last change ("Where did I live before Porto?");
- ``when_changed`` — the date of a change; the evidence is the date written out;
- ``still_holds`` — "Do I still live in Lisbon?": yes (evidence: the value) or no (evidence: the
  new value; the old one is stale);
- ``unanswerable`` — something the plan never states; the right answer says so;
- ``update``, ``negation``, ``other_person`` — only in the hand-written set
  (:mod:`~remem.eval.persona.handwritten`): a value that changed, a fact that ended ("not doing
  keto anymore"), and a fact of the user's that another person's could be taken for;
- ``long_gap`` (only with ``long_gap_days``, the year horizon) — a ``current`` question whose
  value was said in exactly one event of the plan, at least ``long_gap_days`` before the
  question, and never again (:func:`said_once`).

Questions are asked the day after the plan's last day; a delayed subset (current, corrected,
still_holds) is asked again ``delay_days`` later — the forgetting curve's second point.

    questions = build_quiz(plan, delay_days=10)
    [q for q in questions if q.delayed]
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from remem.eval.persona.plan import PersonaPlan
from remem.eval.persona.values import UNANSWERABLE

__all__ = ["CATEGORIES", "CURRENT_FACT", "Category", "Question", "build_quiz", "said_once"]

Category = Literal[
    "current",
    "long_gap",
    "corrected",
    "update",
    "negation",
    "other_person",
    "previous",
    "when_changed",
    "still_holds",
    "unanswerable",
]
CATEGORIES: tuple[Category, ...] = (
    "current",
    "long_gap",
    "corrected",
    "update",
    "negation",
    "other_person",
    "previous",
    "when_changed",
    "still_holds",
    "unanswerable",
)

_CURRENT = {
    "city": "Which city do I live in now?",
    "employer": "Where do I work these days?",
    "job_title": "What's my job?",
    "partner": "Who am I dating right now?",
    "diet": "What diet am I on at the moment?",
    "favourite_food": "What's my favourite food?",
    "hometown": "Where did I grow up?",
    "allergy": "What am I allergic to?",
    "birthday": "When is my birthday?",
    "health": "What health condition do I live with?",
}
_PREVIOUS = {
    "city": "Where did I live before {v}?",
    "employer": "Where did I work before {v}?",
    "job_title": "What was my job before I became a {v}?",
    "partner": "Who was I with before {v}?",
    "diet": "What diet did I follow before going {v}?",
}
_WHEN = {
    "city": "When did I move to {v}?",
    "employer": "When did I start at {v}?",
    "job_title": "When did I become a {v}?",
    "partner": "When did I start seeing {v}?",
    "diet": "When did I go {v}?",
    "pet": "When did I get {v}?",
    "hobby": "When did I take up {v}?",
}
_STILL = {
    "city": "Do I still live in {v}?",
    "employer": "Do I still work at {v}?",
    "job_title": "Am I still a {v}?",
    "partner": "Am I still with {v}?",
    "diet": "Am I still {v}?",
}
CURRENT_FACT: frozenset[str] = frozenset(
    {"current", "long_gap", "corrected", "update", "negation", "other_person"}
)
"""The categories that ask for a value as it is now (the "current-fact" figure of a report);
``update``, ``negation`` and ``other_person`` come only from the hand-written set
(:mod:`~remem.eval.persona.handwritten`)."""
_Add = Callable[..., None]
_DELAYED: frozenset[str] = frozenset({"current", "long_gap", "corrected", "still_holds"})


@dataclass(frozen=True, slots=True)
class Question:
    """One quiz question with everything scoring needs.

    ``answer`` is the gold answer in words (for judges); ``accepted`` the values a correct
    answer names (any one); ``evidence`` the values whose presence in the assembled context
    counts as recall (empty: recall does not apply); ``stale`` superseded or misstated values;
    ``stated_day`` the day the evidence was last stated; ``ask_day`` when the question is asked;
    ``near`` (year horizon, ``when_changed``): an evidence value counts only on a line that
    also names one of these values — a date on a line about something else is not the answer.
    """

    id: str
    persona_id: str
    category: Category
    attribute: str
    text: str
    answer: str
    accepted: tuple[str, ...]
    evidence: tuple[str, ...]
    stale: tuple[str, ...]
    stated_day: int | None
    ask_day: int
    delayed: bool = False
    near: tuple[str, ...] = ()

    @property
    def age_days(self) -> int | None:
        """Days between the evidence being stated and the question being asked."""
        return None if self.stated_day is None else self.ask_day - self.stated_day


def build_quiz(
    plan: PersonaPlan, *, delay_days: int = 10, seed: int = 0, long_gap_days: int | None = None
) -> list[Question]:
    """Every question for ``plan``: immediate ones, then the delayed re-asks.

    With ``long_gap_days`` (the year horizon), a ``current`` question whose one evidence value
    :func:`said_once` at least that many days before the question is a ``long_gap`` question
    instead, and a ``when_changed`` date counts only beside the value it is asked about
    (``near``); without it the weeks horizon keeps its original scoring.
    """
    rng = random.Random(f"remem-quiz:{plan.persona_id}:{seed}")
    ask = plan.days
    out: list[Question] = []

    def add(category: Category, attribute: str, text: str, answer: str, **kw: Any) -> None:
        qid = f"{plan.persona_id}:{category}:{attribute}:{len(out)}"
        out.append(
            Question(qid, plan.persona_id, category, attribute, text, answer, ask_day=ask, **kw)
        )

    unchanged: list[str] = []
    for attribute, text in _CURRENT.items():
        history = plan.true_history(attribute)
        if not history:
            continue
        _, value = history[-1]
        assert value is not None
        corrected = bool(plan.misstated(attribute))
        stale = tuple(v for _, v in history[:-1] if v is not None and v != value)
        stale += tuple(plan.misstated(attribute))
        last = _last_statement(plan, attribute, value)
        add(
            "corrected" if corrected else "current",
            attribute,
            text,
            value,
            accepted=(value,),
            evidence=(value,),
            stale=stale,
            stated_day=last,
        )
        changed = [(d, v) for d, v in history if v is not None]
        if len(changed) >= 2 and attribute in _PREVIOUS:
            (_, old), (new_day, new) = changed[-2], changed[-1]
            add(
                "previous",
                attribute,
                _PREVIOUS[attribute].format(v=new),
                old,
                accepted=(old,),
                evidence=(old,),
                stale=(),
                stated_day=_last_statement(plan, attribute, old),
            )
            _when(add, plan, attribute, new, new_day)
            add(
                "still_holds",
                attribute,
                _STILL[attribute].format(v=old),
                f"No: {new} now, no longer {old}",
                accepted=("no",),
                evidence=(new,),
                stale=(old,),
                stated_day=last,
            )
        elif attribute in _STILL and not corrected:
            unchanged.append(attribute)
    for attribute in rng.sample(unchanged, min(2, len(unchanged))):
        value = plan.current(attribute)
        assert value is not None
        add(
            "still_holds",
            attribute,
            _STILL[attribute].format(v=value),
            f"Yes: still {value}",
            accepted=("yes",),
            evidence=(value,),
            stale=(),
            stated_day=_last_statement(plan, attribute, value),
        )
    _multi_valued(add, plan)
    for topic, text in rng.sample(UNANSWERABLE, 2):
        add(
            "unanswerable",
            topic,
            text,
            "Unknown: the user never said",
            accepted=(),
            evidence=(),
            stale=(),
            stated_day=None,
        )
    if long_gap_days is not None:
        out = [_long_gap(plan, q, long_gap_days) for q in out]
    else:
        out = [replace(q, near=()) for q in out]
    delayed = [
        replace(q, id=f"{q.id}+{delay_days}d", ask_day=ask + delay_days, delayed=True)
        for q in out
        if q.category in _DELAYED
    ]
    return out + delayed


def said_once(plan: PersonaPlan, value: str) -> bool:
    """True when exactly one event of ``plan`` names ``value`` (as its value or the value it
    replaces): the user said it once and never again."""
    return sum(1 for e in plan.events if value in (e.value, e.previous)) == 1


def _long_gap(plan: PersonaPlan, q: Question, days: int) -> Question:
    if q.category != "current" or len(q.evidence) != 1 or q.stated_day is None:
        return q
    if q.ask_day - q.stated_day < days or not said_once(plan, q.evidence[0]):
        return q
    return replace(q, id=q.id.replace(":current:", ":long_gap:", 1), category="long_gap")


def _multi_valued(add: _Add, plan: PersonaPlan) -> None:
    hobbies = [e for e in plan.events if e.attribute == "hobby"]
    initial = [e.value for e in hobbies if e.kind == "initial" and e.value is not None]
    add(
        "current",
        "hobby",
        "What's one of my hobbies?",
        " or ".join(initial),
        accepted=tuple(initial),
        evidence=tuple(initial),
        stale=(),
        stated_day=max(e.day for e in hobbies if e.kind == "initial"),
    )
    gone = {e.previous for e in plan.events if e.attribute == "pet" and e.kind == "end"}
    for event in plan.events:
        if event.value is None or event.value in gone:
            continue
        if event.attribute in ("pet", "sibling"):
            new = " new" if event.kind == "add" else ""
            # A pet that replaces one that died: the old name is the stale answer.
            lost = tuple(
                e.previous
                for e in plan.events
                if e.kind == "end" and e.qualifier == event.qualifier and e.previous is not None
            )
            add(
                "current",
                event.attribute,
                f"What's the name of my{new} {event.qualifier}?",
                event.value,
                accepted=(event.value,),
                evidence=(event.value,),
                stale=lost if event.attribute == "pet" else (),
                stated_day=event.day,
            )
        if event.kind == "add" and event.attribute == "hobby":
            add(
                "current",
                "hobby",
                "What new hobby did I take up recently?",
                event.value,
                accepted=(event.value,),
                evidence=(event.value,),
                stale=tuple(initial),
                stated_day=event.day,
            )
        if event.kind == "add":
            _when(add, plan, event.attribute, event.value, event.day)


def _when(add: _Add, plan: PersonaPlan, attribute: str, value: str, day: int) -> None:
    date = plan.date_of(day)
    spoken = f"{date:%B} {date.day}"
    add(
        "when_changed",
        attribute,
        _WHEN[attribute].format(v=value),
        f"{spoken} ({plan.days - day} days before the quiz)",
        accepted=(spoken, date.date().isoformat()),
        evidence=(spoken, date.date().isoformat()),
        stale=(),
        stated_day=day,
        near=(value,),
    )


def _last_statement(plan: PersonaPlan, attribute: str, value: str) -> int:
    """The last day the user said ``value`` for ``attribute`` (a correction restates it)."""
    days = [
        e.day
        for e in plan.events
        if e.attribute == attribute and e.value == value and e.kind != "misstatement"
    ]
    return max(days)
