"""``remem mcp``: the memory tools and core-block resources on the official MCP SDK's server.

    async with MemoryService.open("./memory") as service:
        await build_server(service).run_stdio_async()

Tools: :mod:`remem.mcp_server.tools`. Resources: ``remem://core`` (every core block of the
default namespace, rendered as in a prompt), ``remem://core/{label}`` (one block of the default
namespace) and ``remem://namespaces/{namespace}/core/{label}`` (one block of any served
namespace), each as JSON (:class:`~remem.service.BlockView`). Over streamable HTTP
(:func:`serve_http`) the server binds loopback unless told otherwise, and then requires a bearer
token (:mod:`remem.service.auth` states the rule; the REST API follows the same one).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from remem._native import __version__
from remem.errors import RememError
from remem.mcp_server.tools import memory_tools
from remem.service import MemoryService

__all__ = ["INSTRUCTIONS", "build_server"]

INSTRUCTIONS = (
    "Long-term memory for this conversation partner. Call recall (or get_context) before "
    "answering anything that depends on earlier conversations; call remember for each new "
    "durable fact; record_turn after each exchange; keep the few facts that matter every turn "
    "in the core memory blocks (core_memory_add/replace/remove). Pass the same namespace for "
    "every call about the same user."
)


def build_server(service: MemoryService) -> MCPServer[Any]:
    """An MCP server exposing ``service`` (tools and resources; see the module docstring)."""
    server: MCPServer[Any] = MCPServer(
        "remem",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        tools=memory_tools(service),
    )

    @server.resource(
        "remem://core",
        name="core_memory",
        description="Every core memory block of the default namespace, as in a prompt.",
        mime_type="text/plain",
    )
    async def core_all() -> str:
        try:
            blocks = await service.core_memory()
        except RememError as exc:
            raise ResourceError(str(exc)) from exc
        return "\n\n".join(b.rendered for b in blocks)

    @server.resource(
        "remem://core/{label}",
        name="core_memory_block",
        description="One core memory block of the default namespace (JSON).",
        mime_type="application/json",
    )
    async def core_block(label: str) -> str:
        return await _block(service, label, None)

    @server.resource(
        "remem://namespaces/{namespace}/core/{label}",
        name="namespace_core_memory_block",
        description="One core memory block of a namespace (JSON).",
        mime_type="application/json",
    )
    async def namespace_block(namespace: str, label: str) -> str:
        return await _block(service, label, namespace)

    return server


async def _block(service: MemoryService, label: str, namespace: str | None) -> str:
    try:
        view = await service.core_memory_block(label, namespace=namespace)
    except RememError as exc:
        raise ResourceError(str(exc)) from exc
    return view.model_dump_json()
