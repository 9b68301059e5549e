"""CoreMemoryBlock: cap enforcement, entry-granular edits, ambiguity, batches, over-limit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remem.blocks import (
    AmbiguousEditError,
    BlockEdit,
    BlockFullError,
    CoreMemoryBlock,
    DuplicateEntryError,
    EntryNotFoundError,
    measure,
)
from remem.errors import BlockError, ConfigError, InvalidArgumentError


def full_to(limit: int, entries: list[str]) -> CoreMemoryBlock:
    return CoreMemoryBlock("user", limit, entries)


def test_exactly_at_cap_passes_one_over_fails_and_block_unchanged() -> None:
    block = CoreMemoryBlock("user", 100, ["Name is Ada"])  # 13 chars
    room = 100 - block.size - 3  # "\n- " before the new entry
    exact = "x" * room
    probe = block.copy()
    probe.add(exact)
    assert probe.size == 100
    before = block.entries
    with pytest.raises(BlockFullError) as info:
        block.add("y" * (room + 1))
    assert block.entries == before
    err = info.value
    assert (err.used, err.limit, err.attempted) == (13, 100, 101)
    assert err.entries == before
    assert err.label == "user"
    message = str(err)
    assert "Merge or drop something, then retry" in message
    assert "- Name is Ada" in message  # the full block comes back to the model
    assert "[13% — 13/100 chars]" in message


def test_full_error_carries_every_entry() -> None:
    entries = [f"fact number {i} about the user" for i in range(20)]
    block = CoreMemoryBlock("user", measure(entries), entries)
    with pytest.raises(BlockFullError) as info:
        block.add("Started a new job at a design studio")
    for entry in entries:
        assert f"- {entry}" in str(info.value)
    assert info.value.entries == tuple(entries)


def test_replace_that_grows_past_cap_fails() -> None:
    block = CoreMemoryBlock("user", 20, ["Likes tea"])
    with pytest.raises(BlockFullError):
        block.replace("tea", "Likes tea with lots of milk")
    assert block.entries == ("Likes tea",)
    block.replace("tea", "Likes green tea")
    assert block.entries == ("Likes green tea",)


def test_remove_and_replace_by_substring() -> None:
    block = CoreMemoryBlock("user", 500, ["Name is Ada", "Lives in Berlin", "Has a cat"])
    change = block.replace("Berlin", "Lives in Lisbon since 2026")
    assert change.before == "Lives in Berlin"
    assert change.after == "Lives in Lisbon since 2026"
    assert block.entries[1] == "Lives in Lisbon since 2026"
    change = block.remove("cat")
    assert (change.op, change.before, change.after) == ("remove", "Has a cat", None)
    assert change.size_after == block.size
    assert block.entries == ("Name is Ada", "Lives in Lisbon since 2026")


@pytest.mark.parametrize("op", ["replace", "remove"])
def test_ambiguous_substring_lists_candidates(op: str) -> None:
    block = CoreMemoryBlock("user", 500, ["Likes green tea", "Likes jazz", "Drinks tea daily"])
    edit = BlockEdit.replace("tea", "x y z") if op == "replace" else BlockEdit.remove("tea")
    with pytest.raises(AmbiguousEditError) as info:
        block.apply([edit])
    assert info.value.candidates == ("Likes green tea", "Drinks tea daily")
    assert "- Likes green tea" in str(info.value)
    assert "- Drinks tea daily" in str(info.value)
    assert "Likes jazz" not in str(info.value)
    assert block.entries == ("Likes green tea", "Likes jazz", "Drinks tea daily")


def test_exact_entry_wins_over_entries_containing_it() -> None:
    block = CoreMemoryBlock("user", 500, ["Likes tea", "Likes tea with milk"])
    block.remove("Likes tea")
    assert block.entries == ("Likes tea with milk",)


@pytest.mark.parametrize("op", ["replace", "remove"])
def test_missing_substring_is_not_found(op: str) -> None:
    block = CoreMemoryBlock("user", 500, ["Name is Ada"])
    edit = BlockEdit.replace("Bob", "x") if op == "replace" else BlockEdit.remove("Bob")
    with pytest.raises(EntryNotFoundError, match="Name is Ada"):
        block.apply([edit])
    assert block.entries == ("Name is Ada",)


def test_substring_match_is_case_sensitive() -> None:
    block = CoreMemoryBlock("user", 500, ["Name is Ada"])
    with pytest.raises(EntryNotFoundError):
        block.remove("name is ada")


def test_repeats_of_the_same_fact_are_rejected_naming_the_entry() -> None:
    block = CoreMemoryBlock("user", 500, ["Likes hiking in the Alps"])
    for text in [
        "Likes hiking in the Alps",
        "likes  hiking in the alps.",
        "Likes hiking in Alps!",
    ]:
        with pytest.raises(DuplicateEntryError, match="Likes hiking in the Alps") as info:
            block.add(text)
        assert info.value.existing == "Likes hiking in the Alps"
    assert block.entries == ("Likes hiking in the Alps",)


def test_short_facts_differing_in_a_word_are_distinct() -> None:
    block = CoreMemoryBlock("user", 500, ["Has a dog named Rex"])
    block.add("Has a dog named Max")
    assert len(block.entries) == 2


def test_replace_may_rewrite_its_own_entry_but_not_duplicate_another() -> None:
    block = CoreMemoryBlock("user", 500, ["Has a dog named Rex", "Lives in Lisbon"])
    block.replace("Rex", "Has a dog named Rex.")  # near-identical to itself: allowed
    with pytest.raises(DuplicateEntryError, match="Lives in Lisbon"):
        block.replace("Rex", "lives in lisbon")


def test_batch_is_checked_against_final_size() -> None:
    block = CoreMemoryBlock("user", 40, ["Works as a nurse at the city hospital"])  # 39
    # Alone the add would overflow; with the remove first, the final size fits.
    block.apply([BlockEdit.add("Works as a designer"), BlockEdit.remove("nurse")])
    assert block.entries == ("Works as a designer",)


def test_batch_is_all_or_nothing() -> None:
    block = CoreMemoryBlock("user", 500, ["Name is Ada", "Likes tea"])
    before = block.entries
    for bad in (
        [BlockEdit.add("Plays chess"), BlockEdit.remove("nothing like this")],
        [BlockEdit.add("Plays chess"), BlockEdit.add("plays chess")],
        [BlockEdit.remove("Ada"), BlockEdit.add("x" * 600)],
        [BlockEdit.add("Plays chess"), BlockEdit.add("")],
    ):
        with pytest.raises((BlockError, InvalidArgumentError)):
            block.apply(bad)
        assert block.entries == before


def test_changes_record_sizes_in_sequence() -> None:
    block = CoreMemoryBlock("user", 500)
    changes = block.apply([BlockEdit.add("A fact"), BlockEdit.add("Another fact")])
    assert [(c.size_before, c.size_after) for c in changes] == [(0, 8), (8, 23)]
    assert changes[-1].size_after == block.size


def test_over_limit_after_lowering_renders_flagged_and_only_shrinks() -> None:
    entries = ["Name is Ada Lovelace", "Lives in Lisbon", "Works as a designer"]
    block = CoreMemoryBlock("user", 2200, entries).with_limit(30)
    assert block.over_limit
    text = block.render()
    assert (
        f"[{round(100 * block.size / 30)}% — {block.size}/30 chars — OVER LIMIT: consolidate]"
        in text
    )
    for entry in entries:
        assert f"- {entry}" in text
    with pytest.raises(BlockFullError):
        block.add("Has a cat")
    block.replace("Lovelace", "Name is Ada")  # shrinks, still over: allowed
    assert block.over_limit
    with pytest.raises(BlockFullError):
        block.replace("Ada", "Name is Ada Lovelace!!")  # grows: refused
    block.remove("Lisbon")
    block.remove("designer")
    assert not block.over_limit


def test_unicode_entries_count_code_points() -> None:
    block = CoreMemoryBlock("user", 500)
    for text in ["名前はエイダ", "שמה עדה", "Loves 🎸 and 🧗‍♀️", "Ça va très bien"]:
        block.add(text)
    assert block.size == len(block.render().split("\n", 1)[1])
    block.remove("שמה")
    assert "שמה עדה" not in block.entries


def test_whitespace_is_collapsed_and_bad_text_refused() -> None:
    block = CoreMemoryBlock("user", 500)
    block.add("  Lives in\nLisbon\t now ")
    assert block.entries == ("Lives in Lisbon now",)
    for bad in ["", "   \n", "nul\x00byte", "lone \ud800 surrogate"]:
        with pytest.raises(InvalidArgumentError):
            block.add(bad)
    assert block.entries == ("Lives in Lisbon now",)


@pytest.mark.parametrize("limit", [0, -1, 1.5, True])
def test_bad_limit_is_a_config_error(limit: object) -> None:
    with pytest.raises(ConfigError):
        CoreMemoryBlock("user", limit)  # type: ignore[arg-type]


@pytest.mark.parametrize("label", ["", "User", "has space", "x" * 65])
def test_bad_label_is_a_config_error(label: str) -> None:
    with pytest.raises(ConfigError):
        CoreMemoryBlock(label, 100)


def test_empty_batch_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        CoreMemoryBlock("user", 10).apply([])


@given(
    st.lists(st.integers(1, 40), max_size=8),
    st.integers(0, 60),
)
def test_cap_boundary_property(lengths: list[int], slack: int) -> None:
    entries = [f"{i}:" + chr(0x4E00 + i) * n for i, n in enumerate(lengths)]  # distinct
    size = measure(entries)
    new_cost = 2 + (1 if entries else 0)
    text = "新" + "z" * slack  # never a near duplicate of the CJK entries
    limit = size + new_cost + len(text)
    exact = CoreMemoryBlock("user", limit, entries)
    exact.add(text)
    assert exact.size == limit
    tight = CoreMemoryBlock("user", limit - 1, entries)
    with pytest.raises(BlockFullError) as info:
        tight.add(text)
    assert info.value.attempted == limit
    assert tight.entries == tuple(entries)
