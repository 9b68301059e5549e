"""The flat output schemas and one-pass tool results of :mod:`remem.mcp_server.structured`:
equivalent to pydantic's schemas on real results and on broken ones, with every description
kept, and what the SDK's own client receives (in-memory transport, a real MemoryService)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pydantic
import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from mcp import Client
from mcp.types import TextContent

from remem.mcp_server import build_server
from remem.mcp_server.structured import output_schema, tool_result
from remem.mcp_server.tools import OUTPUTS
from remem.service import MemoryService, RecallResult


def walk(schema: Any) -> list[dict[str, Any]]:
    """Every (sub)schema dict of ``schema``; a properties mapping is not itself a schema."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        found.append(schema)
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    found += walk(sub)
            elif isinstance(value, dict | list):
                found += walk(value)
    elif isinstance(schema, list):
        for item in schema:
            found += walk(item)
    return found


def descriptions(schema: dict[str, Any]) -> list[str]:
    return sorted(s["description"] for s in walk(schema) if "description" in s)


VIEWS: list[type[pydantic.BaseModel]] = sorted(set(OUTPUTS.values()), key=lambda v: v.__name__)


@pytest.mark.parametrize("view", VIEWS)
def test_flat_schema_keeps_every_description_and_drops_indirection(
    view: type[pydantic.BaseModel],
) -> None:
    original = view.model_json_schema()
    flat = output_schema(view)
    Draft202012Validator.check_schema(flat)
    text = json.dumps(flat)
    assert "$ref" not in text
    assert "$defs" not in text
    assert not any({"type": "null"} in s.get("anyOf", []) for s in walk(flat)), (
        "nullable fields are type lists"
    )
    assert flat["title"] == view.__name__
    assert flat["type"] == "object"
    # every description a model reads survives
    assert set(descriptions(flat)) == set(descriptions(original))
    assert flat.get("required") == original.get("required")


async def test_results_pass_and_broken_results_fail_both_schemas(tmp_path: Path) -> None:
    async with MemoryService.open(tmp_path / "m", embedding_provider="hashing") as service:
        await service.remember("Ana lives in Lisbon", namespace="default")
        await service.record_turn("s1", "I adopted a cat", "Nice")
        recall = await service.recall("where does Ana live?")
        edit = await service.core_memory_add("user", "Name: Ana")
        sessions = await service.list_sessions()
    assert recall.hits
    assert recall.hits[0].memory.session_id is None
    cases: list[tuple[type[pydantic.BaseModel], pydantic.BaseModel]] = [
        (RecallResult, recall),
        (type(edit), edit),
        (type(sessions), sessions),
    ]
    for view, value in cases:
        good = value.model_dump(mode="json")
        strict = Draft202012Validator(view.model_json_schema())
        flat = Draft202012Validator(output_schema(view))
        assert strict.is_valid(good)
        assert flat.is_valid(good)
        for broken in mutations(good):
            assert not strict.is_valid(broken), broken
            assert not flat.is_valid(broken), broken


def mutations(good: dict[str, Any]) -> list[dict[str, Any]]:
    """Results each wrong in one way: a missing field, an extra one, a wrong type, a null."""
    out: list[dict[str, Any]] = []
    for key in good:
        missing = copy.deepcopy(good)
        del missing[key]
        out.append(missing)
        wrong = copy.deepcopy(good)
        wrong[key] = 12.5 if not isinstance(good[key], float) else "x"
        out.append(wrong)
    extra = copy.deepcopy(good)
    extra["surprise"] = 1
    out.append(extra)
    if good.get("hits"):
        nested = copy.deepcopy(good)
        nested["hits"][0]["memory"]["text"] = None
        out.append(nested)
        nested_extra = copy.deepcopy(good)
        nested_extra["hits"][0]["memory"]["surprise"] = 1
        out.append(nested_extra)
    return out


class Node(pydantic.BaseModel):
    child: Node | None = None


def test_a_recursive_view_is_refused() -> None:
    with pytest.raises(ValueError, match="refers to itself"):
        output_schema(Node)


async def test_the_client_gets_the_flat_schema_and_one_compact_payload(tmp_path: Path) -> None:
    async with MemoryService.open(tmp_path / "m", embedding_provider="hashing") as service:
        await service.remember("Ana lives in Lisbon")
        async with Client(build_server(service)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for name, view in OUTPUTS.items():
                assert tools[name].output_schema == output_schema(view)
            # the SDK's client validates this against the published schema before returning
            result = await client.call_tool("recall", {"query": "where does Ana live?"})
            assert not result.is_error
            content = result.content[0]
            assert isinstance(content, TextContent)
            assert "\n" not in content.text
            assert json.loads(content.text) == result.structured_content
            assert result.structured_content is not None
            assert result.structured_content["hits"][0]["memory"]["text"] == "Ana lives in Lisbon"
            direct = tool_result(await service.recall("where does Ana live?"))
            assert direct.structured_content is not None
            assert [h["memory"] for h in direct.structured_content["hits"]] == [
                h["memory"] for h in result.structured_content["hits"]
            ]
            failed = await client.call_tool("recall", {"query": " "})
            assert failed.is_error
            assert failed.structured_content is None
