"""Questions that presuppose the speaker's job ("… or is it just me?"), read by
:mod:`remem.extraction.grammar.rhetorical` and returned by :func:`extract_statements`, and the
implied facts of the session-15 table rows: workmates at a place, EpiPens, options for a diet,
the family calling from home."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remem.extraction import extract_statements
from remem.extraction.grammar.rhetorical import presupposed

AT = datetime(2026, 5, 14, 12, 0, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str, str, str]]:
    return {(s.subject, s.attribute, s.value, s.operation) for s in extract_statements(text, AT)}


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("Do other data analysts dream in spreadsheets, or is it just me?", "data analyst"),
        ("is it just me or do all baristas hate oat milk foam", "barista"),
        ("Are most dentists this tired on a Friday or only me?", "dentist"),
        ("do all copy editors spot typos on menus or is that just me?", "copy editor"),
        ("Do fellow nurses get asked about rashes at parties or just me?", "nurse"),
    ],
)
def test_a_just_me_question_about_a_group_of_a_job_gives_the_speakers_job(
    text: str, job: str
) -> None:
    [statement] = presupposed(text, AT, "t1")
    assert (statement.attribute, statement.value, statement.kind) == ("job_title", job, "job")
    assert statement.turn_id == "t1"
    assert statement.text.startswith("The user works as a")
    assert statement.confidence < 0.9  # implied, not said


def test_secretary_is_only_a_job_once_the_lexicon_says_so() -> None:
    # "secretaries" singularises to "secretary", which is no job head: nothing is made up
    assert presupposed("Do all secretaries get ignored in meetings or just me?", AT) == []


@pytest.mark.parametrize(
    "text",
    [
        "Do all nurses work this many weekends?",  # no "just me": a question about nurses
        "is it just me or is it cold in here?",  # no group of a job
        "Do other people's dogs do this or is it just me?",
        "Do all of my friends hate me or just me?",
        "I asked whether all nurses get this tired or just me",  # no group right after
        "",
    ],
)
def test_other_questions_and_statements_give_no_job(text: str) -> None:
    assert presupposed(text, AT) == []


def test_extract_statements_adds_the_presupposed_job_once() -> None:
    assert facts("Work question. Do all urban planners have this much paperwork or just me?") == {
        ("user", "job_title", "urban planner", "set")
    }


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Everyone at Brightline is dreading the quarterly review.", ("employer", "Brightline")),
        ("my coworkers at Kestrel Labs are great", ("employer", "Kestrel Labs")),
        ("Carrying my EpiPen everywhere because of bee stings.", ("allergy", "bee stings")),
        ("we always pack antihistamines for cats", ("allergy", "cats")),
        ("finding gluten-free options at work is a nightmare", ("diet", "gluten-free")),
        ("Dad phoned from Cork, raining back home as usual", ("hometown", "Cork")),
        ("first day as a line cook went fine", ("job_title", "line cook")),
    ],
)
def test_implied_facts_are_keyed(text: str, fact: tuple[str, str]) -> None:
    assert facts(text) == {("user", *fact, "set")}


@pytest.mark.parametrize(
    "text",
    [
        "everyone at Tesco was lovely today",  # no work talk: a shop
        "my brother's colleagues at Aviva are nice",  # someone else's workplace
        "Mum called from Rome, she's having a great trip",  # not home
        "my daughter carries an EpiPen for peanuts",  # someone else's allergy
    ],
)
def test_implied_fact_rows_leave_lookalikes_alone(text: str) -> None:
    assert facts(text) == set()
