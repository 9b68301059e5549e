"""A tool's structured output: the schema it publishes and the result it sends, built once.

    schema = output_schema(RecallResult)   # advertised as the tool's outputSchema
    result = tool_result(view)             # CallToolResult: structured content + its JSON text

:func:`output_schema` is the view's pydantic JSON schema rewritten into an equivalent that a
client validates in about half the time (the SDK's client checks every result against it with
``jsonschema``, whose cost grows with the schema's indirections, not with its descriptions):
``$ref``\\ s into ``$defs`` are inlined, a nullable field's ``anyOf [{type: T}, {type: null}]``
becomes ``type: [T, "null"]``, pydantic's generated titles below the root (the field or model
name again) and the redundant ``additionalProperties: true`` are dropped. Every description,
``required`` list, ``additionalProperties: false``, ``format`` and default stays, so the schema
accepts and rejects exactly what the original does, and a model reads the same field
documentation.

:func:`tool_result` serialises the view once (``model_dump``) and encodes that dict once as
compact JSON for the text block the MCP spec asks tools with structured output to also send;
the SDK would otherwise dump the model twice and indent the text (more bytes, more tokens).
"""

from __future__ import annotations

from typing import Any

import pydantic
import pydantic_core
from mcp.types import CallToolResult, TextContent

__all__ = ["output_schema", "tool_result"]

_DEFS = "#/$defs/"
# Keywords of a non-null anyOf branch that only constrain instances of the branch's own type, so
# moving them beside ``type: [T, "null"]`` changes nothing for null (or any other type).
_TYPE_SPECIFIC = frozenset(
    {
        "type",
        "format",
        "items",
        "properties",
        "required",
        "additionalProperties",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
    }
)
# Keywords whose value is one subschema, a list of them, or a name → subschema mapping.
_ONE = ("items", "additionalProperties", "not")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAPPING = ("properties", "patternProperties")


def output_schema(view: type[pydantic.BaseModel]) -> dict[str, Any]:
    """``view``'s JSON schema, equivalent but flat (module docstring); a fresh dict each call."""
    schema = view.model_json_schema()
    defs: dict[str, Any] = schema.pop("$defs", {})
    flat: dict[str, Any] = _rewrite(schema, defs, ())
    return {"title": view.__name__, **flat}


def tool_result(view: pydantic.BaseModel) -> CallToolResult:
    """``view`` as a tool result: its JSON as structured content and as one compact text block."""
    data = view.model_dump(mode="json")
    text = pydantic_core.to_json(data).decode()
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _rewrite(schema: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS):
        name = ref.removeprefix(_DEFS)
        if name in seen:
            raise ValueError(f"{name} refers to itself; a recursive view cannot be inlined")
        inlined = _rewrite(defs[name], defs, (*seen, name))
        siblings = {k: _rewrite(v, defs, seen) for k, v in schema.items() if k != "$ref"}
        return {**inlined, **siblings}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ONE:
            out[key] = _rewrite(value, defs, seen)
        elif key in _MANY:
            out[key] = [_rewrite(v, defs, seen) for v in value]
        elif key in _MAPPING:
            out[key] = {name: _rewrite(v, defs, seen) for name, v in value.items()}
        else:
            out[key] = value
    out.pop("title", None)
    if out.get("additionalProperties") is True:
        del out["additionalProperties"]
    return _nullable(out)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``anyOf [{type: T, …}, {type: null}]`` → ``type: [T, "null"], …`` when that is exact."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or {"type": "null"} not in branches:
        return schema
    (other,) = [b for b in branches if b != {"type": "null"}]
    if (
        not isinstance(other, dict)
        or not isinstance(other.get("type"), str)
        or not set(other) <= _TYPE_SPECIFIC
        or set(other) & (set(schema) - {"anyOf"})
    ):
        return schema
    merged = {k: v for k, v in schema.items() if k != "anyOf"}
    merged.update(other)
    merged["type"] = [other["type"], "null"]
    return merged
