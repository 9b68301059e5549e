"""The hand-written persona set: the shipped files load and keep their promises, bad files fail
with the file and line, and the set runs through the harness end to end on real stores."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from remem.brains import ScriptedBrain
from remem.errors import DatasetError, InvalidArgumentError
from remem.eval.persona.baseline import RawRecallBaseline
from remem.eval.persona.handwritten import (
    CATEGORY_OF,
    HANDWRITTEN_DIR,
    LONG_GAP_DAYS,
    load_persona,
    load_set,
)
from remem.eval.persona.harness import EvalSettings, run_eval
from remem.eval.persona.history_baseline import WholeHistoryBaseline
from remem.eval.persona.llm_free import score_context
from remem.eval.persona.protocol import Variant
from remem.eval.persona.quiz import CURRENT_FACT
from remem.eval.persona.report import format_table
from remem.eval.persona.summary import summarise


def test_the_shipped_set_keeps_its_promises() -> None:
    plans, conversations, quizzes = load_set()
    assert len(plans) >= 12
    assert sum(len(q) for q in quizzes) >= 120
    assert len({p.persona_id for p in plans}) == len(plans)
    for plan, turns, quiz in zip(plans, conversations, quizzes, strict=True):
        assert 30 <= len(turns) <= 120, plan.persona_id
        assert 20 <= turns[-1].day - turns[0].day <= 300, plan.persona_id
        assert len(quiz) >= 8, plan.persona_id
        assert [t.at for t in turns] == sorted(t.at for t in turns)
        # Asked in a new session, the day after the last message, never before a fact is said.
        assert all(q.ask_day == turns[-1].day + 1 for q in quiz)
        assert all(q.stated_day is not None and q.stated_day < q.ask_day for q in quiz)
        assert all(t.session_id == f"day-{t.day:03d}" for t in turns)
    kinds = Counter(q.category for quiz in quizzes for q in quiz)
    assert set(kinds) == set(CATEGORY_OF.values())  # every kind is asked
    assert all(n >= 8 for n in kinds.values()), kinds
    long_gap = [q for quiz in quizzes for q in quiz if q.category == "long_gap"]
    assert all(q.age_days is not None and q.age_days >= LONG_GAP_DAYS for q in long_gap)
    # Updates, corrections and negations have something that must not be shown as current.
    for q in (q for quiz in quizzes for q in quiz):
        if q.category in ("update", "corrected", "negation", "other_person"):
            assert q.stale, q.id
        assert q.category in CURRENT_FACT or q.category == "previous"


def test_the_set_is_package_data() -> None:
    assert HANDWRITTEN_DIR.is_dir()
    assert HANDWRITTEN_DIR.is_relative_to(Path(__file__).resolve().parents[3] / "python")


def test_scoring_is_the_harness_scoring() -> None:
    _, _, quizzes = load_set()
    q = next(q for q in quizzes[0] if q.category == "update")
    current, old = q.evidence[0], q.stale[0]
    assert score_context(q, f"User lives in {current}.", tokens=5, latency_ms=0.0).recall
    only_old = score_context(q, f"User lives in {old}.", tokens=5, latency_ms=0.0)
    assert only_old.recall is False
    assert only_old.stale_only is True


def _write(path: Path, records: list[dict[str, Any]], *, extra: str = "") -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n" + extra, encoding="utf-8")
    return path


def _persona(messages: int = 30, days: int = 40) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [{"persona": "t1", "name": "Tess", "start": "2026-01-05"}]
    records.append({"day": 0, "at": "19:00", "text": "i live in truro and work at a bike shop"})
    records.append({"day": 1, "at": "19:00", "text": "my budgie is called kiwi lol"})
    for i in range(messages - 3):
        day = 2 + i * (days - 3) // (messages - 3)
        records.append({"day": day, "at": f"20:{i:02d}", "text": f"small talk number {i}"})
    records.append({"day": days, "at": "21:00", "text": "moved to falmouth this week!!"})
    question = {
        "q": "where do i live?",
        "kind": "update",
        "attribute": "city",
        "answer": "Falmouth",
        "evidence": ["Falmouth"],
        "stale": ["Truro"],
        "stated_day": days,
    }
    records += [question] * 7
    records.append(
        {
            "q": "what's my budgie called?",
            "kind": "long_gap",
            "attribute": "pet",
            "answer": "Kiwi",
            "evidence": ["Kiwi"],
            "stale": [],
            "stated_day": 1,
        }
    )
    return records


def test_a_valid_small_file_loads(tmp_path: Path) -> None:
    persona = load_persona(_write(tmp_path / "t1.jsonl", _persona()))
    assert persona.plan.persona_id == "t1"
    assert len(persona.turns) == 30
    assert len(persona.questions) == 8
    assert persona.questions[-1].category == "long_gap"
    assert persona.questions[0].id != persona.questions[1].id


@pytest.mark.parametrize(
    ("mutate", "line", "message"),
    [
        (lambda r: r.__setitem__(2, "{not json"), 3, "not a JSON object"),
        (lambda r: r[2].__setitem__("day", -1), 3, "day must be a day number"),
        (lambda r: r[2].__setitem__("at", "7pm"), 3, "time of day"),
        (lambda r: r[2].__setitem__("mood", "happy"), 3, r"unknown field\(s\) mood"),
        (lambda r: r[3].__setitem__("day", 0), 4, "not after the message before it"),
        (lambda r: r[-2].__setitem__("kind", "gossip"), 38, "kind 'gossip' is unknown"),
        (lambda r: r[-2].__setitem__("evidence", ["Penzance"]), 38, "mentions any of"),
        (lambda r: r[-2].__setitem__("stale", ["Exeter"]), 38, "stale value 'Exeter'"),
        (lambda r: r[-2].pop("stale"), 38, "lacks stale"),
        (lambda r: r[-1].__setitem__("stated_day", 30), 39, "no message of day 30"),
        (lambda r: r[0].__setitem__("start", "soon"), 1, "start must be a date"),
    ],
)
def test_bad_data_names_file_and_line(tmp_path: Path, mutate: Any, line: int, message: str) -> None:
    records = _persona()
    records[-2] = dict(records[-2])
    mutate(records)
    path = tmp_path / "bad.jsonl"
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(DatasetError, match=message) as info:
        load_persona(path)
    assert f"{path}:{line}:" in str(info.value)


def test_a_long_gap_question_must_be_long(tmp_path: Path) -> None:
    records = _persona(days=25)
    path = _write(tmp_path / "short.jsonl", records)
    with pytest.raises(DatasetError, match=f"long_gap question needs .*>= {LONG_GAP_DAYS}"):
        load_persona(path)


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (_persona(messages=29), "29 messages; a persona has 30-120"),
        (_persona(days=19), "span 19 days; a persona spans 20-300"),
        (_persona()[:-2], "6 questions; a persona has at least 8"),
    ],
)
def test_persona_size_is_checked(
    tmp_path: Path, records: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(DatasetError, match=message):
        load_persona(_write(tmp_path / "size.jsonl", records))


def test_questions_come_last_and_ids_are_unique(tmp_path: Path) -> None:
    records = _persona()
    records.append({"day": 90, "at": "10:00", "text": "late message"})
    with pytest.raises(DatasetError, match="a message after the questions"):
        load_persona(_write(tmp_path / "late.jsonl", records))
    other = tmp_path / "set"
    other.mkdir()
    _write(other / "a.jsonl", _persona())
    _write(other / "b.jsonl", _persona())
    with pytest.raises(DatasetError, match="persona id 't1' is also used by"):
        load_set(other)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DatasetError, match=r"no \.jsonl persona files"):
        load_set(empty)
    with pytest.raises(DatasetError, match="is not a directory"):
        load_set(tmp_path / "missing")


def test_handwritten_needs_the_weeks_horizon() -> None:
    with pytest.raises(InvalidArgumentError, match="drop --horizon"):
        EvalSettings(persona_set="handwritten", horizon="year")
    with pytest.raises(InvalidArgumentError, match="persona set 'mine' is unknown"):
        EvalSettings(persona_set="mine")


async def test_the_runner_scores_a_handwritten_set_end_to_end(tmp_path: Path) -> None:
    source = tmp_path / "set"
    source.mkdir()
    _write(source / "t1.jsonl", _persona())
    settings = EvalSettings(personas=10, resamples=200, budget=1000, persona_set="handwritten")
    variants = [
        Variant("raw-recall", lambda rt, brain: RawRecallBaseline(rt, budget=1000)),
        Variant("whole-history", lambda rt, brain: WholeHistoryBaseline(rt, brain, budget=1000)),
    ]
    run = await run_eval(
        settings,
        variants,
        out=tmp_path / "out",
        brain_factory=lambda: ScriptedBrain(default="ok"),
        set_dir=source,
    )
    assert run.rendered_by == "hand"
    assert [p.persona_id for p in run.plans] == ["t1"]
    for v in run.variants:
        assert v.turns == 30
        assert v.errors == []
        assert len(v.rows) == 8
        assert {r.question.category for r in v.rows} == {"update", "long_gap"}
    # The whole history (~200 tokens) fits: the baseline sees the move and the budgie.
    history = run.variants[1]
    assert all(r.recall for r in history.rows)
    assert not any(r.stale_only for r in history.rows)
    summary = summarise(run)
    table = format_table(run, summary)
    assert "hand-written set, 1 personas" in table
    assert "update" in table
    assert "long gap" in table
