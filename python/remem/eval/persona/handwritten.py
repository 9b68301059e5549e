"""The hand-written persona set: conversations and ground truth typed by a person, not generated.

The generated personas (:mod:`~remem.eval.persona.plan`, rendered from templates) test what
their templates say; this set tests how people really type — typos, run-ons, facts told in
steps, corrections, negations, other people's facts, hypotheticals. It runs through the same
harness and the same scoring (:func:`~remem.eval.persona.llm_free.score_context`):
``remem eval --set handwritten``.

Each persona is one JSON Lines file in ``sets/handwritten/`` (package data). Line 1 is the
header, then the messages in time order, then the questions asked in a new session the day
after the last message (the question is wrapped here; each record is one line in a file)::

    {"persona": "h01", "name": "Dani", "start": "2026-01-05"}
    {"day": 0, "at": "19:02", "text": "hiii ok so we left exeter, just moved to truro lol"}
    {"q": "where do i live now?", "kind": "update", "attribute": "city",
     "answer": "Truro", "evidence": ["Truro"], "stale": ["Exeter"], "stated_day": 0}

``kind`` is one of :data:`KINDS` (mapped onto the harness's categories by :data:`CATEGORY_OF`);
``evidence`` lists the strings whose presence in the prompt counts as recall (any one; the
current value and its aliases, or for a negation the phrasings that say it ended); ``stale``
the values that must not be presented as current (superseded, misstated, another person's value
the user's fact could be taken for — the point of ``other_person`` — or a hypothetical's);
``stated_day`` the day the current value was (last) said; ``accepted`` (optional, default the
evidence) what a correct answer names, for judges. Each day's messages are one session
(``day-007``), at the given time of that day.

:func:`load_set` checks every file: a malformed line, a bad field, messages out of order, an
evidence or stale value no message mentions, a ``long_gap`` question under
:data:`LONG_GAP_DAYS`, or a persona outside the size the set promises raises
:class:`~remem.errors.DatasetError` naming the file and line.

    plans, conversations, quizzes = load_set()
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from remem.errors import DatasetError
from remem.eval.persona.matching import mentions_any
from remem.eval.persona.plan import PersonaPlan
from remem.eval.persona.quiz import Category, Question
from remem.eval.persona.render import RenderedTurn

__all__ = [
    "CATEGORY_OF",
    "HANDWRITTEN_DIR",
    "KINDS",
    "LONG_GAP_DAYS",
    "HandwrittenPersona",
    "load_persona",
    "load_set",
]

HANDWRITTEN_DIR = Path(__file__).parent / "sets" / "handwritten"
"""Where the shipped set lives (package data)."""
CATEGORY_OF: dict[str, Category] = {
    "current": "current",
    "update": "update",
    "negation": "negation",
    "correction": "corrected",
    "long_gap": "long_gap",
    "other_person": "other_person",
    "history": "previous",
}
"""A question's kind in the files -> the harness category it is scored and reported under."""
KINDS: tuple[str, ...] = tuple(CATEGORY_OF)
LONG_GAP_DAYS = 30
"""A ``long_gap`` question is asked at least this many days after its fact was said."""
MESSAGES = (30, 120)
"""User messages per persona (inclusive bounds)."""
SPAN_DAYS = (20, 300)
"""Simulated days a persona's conversation spans (inclusive bounds)."""
MIN_QUESTIONS = 8

_HEADER = {"persona", "name", "start"}
_MESSAGE = {"day", "at", "text"}
_QUESTION_REQUIRED = {"q", "kind", "attribute", "answer", "evidence", "stale", "stated_day"}
_QUESTION = _QUESTION_REQUIRED | {"accepted"}


@dataclass(frozen=True, slots=True)
class HandwrittenPersona:
    """One loaded file: the plan (no events — the ground truth is the questions), the turns
    and the questions."""

    path: Path
    plan: PersonaPlan
    turns: list[RenderedTurn]
    questions: list[Question]


