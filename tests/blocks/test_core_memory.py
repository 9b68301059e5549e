"""CoreMemory over every real store: defaults, persistence, over-limit after lowering a limit."""

from __future__ import annotations

import pytest

from remem.blocks import (
    DEFAULT_SELF_LIMIT,
    DEFAULT_USER_LIMIT,
    BlockConflictError,
    BlockEdit,
    BlockFullError,
    BlockSpec,
    BlockStore,
    CoreMemory,
    CoreMemoryConfig,
)
from remem.errors import ConfigError, InvalidArgumentError
from tests.blocks.conftest import StoreFactory


async def test_defaults_are_user_and_self(store: BlockStore) -> None:
    memory = await CoreMemory.load(store, "ada")
    assert memory.labels == ("user", "self")
    assert memory.block("user").limit_chars == DEFAULT_USER_LIMIT == 2200
    assert memory.block("self").limit_chars == DEFAULT_SELF_LIMIT == 1375
    assert memory.render() == (
        "<user> (who the user is) [0% — 0/2,200 chars]\n(empty)\n\n"
        "<self> (the relationship between you and the user) [0% — 0/1,375 chars]\n(empty)"
    )


async def test_edits_persist_with_history(make_store: StoreFactory) -> None:
    async with make_store() as store:
        memory = await CoreMemory.load(store, "ada")
        await memory.apply("user", [BlockEdit.add("Name is Ada"), BlockEdit.add("Lives in Lisbon")])
        await memory.apply("user", [BlockEdit.replace("Lisbon", "Lives in Porto")], actor="user")
        await memory.apply("self", [BlockEdit.add("We joke about her cat")])
        rendered = memory.render()
    async with make_store() as store:
        again = await CoreMemory.load(store, "ada")
        assert again.render() == rendered
        assert again.block("user").entries == ("Name is Ada", "Lives in Porto")
        history = await store.history("ada", "user")
        assert [(h.revision, h.op, h.actor) for h in history] == [
            (1, "add", "model"),
            (1, "add", "model"),
            (2, "replace", "user"),
        ]
        assert history[-1].size_after == again.block("user").size


async def test_refused_edit_changes_neither_memory_nor_store(store: BlockStore) -> None:
    config = CoreMemoryConfig.default(user_limit=30)
    memory = await CoreMemory.load(store, "ada", config)
    await memory.apply("user", [BlockEdit.add("Name is Ada")])
    before = (memory.render(), await store.load("ada", "user"), await store.history("ada", "user"))
    with pytest.raises(BlockFullError):
        await memory.apply("user", [BlockEdit.add("Started a new job at a design studio")])
    after = (memory.render(), await store.load("ada", "user"), await store.history("ada", "user"))
    assert after == before


async def test_lowered_limit_renders_flagged_and_consolidation_works(store: BlockStore) -> None:
    memory = await CoreMemory.load(store, "ada")
    facts = [
        "Fact 0: grew up in Porto with two older brothers",
        "Fact 1: works night shifts as an ICU nurse",
        "Fact 2: is learning Japanese for a trip next spring",
        "Fact 3: her cat Miso is afraid of the vacuum cleaner",
        "Fact 4: runs a half marathon every October",
        "Fact 5: allergic to peanuts, carries an EpiPen",
        "Fact 6: prefers voice notes over long texts",
        "Fact 7: mother lives in Coimbra, calls on Sundays",
        "Fact 8: reads science fiction, favourite is Le Guin",
        "Fact 9: wants to adopt a second cat this winter",
    ]
    await memory.apply("user", [BlockEdit.add(f) for f in facts])
    size = memory.block("user").size
    lowered = await CoreMemory.load(store, "ada", CoreMemoryConfig.default(user_limit=size // 2))
    text = lowered.render()
    assert "OVER LIMIT: consolidate" in text
    assert f"{size:,}/{size // 2:,} chars" in text
    for f in facts:
        assert f"- {f}" in text
    with pytest.raises(BlockFullError):
        await lowered.apply("user", [BlockEdit.add("One more fact about Ada")])
    await lowered.apply("user", [BlockEdit.remove(f"Fact {i}:") for i in range(6)])
    assert not lowered.block("user").over_limit
    assert "OVER LIMIT" not in lowered.render()


async def test_stale_memory_conflicts_then_reloads(store: BlockStore) -> None:
    first = await CoreMemory.load(store, "ada")
    second = await CoreMemory.load(store, "ada")
    await first.apply("user", [BlockEdit.add("Name is Ada")])
    with pytest.raises(BlockConflictError):
        await second.apply("user", [BlockEdit.add("Likes tea")])
    assert second.block("user").entries == ()
    await second.reload()
    await second.apply("user", [BlockEdit.add("Likes tea")])
    assert second.block("user").entries == ("Name is Ada", "Likes tea")


async def test_unknown_block_and_bad_config(store: BlockStore) -> None:
    memory = await CoreMemory.load(store, "ada")
    with pytest.raises(InvalidArgumentError, match="user, self"):
        await memory.apply("other", [BlockEdit.add("x")])
    with pytest.raises(ConfigError):
        CoreMemoryConfig(())
    with pytest.raises(ConfigError):
        CoreMemoryConfig((BlockSpec("user", 10, ""), BlockSpec("user", 20, "")))
    with pytest.raises(ConfigError):
        CoreMemoryConfig.default(self_limit=0)


async def test_custom_blocks(store: BlockStore) -> None:
    config = CoreMemoryConfig((BlockSpec("persona", 500, "who you are"),))
    memory = await CoreMemory.load(store, "ada", config)
    await memory.apply("persona", [BlockEdit.add("A calm, curious companion")])
    assert await store.labels("ada") == ["persona"]
