"""RuleExtractor: a table of first-person statements (positives, paraphrases, negatives)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from remem.controller.extraction import ExtractionContext
from remem.extraction import (
    ATTRIBUTES,
    MULTI_VALUED,
    SINGLE_VALUED,
    RuleExtractor,
    extract_statements,
)
from remem.extraction.dates import resolve_time_phrase
from remem.extraction.rules import FOLLOW_UP
from remem.models import TranscriptEntry
from tests.extraction.cases import ASSISTANT_ONLY, NEGATIVE, POSITIVE

AT = datetime(2026, 5, 14, 12, 0, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str]]:
    """The user's facts in ``text`` (facts about other people are kept apart)."""
    return {(s.attribute, s.value) for s in extract_statements(text, AT) if s.subject == "user"}


def entry(
    n: int, user: str, assistant: str = "ok", at: datetime = AT, session: str = "s"
) -> TranscriptEntry:
    return TranscriptEntry(
        id=f"t{n}",
        session_id=session,
        turn_number=n,
        user_message=user,
        assistant_message=assistant,
        created_at=at,
    )


def test_the_tables_are_big_enough() -> None:
    assert len(POSITIVE) >= 40
    assert len(NEGATIVE) >= 20


@pytest.mark.parametrize(("text", "expected"), POSITIVE, ids=[t for t, _ in POSITIVE])
def test_positive_statements(text: str, expected: set[tuple[str, str]]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize("text", NEGATIVE)
def test_negatives_questions_hypotheticals_and_others_give_nothing(text: str) -> None:
    assert facts(text) == set()


def test_fact_sentences_keep_the_article_of_a_common_noun_organisation() -> None:
    [studio] = extract_statements("I started a new job at a design studio.", AT)
    assert (studio.value, studio.text) == ("design studio", "The user works at a design studio.")
    [named] = extract_statements("I work at Initech", AT)
    assert named.text == "The user works at Initech."


def test_vocabulary_partition() -> None:
    assert set(ATTRIBUTES) == SINGLE_VALUED | MULTI_VALUED
    assert not SINGLE_VALUED & MULTI_VALUED
    assert {"city", "employer", "partner", "diet", "hometown"} <= SINGLE_VALUED
    assert {"hobby", "pet", "sibling", "child", "allergy", "preference"} <= MULTI_VALUED


def test_every_attribute_is_in_the_vocabulary() -> None:
    found = {s.attribute for text, _ in POSITIVE for s in extract_statements(text, AT)}
    assert found <= set(ATTRIBUTES)


def test_relative_dates_resolve_against_the_turn() -> None:
    (moved,) = extract_statements("I moved to Lisbon last month", AT)
    assert moved.valid_from == datetime(2026, 4, 14, tzinfo=UTC)
    (state,) = extract_statements("I live in Lisbon", AT)
    assert state.valid_from is None  # a state has no known start
    (event,) = extract_statements("I moved to Lisbon", AT)
    assert event.valid_from == AT  # a change without a date happened by the time it was said
    (since,) = extract_statements("I've been working for Siemens since 2019", AT)
    assert since.valid_from == datetime(2019, 1, 1, tzinfo=UTC)


async def test_result_has_keyed_facts_entities_and_exclusive_edges() -> None:
    result = await RuleExtractor().extract(
        [entry(1, "I moved to Lisbon. My sister is called Ana and I love hiking")],
        context=ExtractionContext("s", AT),
    )
    by_attr = {m.attribute: m for m in result.memories}
    assert by_attr["city"].subject == "user"
    assert by_attr["city"].value == "Lisbon"
    assert by_attr["city"].text == "The user lives in Lisbon."
    assert by_attr["city"].entities == ("user", "Lisbon")
    assert {(e.name, e.entity_type) for e in result.entities} == {
        ("user", "person"),
        ("Lisbon", "place"),
        ("Ana", "person"),
    }
    edges = {(r.source, r.relation_type, r.target, r.exclusive) for r in result.relationships}
    assert edges == {("user", "lives_in", "Lisbon", True), ("user", "sibling", "Ana", False)}
    assert by_attr["hobby"].value == "hiking"


async def test_only_the_user_message_is_mined() -> None:
    result = await RuleExtractor().extract(
        [entry(1, "hello", ASSISTANT_ONLY)], context=ExtractionContext("s", AT)
    )
    assert result.memories == ()
    assert result.relationships == ()


async def test_a_later_single_value_in_the_batch_wins_and_multi_values_add_up() -> None:
    result = await RuleExtractor().extract(
        [
            entry(1, "I live in Porto and I have a dog named Rex"),
            entry(2, "I moved to Lisbon. I have a cat named Tom"),
            entry(3, "I have a dog named Rex"),
        ],
        context=ExtractionContext("s", AT),
    )
    values = sorted((m.attribute, m.value) for m in result.memories)
    assert values == [("city", "Lisbon"), ("pet", "Rex"), ("pet", "Tom")]


async def test_a_thought_split_over_two_messages_is_read_together_only_when_they_follow() -> None:
    """The message just before (same session, at most ``FOLLOW_UP`` earlier) completes a
    row's ``needs``: "My parrot is being a menace today." / "Pip chewed the remote"."""
    parrot, pip = "My parrot is being a menace today.", "Pip chewed the remote, I swear."

    async def pets(*entries: TranscriptEntry) -> list[str]:
        result = await RuleExtractor().extract(list(entries), context=ExtractionContext("s", AT))
        return [str(m.value) for m in result.memories if m.attribute == "pet"]

    soon, late = AT + timedelta(minutes=3), AT + FOLLOW_UP + timedelta(minutes=1)
    assert await pets(entry(1, parrot), entry(2, pip, at=soon)) == ["Pip"]
    assert await pets(entry(1, parrot), entry(2, pip, at=late)) == []
    assert await pets(entry(1, pip)) == []
    assert await pets(entry(1, pip), entry(2, parrot, at=soon)) == []  # the order counts
    extractor = RuleExtractor()  # and the session: another session's message is no context
    await extractor.extract([entry(1, parrot, session="a")], context=ExtractionContext("a", AT))
    result = await extractor.extract(
        [entry(2, pip, at=soon, session="b")], context=ExtractionContext("b", AT)
    )
    assert result.memories == ()
    # across two batches of one session it still follows
    extractor = RuleExtractor()
    await extractor.extract([entry(1, parrot)], context=ExtractionContext("s", AT))
    result = await extractor.extract([entry(2, pip, at=soon)], context=ExtractionContext("s", AT))
    assert [m.value for m in result.memories] == ["Pip"]


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("last month", datetime(2026, 2, 28, tzinfo=UTC)),  # 31 March - 1 month, clamped
        ("in June", datetime(2025, 6, 1, tzinfo=UTC)),  # the last June not after the turn
        ("since March", datetime(2026, 3, 1, tzinfo=UTC)),
        ("a couple of weeks ago", datetime(2026, 3, 17, tzinfo=UTC)),
        ("for three years", datetime(2023, 3, 31, tzinfo=UTC)),
        ("yesterday", datetime(2026, 3, 30, tzinfo=UTC)),
        ("some day", None),
    ],
)
def test_time_phrases(phrase: str, expected: datetime | None) -> None:
    at = datetime(2026, 3, 31, 18, 0, tzinfo=UTC)
    assert resolve_time_phrase(f"I moved here {phrase}", at) == expected
