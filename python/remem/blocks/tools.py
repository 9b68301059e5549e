"""The memory tools the companion exposes to the model, and their dispatcher.

:func:`tool_schemas` returns OpenAI-style function specs (``{"type": "function", "function":
{...}}``) for ``core_memory_add``, ``core_memory_replace`` and ``core_memory_remove``; the
``block`` argument is an enum of the configured labels. :func:`dispatch` applies one call and
returns the text to send back as the tool result. Whatever the model got wrong (a full block,
an ambiguous or missing substring, a duplicate, bad arguments) comes back as text — for
:class:`BlockFullError` the error's message, which carries the block's full contents and asks
the model to merge or drop something and retry. Store failures are the application's problem
and propagate as exceptions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from remem.blocks.core import CoreMemory, CoreMemoryConfig
from remem.blocks.edits import BlockEdit
from remem.errors import BlockConflictError, BlockError, InputError, InvalidArgumentError

ADD = "core_memory_add"
REPLACE = "core_memory_replace"
REMOVE = "core_memory_remove"
TOOL_NAMES = (ADD, REPLACE, REMOVE)

_PARAMS: dict[str, dict[str, str]] = {
    ADD: {"text": "The new entry: one self-contained fact, one line."},
    REPLACE: {
        "old_text": "A substring of exactly one existing entry (quote it exactly).",
        "new_text": "The entry that replaces it, written out in full.",
    },
    REMOVE: {"old_text": "A substring of exactly one existing entry (quote it exactly)."},
}
_DESCRIPTIONS = {
    ADD: "Add one entry to a core memory block. Fails if the block would exceed its limit: "
    "then merge or drop entries and retry.",
    REPLACE: "Replace one entry of a core memory block (to correct, update or merge facts).",
    REMOVE: "Remove one entry from a core memory block (when it is wrong or no longer true).",
}


def tool_schemas(config: CoreMemoryConfig | None = None) -> list[dict[str, Any]]:
    """OpenAI-style function specs for the three block tools, over the configured blocks.

    >>> [s["function"]["name"] for s in tool_schemas()]
    ['core_memory_add', 'core_memory_replace', 'core_memory_remove']
    """
    blocks = (config or CoreMemoryConfig()).blocks
    which = "; ".join(f"{b.label} = {b.description}" for b in blocks)
    specs: list[dict[str, Any]] = []
    for name in TOOL_NAMES:
        properties: dict[str, Any] = {
            "block": {
                "type": "string",
                "enum": [b.label for b in blocks],
                "description": f"Which block: {which}.",
            }
        }
        for param, description in _PARAMS[name].items():
            properties[param] = {"type": "string", "description": description}
        specs.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": _DESCRIPTIONS[name],
                    "parameters": {
                        "type": "object",
                        "properties": properties,
                        "required": list(properties),
                        "additionalProperties": False,
                    },
                },
            }
        )
    return specs


def _parse(tool_name: str, arguments: Mapping[str, Any] | str) -> tuple[str, BlockEdit]:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise InvalidArgumentError(f"the arguments are not valid JSON ({exc.msg})") from exc
    if not isinstance(arguments, Mapping):
        raise InvalidArgumentError("the arguments must be a JSON object")
    expected = {"block", *_PARAMS[tool_name]}
    missing = sorted(expected - set(arguments))
    extra = sorted(set(arguments) - expected)
    if missing or extra:
        raise InvalidArgumentError(
            f"{tool_name} takes exactly {sorted(expected)}"
            + (f"; missing {missing}" if missing else "")
            + (f"; unexpected {extra}" if extra else "")
        )
    values = {k: arguments[k] for k in expected}
    for key, value in values.items():
        if not isinstance(value, str):
            raise InvalidArgumentError(f"{key} must be a string")
    if tool_name == ADD:
        edit = BlockEdit.add(values["text"])
    elif tool_name == REPLACE:
        edit = BlockEdit.replace(values["old_text"], values["new_text"])
    else:
        edit = BlockEdit.remove(values["old_text"])
    return values["block"], edit


_DONE = {ADD: "Added to", REPLACE: "Replaced in", REMOVE: "Removed from"}


async def dispatch(
    memory: CoreMemory, tool_name: str, arguments: Mapping[str, Any] | str, *, actor: str = "model"
) -> str:
    """Apply one tool call; return the tool result text (the updated block, or what to fix).

    ``arguments`` is the call's JSON object (a string, as the API delivers it, or parsed).
    An unknown ``tool_name`` is the caller's bug and raises InvalidArgumentError.
    """
    if tool_name not in TOOL_NAMES:
        raise InvalidArgumentError(
            f"unknown memory tool {tool_name!r}; route only {', '.join(TOOL_NAMES)} here"
        )
    try:
        label, edit = _parse(tool_name, arguments)
        await memory.apply(label, [edit], actor=actor)
    except BlockConflictError:
        await memory.reload()
        return (
            "The block was changed by another writer and has been reloaded; check it and "
            "retry:\n" + memory.render()
        )
    except (BlockError, InputError) as exc:
        return f"Error ({type(exc).__name__}): {exc}"
    return f"{_DONE[tool_name]} the {label} block.\n{memory.block(label).render()}"
