"""Tool schemas and dispatch: what the model sees and what it gets back."""

from __future__ import annotations

import json

import pytest

from remem.blocks import BlockSpec, BlockStore, CoreMemory, CoreMemoryConfig, dispatch, tool_schemas
from remem.errors import InvalidArgumentError


def test_schemas_are_openai_function_specs() -> None:
    specs = tool_schemas()
    names = [s["function"]["name"] for s in specs]
    assert names == ["core_memory_add", "core_memory_replace", "core_memory_remove"]
    for spec in specs:
        assert spec["type"] == "function"
        params = spec["function"]["parameters"]
        assert params["type"] == "object"
        assert params["additionalProperties"] is False
        assert params["properties"]["block"]["enum"] == ["user", "self"]
        assert set(params["required"]) == set(params["properties"])
        json.dumps(spec)  # serialisable as sent to the API
    assert set(specs[1]["function"]["parameters"]["properties"]) == {
        "block",
        "old_text",
        "new_text",
    }
    custom = CoreMemoryConfig((BlockSpec("persona", 500, "who you are"),))
    block_param = tool_schemas(custom)[0]["function"]["parameters"]["properties"]["block"]
    assert block_param["enum"] == ["persona"]
    assert block_param["description"] == "Which block: persona = who you are."


async def test_dispatch_add_replace_remove(store: BlockStore) -> None:
    memory = await CoreMemory.load(store, "ada")
    out = await dispatch(memory, "core_memory_add", '{"block": "user", "text": "Name is Ada"}')
    assert (
        out
        == "Added to the user block.\n<user> (who the user is) [1% — 13/2,200 chars]\n- Name is Ada"
    )
    out = await dispatch(
        memory,
        "core_memory_replace",
        {"block": "user", "old_text": "Ada", "new_text": "Name is Ada L."},
    )
    assert out.startswith("Replaced in the user block.")
    assert "- Name is Ada L." in out
    out = await dispatch(memory, "core_memory_remove", {"block": "user", "old_text": "Ada"})
    assert out.startswith("Removed from the user block.")
    assert memory.block("user").entries == ()
    assert [h.actor for h in await store.history("ada", "user")] == ["model"] * 3


async def test_dispatch_full_block_returns_contents_and_instruction(store: BlockStore) -> None:
    memory = await CoreMemory.load(store, "ada", CoreMemoryConfig.default(user_limit=40))
    await dispatch(memory, "core_memory_add", {"block": "user", "text": "Works as a nurse"})
    out = await dispatch(
        memory, "core_memory_add", {"block": "user", "text": "Started a new job at a design studio"}
    )
    assert out.startswith("Error (BlockFullError): The user block is full")
    assert "Merge or drop something, then retry" in out
    assert "- Works as a nurse" in out
    assert "[45% — 18/40 chars]" in out
    assert memory.block("user").entries == ("Works as a nurse",)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"block": "user", "text": "Name is Ada"}', "DuplicateEntryError"),
        ('{"block": "user", "old_text": "zzz"}', "EntryNotFoundError"),
        ('{"block": "user", "old_text": "a"}', "AmbiguousEditError"),
        ('{"block": "nope", "old_text": "Ada"}', "InvalidArgumentError"),
        ('{"block": "user"}', "missing ['old_text']"),
        ('{"block": "user", "old_text": "Ada", "x": 1}', "unexpected ['x']"),
        ('{"block": "user", "old_text": 3}', "old_text must be a string"),
        ("not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
async def test_dispatch_returns_mistakes_as_text(
    store: BlockStore, arguments: str, expected: str
) -> None:
    memory = await CoreMemory.load(store, "ada")
    await dispatch(memory, "core_memory_add", {"block": "user", "text": "Name is Ada"})
    await dispatch(memory, "core_memory_add", {"block": "user", "text": "Has a cat"})
    tool = "core_memory_add" if '"text"' in arguments else "core_memory_remove"
    out = await dispatch(memory, tool, arguments)
    assert out.startswith("Error (")
    assert expected in out
    assert memory.block("user").entries == ("Name is Ada", "Has a cat")


async def test_dispatch_conflict_reloads(store: BlockStore) -> None:
    memory = await CoreMemory.load(store, "ada")
    other = await CoreMemory.load(store, "ada")
    await dispatch(other, "core_memory_add", {"block": "self", "text": "We met in May"})
    out = await dispatch(memory, "core_memory_add", {"block": "self", "text": "She likes puns"})
    assert "changed by another writer" in out
    assert "- We met in May" in out
    out = await dispatch(memory, "core_memory_add", {"block": "self", "text": "She likes puns"})
    assert out.startswith("Added to the self block.")


async def test_unknown_tool_is_the_callers_bug(store: BlockStore) -> None:
    memory = await CoreMemory.load(store, "ada")
    with pytest.raises(InvalidArgumentError, match="unknown memory tool"):
        await dispatch(memory, "web_search", {})
