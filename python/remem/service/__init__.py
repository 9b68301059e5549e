"""The memory operations both servers expose (MCP: :mod:`remem.mcp_server`; REST:
:mod:`remem.rest`): :class:`MemoryService` over a Runtime, its :class:`ServiceConfig` (scoping
and bounds), and the JSON-able views it answers with."""

from __future__ import annotations

from remem.service.config import ServiceConfig
from remem.service.operations import MemoryService
from remem.service.views import (
    BlockEditResult,
    BlockView,
    ContextItem,
    ContextView,
    ForgetResult,
    MemoryView,
    RecallHit,
    RecallResult,
    SessionList,
    SessionView,
    Transcript,
    TurnView,
)

__all__ = [
    "BlockEditResult",
    "BlockView",
    "ContextItem",
    "ContextView",
    "ForgetResult",
    "MemoryService",
    "MemoryView",
    "RecallHit",
    "RecallResult",
    "ServiceConfig",
    "SessionList",
    "SessionView",
    "Transcript",
    "TurnView",
]
