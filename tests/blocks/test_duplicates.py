"""Duplicate rejection as properties: exact repeats in any casing/spacing, one-char typos."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.blocks import NEAR_DUPLICATE_THRESHOLD, CoreMemoryBlock, DuplicateEntryError
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
def test_one_character_typo_in_a_long_entry_is_a_near_duplicate(
    text: str, data: st.DataObject
) -> None:
    text = text.strip()
    i = data.draw(st.integers(0, len(text)))
    typo = text[:i] + "q" + text[i:]
    assert find_duplicate(typo, [text]) is not None


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


def test_threshold_is_documented_value() -> None:
    assert NEAR_DUPLICATE_THRESHOLD == 92.0
    assert find_duplicate("Has a dog named Max", ["Has a dog named Rex"]) is None
    assert find_duplicate("Has a dog named Rexx", ["Has a dog named Rex"]) is not None
