"""The keyed-fact key rule has one home (remem.models.keyed_facts) that every consumer uses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from remem.consolidation.contradictions import fact_key as stored_key
from remem.controller.extraction import ExtractedMemory
from remem.controller.extraction_apply import fact_key as extracted_key
from remem.controller.stages.conflicts import ConflictConfig, Keyed, resolve_conflicts
from remem.models.keyed_facts import normalize_key_part
from tests.stores.factories import record

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_rule_strips_surrounding_space_and_lower_cases() -> None:
    assert normalize_key_part("  User \t") == "user"
    assert normalize_key_part("Home City") == "home city"  # inner space kept
    assert normalize_key_part("ÉCOLE") == "école"
    assert normalize_key_part(42) == "42"  # a non-string metadata value compares as its text


def test_extraction_and_consolidation_agree_on_a_key() -> None:
    written = extracted_key(ExtractedMemory(text="x", subject=" User ", attribute="CITY  "))
    assert (written["subject"], written["attribute"]) == ("user", "city")
    # A record written by hand with another spelling of the key groups with the extracted one.
    by_hand = record(1, metadata={"subject": "USER", "attribute": " City", "value": "Porto"})
    extracted = record(2, metadata={**written, "value": "Lisbon"})
    assert stored_key(by_hand) == stored_key(extracted) == (by_hand.namespace, "user", "city")


def test_recall_conflicts_compare_keys_by_the_same_rule() -> None:
    old = Keyed("a", 1.0, T0, {"subject": "User", "attribute": " CITY", "value": "Lisbon"})
    new = Keyed(
        "b", 0.5, T0 + timedelta(days=1), {"subject": "user", "attribute": "city", "value": "Porto"}
    )
    factors = resolve_conflicts([old, new], ConflictConfig())
    # One key, two values: the newer value is lifted to the best score, the older one capped.
    assert factors == {"b": 2.0, "a": 0.5}
