"""The MCP front end (``remem mcp``): :func:`build_server` over a MemoryService; needs the
``remem[mcp]`` extra (the official MCP Python SDK)."""

from __future__ import annotations

from remem.mcp_server.server import INSTRUCTIONS, build_server
from remem.mcp_server.tools import TOOL_NAMES

__all__ = ["INSTRUCTIONS", "TOOL_NAMES", "build_server"]
