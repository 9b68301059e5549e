"""What one MCP ``recall`` result costs to encode and to check, by its shape (issue #20).

Run: ``python -m benches.mcp_result_cost DIR`` — builds ``bench_serve``'s 10k-memory world in
``DIR/memory`` once (shared with ``benches.mcp_spans``), captures 100 ``recall`` responses as
``remem mcp`` wrote them (the SDK's ``Client`` over stdio), then times per result (process time,
best of 7, ms):

* the server's encoding with the JSON text block and with a short text instead (the SDK's
  result dump and message encoding included);
* the client's parse of the response line, with either text;
* the client's output-schema check as the SDK runs it (a compiled jsonschema validator,
  ``best_match(iter_errors(...))``) against the published schema; the same schema declaring
  draft-07 or draft-04; results without the fields left at an empty default (``valid_from``
  null, ``metadata`` {}); and hits flattened (the memory's fields beside score, sources and
  explanation, without its namespace) against the schema rewritten to match.

Only the published shape is served; the others are measured to say what they would save.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types
import pydantic_core
from jsonschema import exceptions as jsonschema_exceptions  # type: ignore[import-untyped]
from jsonschema.validators import validator_for  # type: ignore[import-untyped]
from mcp.types import CallToolResult, TextContent
from referencing import Registry

Json = dict[str, Any]


async def capture(memory: Path, calls: int) -> tuple[list[str], Json]:
    """``calls`` recall response lines as the server wrote them, and the tool's output schema."""
    import mcp.client.stdio as client_stdio
    from mcp import Client

    from benches.bench_serve import mcp_params, queries

    lines: list[str] = []
    parse_line = client_stdio._parse_line

    def kept(line: str) -> Any:
        lines.append(line)
        return parse_line(line)

    client_stdio._parse_line = kept
    async with Client(mcp_params(memory)) as client:
        listed = await client.list_tools()
        (schema,) = [t.output_schema for t in listed.tools if t.name == "recall"]
        del lines[:]
        for q in queries(calls):
            await client.call_tool("recall", {"query": q})
    client_stdio._parse_line = parse_line
    assert schema is not None
    return lines, schema


def per_result(fn: Callable[[], object], n: int) -> float:
    best = min(_timed(fn) for _ in range(7))
    return best / n * 1e3


def _timed(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def checker(schema: Json) -> Callable[[list[Json]], None]:
    validator = validator_for(schema)(schema, registry=Registry())

    def check(instances: list[Json]) -> None:
        for instance in instances:
            assert jsonschema_exceptions.best_match(validator.iter_errors(instance)) is None

    return check


def without_empty_defaults(result: Json) -> Json:
    out = copy.deepcopy(result)
    for hit in out["hits"]:
        memory = hit["memory"]
        for key in ("valid_from", "metadata"):
            if key in memory and not memory[key]:
                del memory[key]
    return out


def flattened(result: Json) -> Json:
    hits = []
    for hit in without_empty_defaults(result)["hits"]:
        memory = {k: v for k, v in hit["memory"].items() if k != "namespace"}
        hits.append({**memory, **{k: v for k, v in hit.items() if k != "memory"}})
    return {**{k: v for k, v in result.items() if k != "hits"}, "hits": hits}


def flattened_schema(schema: Json) -> Json:
    out = copy.deepcopy(schema)
    hit = out["properties"]["hits"]["items"]
    memory = hit["properties"].pop("memory")
    fields = {k: v for k, v in memory["properties"].items() if k != "namespace"}
    hit["properties"] = {**fields, **hit["properties"]}
    required = [r for r in memory["required"] if r != "namespace"]
    hit["required"] = required + [r for r in hit["required"] if r != "memory"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("directory", type=Path)
    args = parser.parse_args()
    from benches.bench_serve import build

    memory = args.directory / "memory"
    if not memory.exists():
        asyncio.run(build(memory))
    lines, schema = asyncio.run(capture(memory, 100))
    results: list[Json] = [json.loads(line)["result"]["structuredContent"] for line in lines]
    n = len(results)
    short_lines = []
    for line in lines:
        message = json.loads(line)
        message["result"]["content"][0]["text"] = "10 memories"
        short_lines.append(json.dumps(message, separators=(",", ":")))

    def encode(with_text: bool) -> Callable[[], object]:
        def run() -> None:
            for data in results:
                text = pydantic_core.to_json(data).decode() if with_text else "10 memories"
                result = CallToolResult(
                    content=[TextContent(type="text", text=text)], structured_content=data
                )
                dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
                reply = mcp_types.JSONRPCResponse(jsonrpc="2.0", id=1, result=dumped)
                reply.model_dump_json(by_alias=True, exclude_unset=True)

        return run

    def parse(batch: list[str]) -> Callable[[], object]:
        adapter = mcp_types.jsonrpc_message_adapter
        return lambda: [adapter.validate_json(line, by_name=False) for line in batch]

    lean = [without_empty_defaults(r) for r in results]
    flat = [flattened(r) for r in results]
    flat_schema = flattened_schema(schema)
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", **schema}
    draft4 = {"$schema": "http://json-schema.org/draft-04/schema#", **schema}
    published, as_draft7, as_draft4 = checker(schema), checker(draft7), checker(draft4)
    as_flat = checker(flat_schema)
    rows = (
        ("server encode, JSON text", encode(True)),
        ("server encode, short text", encode(False)),
        ("client parse, JSON text", parse(lines)),
        ("client parse, short text", parse(short_lines)),
        ("check, published schema", lambda: published(results)),
        ("check, draft-07", lambda: as_draft7(results)),
        ("check, draft-04", lambda: as_draft4(results)),
        ("check, no empty defaults", lambda: published(lean)),
        ("check, flattened hits", lambda: as_flat(flat)),
    )
    print(f"one recall result ({n} captured, {sum(map(len, lines)) // n:,} bytes a line), ms")
    for name, fn in rows:
        fn()  # warm: first-call imports and caches
        print(f"  {name:<28} {per_result(fn, n):6.3f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