def load_set(
    directory: Path = HANDWRITTEN_DIR, *, limit: int | None = None
) -> tuple[list[PersonaPlan], list[list[RenderedTurn]], list[list[Question]]]:
    """Plans, conversations and quizzes of every ``*.jsonl`` in ``directory`` (file name order),
    or of the first ``limit``; the same shape as
    :func:`~remem.eval.persona.horizon.materialise`."""
    if not directory.is_dir():
        raise DatasetError(f"{directory} is not a directory; pass the persona set's directory")
    files = sorted(directory.glob("*.jsonl"))
    if not files:
        raise DatasetError(f"{directory} holds no .jsonl persona files")
    if limit is not None:
        files = files[:limit]
    personas = [load_persona(f) for f in files]
    seen: dict[str, Path] = {}
    for p in personas:
        if p.plan.persona_id in seen:
            raise DatasetError(
                f"{p.path}:1: persona id {p.plan.persona_id!r} is also used by "
                f"{seen[p.plan.persona_id]}; give each file its own id"
            )
        seen[p.plan.persona_id] = p.path
    return (
        [p.plan for p in personas],
        [p.turns for p in personas],
        [p.questions for p in personas],
    )


def load_persona(path: Path) -> HandwrittenPersona:
    """Load and check one persona file (see module docstring)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DatasetError(f"{path}: not readable ({exc})") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 ({exc})") from None
    records = [(n, _parse(path, n, line)) for n, line in enumerate(lines, 1) if line.strip()]
    if not records:
        raise DatasetError(f"{path}: empty; line 1 must be the persona header")
    n, header = records[0]
    _fields(path, n, header, _HEADER, _HEADER, "header")
    persona_id = _text(path, n, header, "persona")
    name = _text(path, n, header, "name")
    try:
        start = datetime.combine(date.fromisoformat(_text(path, n, header, "start")), time(), UTC)
    except ValueError:
        raise DatasetError(f"{path}:{n}: start must be a date like 2026-01-05") from None
    turns: list[RenderedTurn] = []
    raw_questions: list[tuple[int, dict[str, Any]]] = []
    message_lines: list[int] = []
    for n, record in records[1:]:
        if "q" in record:
            raw_questions.append((n, record))
            continue
        if raw_questions:
            raise DatasetError(f"{path}:{n}: a message after the questions; questions come last")
        turns.append(_message(path, n, record, persona_id, start, turns))
        message_lines.append(n)
    if not MESSAGES[0] <= len(turns) <= MESSAGES[1]:
        raise DatasetError(
            f"{path}: {len(turns)} messages; a persona has {MESSAGES[0]}-{MESSAGES[1]}"
        )
    span = turns[-1].day - turns[0].day
    if not SPAN_DAYS[0] <= span <= SPAN_DAYS[1]:
        raise DatasetError(
            f"{path}: the messages span {span} days; a persona spans {SPAN_DAYS[0]}-{SPAN_DAYS[1]}"
        )
    ask_day = turns[-1].day + 1
    plan = PersonaPlan(persona_id, name, 0, start, ask_day, ())
    questions = [
        _question(path, n, record, persona_id, i, ask_day, turns)
        for i, (n, record) in enumerate(raw_questions)
    ]
    if len(questions) < MIN_QUESTIONS:
        raise DatasetError(
            f"{path}: {len(questions)} questions; a persona has at least {MIN_QUESTIONS}"
        )
    return HandwrittenPersona(path, plan, turns, questions)


def _parse(path: Path, n: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{n}: not a JSON object ({exc.msg})") from None
    if not isinstance(value, dict):
        raise DatasetError(f"{path}:{n}: a line must be a JSON object, got {type(value).__name__}")
    return value


def _fields(
    path: Path, n: int, record: dict[str, Any], required: set[str], allowed: set[str], what: str
) -> None:
    missing = sorted(required - record.keys())
    if missing:
        raise DatasetError(f"{path}:{n}: the {what} lacks {', '.join(missing)}")
    extra = sorted(record.keys() - allowed)
    if extra:
        raise DatasetError(
            f"{path}:{n}: the {what} has unknown field(s) {', '.join(extra)}; "
            f"allowed: {', '.join(sorted(allowed))}"
        )


def _text(path: Path, n: int, record: dict[str, Any], key: str) -> str:
    value = record[key]
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"{path}:{n}: {key} must be a non-empty string, got {value!r}")
    return value


def _day(path: Path, n: int, record: dict[str, Any], key: str) -> int:
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DatasetError(f"{path}:{n}: {key} must be a day number >= 0, got {value!r}")
    return value


def _strings(path: Path, n: int, record: dict[str, Any], key: str) -> tuple[str, ...]:
    value = record[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise DatasetError(f"{path}:{n}: {key} must be a list of non-empty strings")
    return tuple(value)


def _message(
    path: Path,
    n: int,
    record: dict[str, Any],
    persona_id: str,
    start: datetime,
    before: list[RenderedTurn],
) -> RenderedTurn:
    _fields(path, n, record, _MESSAGE, _MESSAGE, "message")
    day = _day(path, n, record, "day")
    try:
        clock = time.fromisoformat(_text(path, n, record, "at"))
    except ValueError:
        raise DatasetError(f"{path}:{n}: at must be a time of day like 19:05") from None
    at = start + timedelta(days=day, hours=clock.hour, minutes=clock.minute)
    if before and at <= before[-1].at:
        raise DatasetError(
            f"{path}:{n}: day {day} {clock:%H:%M} is not after the message before it; keep "
            "messages in time order"
        )
    text = _text(path, n, record, "text")
    return RenderedTurn(persona_id, day, at, f"day-{day:03d}", text, "handwritten")


def _question(
    path: Path,
    n: int,
    record: dict[str, Any],
    persona_id: str,
    index: int,
    ask_day: int,
    turns: list[RenderedTurn],
) -> Question:
    _fields(path, n, record, _QUESTION_REQUIRED, _QUESTION, "question")
    kind = _text(path, n, record, "kind")
    if kind not in CATEGORY_OF:
        raise DatasetError(f"{path}:{n}: kind {kind!r} is unknown; use one of {', '.join(KINDS)}")
    evidence = _strings(path, n, record, "evidence")
    if not evidence:
        raise DatasetError(f"{path}:{n}: evidence is empty; name the value that answers it")
    stale = _strings(path, n, record, "stale")
    accepted = _strings(path, n, record, "accepted") if "accepted" in record else evidence
    stated = _day(path, n, record, "stated_day")
    said = [t for t in turns if t.day == stated and mentions_any(t.text, evidence)]
    if not said:
        raise DatasetError(
            f"{path}:{n}: no message of day {stated} mentions any of {list(evidence)}; fix "
            "stated_day or the evidence"
        )
    for value in stale:
        if not any(mentions_any(t.text, (value,)) for t in turns):
            raise DatasetError(f"{path}:{n}: stale value {value!r} is never said in a message")
    if kind == "long_gap" and ask_day - stated < LONG_GAP_DAYS:
        raise DatasetError(
            f"{path}:{n}: a long_gap question needs its fact said >= {LONG_GAP_DAYS} days "
            f"before the quiz (day {ask_day}); stated_day {stated} is {ask_day - stated} days"
        )
    category = CATEGORY_OF[kind]
    return Question(
        id=f"{persona_id}:{category}:{_text(path, n, record, 'attribute')}:{index}",
        persona_id=persona_id,
        category=category,
        attribute=_text(path, n, record, "attribute"),
        text=_text(path, n, record, "q"),
        answer=_text(path, n, record, "answer"),
        accepted=accepted,
        evidence=evidence,
        stale=stale,
        stated_day=stated,
        ask_day=ask_day,
    )
