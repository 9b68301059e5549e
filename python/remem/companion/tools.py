"""The companion's memory tools: the three block tools plus ``search_memory``, one dispatcher.

The block tools are :mod:`remem.blocks.tools` (``core_memory_add``, ``core_memory_replace``,
``core_memory_remove``), offered when the companion uses blocks. ``search_memory`` recalls from
the stores with the companion's own recall settings (stages, retrievers) and is offered when
the companion recalls at all — a blocks-only companion cannot reach the stores by a side door.
Schemas are OpenAI-style function specs; :meth:`MemoryTools.specs` gives them as
:class:`~remem.brains.ToolSpec`. Whatever the model gets wrong comes back as text for it to fix;
store failures propagate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from remem.blocks import BlockFullError, CoreMemory
from remem.blocks import dispatch as dispatch_block
from remem.blocks import tool_schemas as block_tool_schemas
from remem.blocks.tools import TOOL_NAMES as BLOCK_TOOLS
from remem.brains import ToolCall, ToolSpec
from remem.companion.config import CompanionConfig
from remem.companion.scope import scoped_recall
from remem.controller import MemoryController
from remem.errors import InputError

__all__ = ["SEARCH_MEMORY", "MemoryTools", "ToolOutcome", "search_memory_schema"]

SEARCH_MEMORY = "search_memory"
MAX_SEARCH_K = 20
_FULL_PREFIX = f"Error ({BlockFullError.__name__})"


def search_memory_schema() -> dict[str, Any]:
    """The OpenAI-style function spec of ``search_memory``.

    >>> search_memory_schema()["function"]["parameters"]["required"]
    ['query']
    """
    return {
        "type": "function",
        "function": {
            "name": SEARCH_MEMORY,
            "description": "Search long-term memory (stored facts and past conversations) for "
            "what is not in your context; returns the best matches, one per line.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for."},
                    "k": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_SEARCH_K,
                        "description": "How many results (default 5).",
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    }


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """One tool call and the text sent back; ``block_full`` when a block refused it as full."""

    call: ToolCall
    result: str
    block_full: bool = False


class MemoryTools:
    """The tools one companion offers, and their dispatcher."""

    def __init__(
        self, controller: MemoryController, blocks: CoreMemory | None, config: CompanionConfig
    ) -> None:
        self.controller = controller
        self.blocks = blocks if config.use_blocks else None
        self.config = config

    def schemas(self, *, blocks_only: bool = False) -> list[dict[str, Any]]:
        """OpenAI-style specs of the tools offered (``blocks_only``: the block tools alone)."""
        out: list[dict[str, Any]] = []
        if self.blocks is not None:
            out += block_tool_schemas(self.config.blocks)
        if self.config.recalls and not blocks_only:
            out.append(search_memory_schema())
        return out

    def specs(self, *, blocks_only: bool = False) -> list[ToolSpec]:
        """:meth:`schemas` as brain tool specs."""
        return [
            ToolSpec(f["name"], f.get("description", ""), f["parameters"])
            for f in (s["function"] for s in self.schemas(blocks_only=blocks_only))
        ]

    async def call(self, call: ToolCall, *, actor: str = "model") -> ToolOutcome:
        """Run one tool call; the outcome's text is what goes back to the model."""
        if call.name in BLOCK_TOOLS and self.blocks is not None:
            result = await dispatch_block(self.blocks, call.name, call.arguments, actor=actor)
            return ToolOutcome(call, result, block_full=result.startswith(_FULL_PREFIX))
        if call.name == SEARCH_MEMORY and self.config.recalls:
            return ToolOutcome(call, await self.search(call.arguments))
        offered = [s["function"]["name"] for s in self.schemas()]
        return ToolOutcome(
            call, f"Error: there is no tool {call.name!r}; use one of {', '.join(offered)}"
        )

    async def search(self, arguments: Mapping[str, Any]) -> str:
        """``search_memory``: recalled memories as ``- [date] text`` lines, best first."""
        query = arguments.get("query")
        k = arguments.get("k", 5)
        extra = sorted(set(arguments) - {"query", "k"})
        if not isinstance(query, str) or not query.strip() or extra:
            return "Error: search_memory takes a non-empty string query (and optionally k)"
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_SEARCH_K:
            return f"Error: k must be an integer in 1..{MAX_SEARCH_K}"
        try:
            hits = await scoped_recall(
                self.controller,
                self.config.namespace,
                query,
                k=k,
                stages=self.config.recall_stages,
                sources=self.config.recall_sources,
            )
        except InputError as exc:
            return f"Error ({type(exc).__name__}): {exc}"
        if not hits:
            return f"No memories match {query!r}."
        lines = [
            f"- [{h.record.lifecycle.created_at:%Y-%m-%d}] {' / '.join(h.record.text.splitlines())}"
            for h in hits
        ]
        return "\n".join(lines)
