"""Freezing what a server process allocated at startup, so that full collections skip it.

    async with MemoryService(runtime) as service:
        server = build_server(service)
        freeze_startup_heap()          # then serve

Why: a served process keeps everything startup made — modules, classes, pydantic's schemas,
the SDK's and the stores' objects: 131k of the 163k objects ``remem mcp`` tracks at 10k
memories — and CPython's cyclic collector walks all of them on every full (generation-2)
collection, inside whichever request allocated next. Over 300 MCP recalls at 10k memories one
such collection ran and stalled its call by 129 and 175 ms in two runs (``python -m
benches.mcp_spans DIR --no-freeze`` counts the server's collections during the timed calls);
with the startup heap frozen none ran over the same calls, and the young-generation collections
(~44 of generation 0 and 4 of 1, ~20 ms in all) were unchanged.

Contract: one full collection, then every object alive is moved to the collector's permanent
generation (:func:`gc.freeze`), which later collections never traverse. Those objects are never
freed by the collector: call this once, after startup, on objects that live as long as the
process. Everything allocated afterwards is collected as before (cycles included).
"""

from __future__ import annotations

import gc

__all__ = ["freeze_startup_heap"]


def freeze_startup_heap() -> int:
    """Collect, then freeze every live object (module docstring); returns how many are frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
