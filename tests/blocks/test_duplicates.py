"""Duplicate rejection: the same fact with the same value (normalised) only; distinct facts kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.blocks import CoreMemoryBlock, DuplicateEntryError, entry_key
from remem.blocks.entries import find_duplicate

words = st.text(
    st.sampled_from("abcdefghijklmnopqrstuvwxyzäöüéßあい日本😀"), min_size=1, max_size=8
)
sentences = st.lists(words, min_size=1, max_size=8).map(" ".join)


@given(sentences, st.sampled_from(["", ".", "!", " .", "  "]))
def test_exact_duplicate_up_to_case_space_and_trailing_punctuation(text: str, suffix: str) -> None:
    block = CoreMemoryBlock("user", 10_000, [text])
    variant = "  " + text.upper().replace(" ", "  \n") + suffix
    with pytest.raises(DuplicateEntryError) as info:
        block.add(variant)
    assert info.value.existing == text
    assert block.entries == (text,)


@settings(max_examples=200)
@given(
    st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz "), min_size=25, max_size=120).filter(
        lambda s: len(s.strip()) >= 25 and "  " not in s
    ),
    st.data(),
)
def test_a_one_character_change_in_a_word_is_a_distinct_entry(
    text: str, data: st.DataObject
) -> None:
    # A similarity score cannot tell a typo from a second value ("Ana"/"Anna"), so no edit of
    # a word's letters is ever refused as a duplicate.
    text = text.strip()
    i = data.draw(st.integers(0, len(text)))
    changed = text[:i] + "q" + text[i:]
    assert entry_key(changed) != entry_key(text)
    assert find_duplicate(changed, [text]) is None


@given(st.lists(sentences, min_size=1, max_size=10))
def test_duplicates_never_change_the_block(entries: list[str]) -> None:
    block = CoreMemoryBlock("user", 10_000)
    for text in entries:
        before = block.entries
        found = find_duplicate(text, before)
        if found is None:
            block.add(text)
            continue
        with pytest.raises(DuplicateEntryError) as info:
            block.add(text)
        assert block.entries == before
        assert info.value.existing == found[0]
    assert all(
        find_duplicate(e, [o for o in block.entries if o is not e]) is None for e in block.entries
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user has a dog named Max.", "The user has a dog named Rex."),
        ("The user has a sister named Anna.", "The user has a sister named Ana."),
        ("The user's brother is Tom.", "The user's brother is Tim."),
        ("The user's brother is Sam.", "The user's sister is Sam."),
        ("The user has a cat named Óscar.", "The user has a cat named Oscars."),
        ("Has a dog named Rex", "Has a dog named Rexx"),
        ("Lives in Lisbon", "Lives in Lisbon, Ohio"),
    ],
)
def test_distinct_facts_are_both_kept(old: str, new: str) -> None:
    block = CoreMemoryBlock("user", 10_000, [old])
    block.add(new)
    assert block.entries == (old, new)


def test_two_pets_and_two_siblings_are_four_entries() -> None:
    block = CoreMemoryBlock("user", 10_000)
    for text in (
        "The user has a dog named Rex.",
        "The user has a dog named Max.",
        "The user has a sister named Anna.",
        "The user has a sister named Ana.",
    ):
        block.add(text)
    assert len(block.entries) == 4


@pytest.mark.parametrize(
    ("old", "new", "exact"),
    [
        ("The user has a dog named Rex.", "the user has a dog named rex", True),
        ("The user has a dog named Rex.", "The user has a dog  named Rex!", True),
        ("The user has a dog named Rex.", "User has dog named Rex", False),
        ("The user has a dog named Rex.", "The user has a dog, named “Rex”.", False),
        ("My cousin is Óscar", "my cousin is oscar", False),
        ("\uff2cives in \uff2cisbon", "Lives in Lisbon", False),  # fullwidth L,
    ],
)
def test_the_same_fact_with_the_same_value_is_refused(old: str, new: str, exact: bool) -> None:
    block = CoreMemoryBlock("user", 10_000, [old])
    with pytest.raises(DuplicateEntryError) as info:
        block.add(new)
    assert info.value.existing == old
    assert block.entries == (old,)
    assert find_duplicate(new, [old]) == (old, exact)
