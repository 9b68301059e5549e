"""Facts said in passing: where someone grew up, settling into a city, a condition lived
with, a pet at the vet, time together, a career's length, a dish ordered again and again — and
what those rules must not read (a gerund, a state or a number at the start of a clause is no
person's name)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remem.extraction import extract_statements
from remem.extraction.grammar.conditions import read_condition
from remem.extraction.grammar.dishes import read_dish
from remem.extraction.grammar.tokens import tokenise

AT = datetime(2026, 5, 14, 12, 0, tzinfo=UTC)

Fact = tuple[str, str, str, str]


def facts(text: str) -> set[Fact]:
    return {(s.subject, s.attribute, s.value, s.operation) for s in extract_statements(text, AT)}


SAID: list[tuple[str, set[Fact]]] = [
    ("Growing up in Hull, we never had snow days", {("user", "hometown", "Hull", "set")}),
    ("Swansea is where I grew up", {("user", "hometown", "Swansea", "set")}),
    ("Bergen was where I was born", {("user", "hometown", "Bergen", "set")}),
    ("Cusco's where we were kids", {("user", "hometown", "Cusco", "set")}),
    ("I'm a Glasgow girl through and through", {("user", "hometown", "Glasgow", "set")}),
    ("our first full month in Lisbon and I love it", {("user", "city", "Lisbon", "set")}),
    ("I live with asthma, so winter runs are rough", {("user", "health", "asthma", "set")}),
    ("Dealing with a bad knee means slow mornings", {("user", "health", "a bad knee", "set")}),
    ("I've got a dodgy back", {("user", "health", "a dodgy back", "set")}),
    ("struggling with insomnia since the move", {("user", "health", "insomnia", "set")}),
    ("I react badly to penicillin", {("user", "allergy", "penicillin", "set")}),
    ("took Rolo to the vet this morning", {("user", "pet", "Rolo", "set")}),
    ("We got a kitten on Sunday! Named her Mochi", {("user", "pet", "Mochi", "set")}),
    (
        "We had to say goodbye to Bramble. The best old dog",
        {("user", "pet", "Bramble", "end")},
    ),
    ("Jo and I celebrated two years together", {("user", "partner", "Jo", "set")}),
    ("Sam and I have been together since 2019", {("user", "partner", "Sam", "set")}),
    ("I've been seeing someone new: Alex", {("user", "partner", "Alex", "set")}),
    ("Second date with Marco last night", {("user", "partner", "Marco", "set")}),
    ("me and Dev called it quits, it's for the best", {("user", "partner", "Dev", "end")}),
    (
        "Twelve years as a teacher and I still get nervous",
        {("user", "job_title", "teacher", "set")},
    ),
    ("first day working as a pharmacist", {("user", "job_title", "pharmacist", "set")}),
    (
        "being a solicitor means reading everything twice",
        {("user", "job_title", "solicitor", "set")},
    ),
    ("I'm done being a barista", {("user", "job_title", "barista", "end")}),
    ("Had pho again, second time this week lol", {("user", "preference", "pho", "set")}),
    ("Pottery is my happy place", {("user", "hobby", "Pottery", "set")}),
    ("spent all Sunday on pottery, bliss", {("user", "hobby", "pottery", "set")}),
    ("aching from football, never again", {("user", "hobby", "football", "set")}),
]


@pytest.mark.parametrize(("text", "expected"), SAID, ids=[t for t, _ in SAID])
def test_a_fact_said_in_passing_is_keyed(text: str, expected: set[Fact]) -> None:
    assert facts(text) == expected


NOT_SAID = [
    "Sore throat from the match",  # a state, not a person called Sore
    "my legs are sore from the walk",
    "Tired from work, off to bed",
    "I'm a big kid really",
    "first week in Rome was a blur of pasta",  # a visit: no "proper", "full" or "real"
    "first night in Oslo, the hotel is tiny",
    "growing up in a small town was boring",
    "my kids are growing up in Leeds",
    "dealing with the landlord again, ugh",
    "my dad has a bad hip",
    "took Sam to the airport at 5am",
    "had to say goodbye to Kit at the station, miss him already",  # no animal: not a pet
    "we called it quits on the kitchen project",
    "I called it a day at work early",
    "I can't imagine being a nurse, honestly",
    "my mum spent 30 years as a nurse",
    "ordered a taxi again tonight, third time this week",
    "had lunch at my desk again, third time this week",
    "spent the whole day on paperwork",  # a day given to it, but no word of joy
    "Spent Saturday on my taxes, no fun at all",
]


@pytest.mark.parametrize("text", NOT_SAID)
def test_what_the_new_rules_must_not_read(text: str) -> None:
    assert facts(text) == set()


def test_a_career_change_in_one_message_ends_the_old_title_and_sets_the_new() -> None:
    said = facts("It's official, I'm done being a nurse: new role as an architect from Monday")
    assert said == {
        ("user", "job_title", "nurse", "end"),
        ("user", "job_title", "architect", "set"),
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("asthma is", (1, "asthma")),
        ("a bad knee means", (3, "a bad knee")),
        ("my dodgy back", (3, "a dodgy back")),
        ("bad knees", (2, "bad knees")),
        ("a slipped disc", (3, "a slipped disc")),
        ("the landlord", None),
        ("a bad day", None),
        ("", None),
    ],
)
def test_the_condition_reader_reads_only_its_vocabulary(
    text: str, expected: tuple[int, str] | None
) -> None:
    assert read_condition(tokenise(text), 0) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pho again", (1, "pho")),
        ("jollof rice again", (2, "jollof rice")),
        ("a taxi again", None),
        ("the bus", None),
        ("lunch again", None),
        ("", None),
    ],
)
def test_a_dish_is_a_bare_phrase(text: str, expected: tuple[int, str] | None) -> None:
    assert read_dish(tokenise(text), 0) == expected
