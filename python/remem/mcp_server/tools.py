"""The memory tools an MCP client's model sees: names, descriptions and argument schemas.

Each tool is a thin async function over :class:`~remem.service.MemoryService`; its argument
descriptions (``Annotated[..., Field(description=...)]``) become the JSON schema the model
reads. What it answers is a :mod:`remem.service.views` model (:data:`OUTPUTS`), sent as a ready
``CallToolResult`` and published as the tool's output schema in the flat form of
:mod:`remem.mcp_server.structured` (the SDK's client validates every result against it; the
view was validated when it was built, so the server does not validate it again). A remem error
becomes a tool error whose text says what was wrong and what to do (the SDK would otherwise
hide the message of an unexpected exception).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Annotated, Any, Literal, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from remem.errors import RememError
from remem.mcp_server.structured import output_schema, tool_result
from remem.service import (
    BlockEditResult,
    ContextView,
    ForgetResult,
    MemoryService,
    MemoryView,
    RecallResult,
    SessionList,
    Transcript,
    TurnView,
)

__all__ = ["OUTPUTS", "TOOL_NAMES", "memory_tools"]

TOOL_NAMES = (
    "remember",
    "recall",
    "record_turn",
    "forget",
    "get_context",
    "core_memory_add",
    "core_memory_replace",
    "core_memory_remove",
    "list_sessions",
    "get_transcript",
)

OUTPUTS: dict[str, type[BaseModel]] = {
    "remember": MemoryView,
    "recall": RecallResult,
    "record_turn": TurnView,
    "forget": ForgetResult,
    "get_context": ContextView,
    "core_memory_add": BlockEditResult,
    "core_memory_replace": BlockEditResult,
    "core_memory_remove": BlockEditResult,
    "list_sessions": SessionList,
    "get_transcript": Transcript,
}
"""The view each tool answers with; its structured output schema is derived from it."""

P = ParamSpec("P")
R = TypeVar("R")

Namespace = Annotated[
    str | None,
    Field(
        description="Whose memory to use (a user or agent name). Omit it for the server's "
        "default namespace; use the same value for every call about the same person."
    ),
]
Block = Annotated[
    str,
    Field(description="The core memory block: 'user' (who the user is) or 'self' (you and them)."),
]
OldText = Annotated[
    str, Field(description="A substring of exactly one existing entry, quoted exactly.")
]


def _tool_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    @wraps(fn)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except RememError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    return call


def memory_tools(service: MemoryService) -> list[Tool]:
    """Every memory tool of :data:`TOOL_NAMES` over ``service``, for ``MCPServer(tools=...)``."""

    @_tool_errors
    async def remember(
        text: Annotated[
            str,
            Field(
                description="One self-contained fact to keep, in a full sentence "
                "(e.g. 'Ana moved to Lisbon in March 2026')."
            ),
        ],
        namespace: Namespace = None,
        kind: Annotated[
            str, Field(description="fact, preference, event, insight, summary or note.")
        ] = "fact",
        entities: Annotated[
            list[str] | None,
            Field(description="Names of the people, places or things it is about."),
        ] = None,
    ) -> CallToolResult:
        return tool_result(
            await service.remember(text, namespace=namespace, kind=kind, entities=entities)
        )

    @_tool_errors
    async def recall(
        query: Annotated[
            str, Field(description="What you want to know, as a question or keywords.")
        ],
        namespace: Namespace = None,
        k: Annotated[int, Field(description="How many memories to return (best first).")] = 10,
    ) -> CallToolResult:
        return tool_result(await service.recall(query, namespace=namespace, k=k))

    @_tool_errors
    async def record_turn(
        session_id: Annotated[
            str, Field(description="The conversation's id; the same for every turn of it.")
        ],
        user_message: Annotated[str, Field(description="What the user said.")] = "",
        assistant_message: Annotated[str, Field(description="What you answered.")] = "",
        namespace: Namespace = None,
    ) -> CallToolResult:
        return tool_result(
            await service.record_turn(
                session_id, user_message, assistant_message, namespace=namespace
            )
        )

    @_tool_errors
    async def forget(
        ids: Annotated[
            list[str], Field(description="Ids of memories to forget, as recall returned them.")
        ],
        namespace: Namespace = None,
    ) -> CallToolResult:
        return tool_result(await service.forget(ids, namespace=namespace))

    @_tool_errors
    async def get_context(
        query: Annotated[str, Field(description="The user's current message or question.")],
        namespace: Namespace = None,
        budget: Annotated[
            int, Field(description="Most tokens the context may take in your prompt.")
        ] = 2000,
        session_id: Annotated[
            str | None,
            Field(description="The current conversation, to include its recent turns."),
        ] = None,
        earlier_values: Annotated[
            Literal["mark", "drop", "off"],
            Field(
                description="A recalled value that no longer holds: marked as earlier (with "
                "the current one), dropped for the current one, or shown as recalled."
            ),
        ] = "mark",
        prime: Annotated[
            bool,
            Field(
                description="Also include what a session starts with: the user's entities, "
                "known facts, insights and summaries."
            ),
        ] = True,
    ) -> CallToolResult:
        return tool_result(
            await service.get_context(
                query,
                namespace=namespace,
                budget=budget,
                session_id=session_id,
                earlier_values=earlier_values,
                prime=prime,
            )
        )

    @_tool_errors
    async def core_memory_add(
        block: Block,
        text: Annotated[
            str, Field(description="The new entry: one self-contained fact, one line.")
        ],
        namespace: Namespace = None,
    ) -> CallToolResult:
        return tool_result(await service.core_memory_add(block, text, namespace=namespace))

    @_tool_errors
    async def core_memory_replace(
        block: Block,
        old_text: OldText,
        new_text: Annotated[
            str, Field(description="The entry that replaces it, written out in full.")
        ],
        namespace: Namespace = None,
    ) -> CallToolResult:
        return tool_result(
            await service.core_memory_replace(block, old_text, new_text, namespace=namespace)
        )

    @_tool_errors
    async def core_memory_remove(
        block: Block, old_text: OldText, namespace: Namespace = None
    ) -> CallToolResult:
        return tool_result(await service.core_memory_remove(block, old_text, namespace=namespace))

    @_tool_errors
    async def list_sessions(namespace: Namespace = None) -> CallToolResult:
        return tool_result(await service.list_sessions(namespace=namespace))

    @_tool_errors
    async def get_transcript(
        session_id: Annotated[str, Field(description="The conversation's id.")],
        since_turn: Annotated[
            int | None, Field(description="Only turns after this turn number.")
        ] = None,
        limit: Annotated[int | None, Field(description="At most this many turns.")] = None,
        namespace: Namespace = None,
    ) -> CallToolResult:
        return tool_result(
            await service.get_transcript(
                session_id, namespace=namespace, since_turn=since_turn, limit=limit
            )
        )

    descriptions: dict[Callable[..., Awaitable[Any]], str] = {
        remember: "Store one fact worth remembering about the user or the world, so that a "
        "later recall finds it. Returns the stored memory with its id.",
        recall: "Search long-term memory: the memories most relevant to the query, best "
        "first, each with its score and why it matched. Use before answering anything that "
        "depends on what you were told earlier.",
        record_turn: "Record one exchange of a conversation (the user's message and your "
        "answer) in the transcript; facts in it become recallable.",
        forget: "Forget memories by id (they are never recalled again). Only ids from this "
        "namespace are accepted; an unknown id changes nothing and is reported.",
        get_context: "Everything relevant to the query, assembled to fit a token budget: the "
        "core memory blocks, recent turns of the session and the best recalled memories, "
        "with an explanation of what was kept and why the rest was not.",
        core_memory_add: "Add one entry to a core memory block (always in your context). If "
        "the block is full the result has ok=false and the block's contents: merge or drop "
        "entries with core_memory_replace/core_memory_remove, then retry.",
        core_memory_replace: "Replace one entry of a core memory block (to correct, update or "
        "merge facts).",
        core_memory_remove: "Remove one entry from a core memory block (when it is wrong or "
        "no longer true).",
        list_sessions: "List the recorded conversation sessions, oldest first.",
        get_transcript: "Read the turns of one conversation session, oldest first.",
    }
    tools = []
    for fn, description in descriptions.items():
        tool = Tool.from_function(fn, name=fn.__name__, description=description)
        # Published, not re-validated: the SDK validates a result against output_model only.
        tool.fn_metadata.output_schema = output_schema(OUTPUTS[tool.name])
        tool.fn_metadata.output_model = None
        tools.append(tool)
    return tools
