"""remem: long-term memory for LLM agents and companions.

The public names load on first use (PEP 562), so ``import remem`` costs the native module and
the exception tree only — a command-line tool or a worker that imports remem without opening a
memory does not pay for pydantic, DuckDB and the stores. ``from remem import Runtime`` imports
what ``Runtime`` needs, as an eager import would.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from remem import errors
from remem._native import __version__

if TYPE_CHECKING:
    from remem import kernels
    from remem.controller import MemoryController
    from remem.lifecycle import DecayCalculator, DecayConfig
    from remem.models import TranscriptEntry, TranscriptSession
    from remem.runtime import Runtime
    from remem.stores.memory.simple import SimpleVectorStore
    from remem.stores.sqlite.transcript import SQLiteTranscriptStore

__all__ = [
    "DecayCalculator",
    "DecayConfig",
    "MemoryController",
    "Runtime",
    "SQLiteTranscriptStore",
    "SimpleVectorStore",
    "TranscriptEntry",
    "TranscriptSession",
    "__version__",
    "errors",
    "kernels",
]

_LAZY: dict[str, str] = {
    "DecayCalculator": "remem.lifecycle",
    "DecayConfig": "remem.lifecycle",
    "MemoryController": "remem.controller",
    "Runtime": "remem.runtime",
    "SQLiteTranscriptStore": "remem.stores.sqlite.transcript",
    "SimpleVectorStore": "remem.stores.memory.simple",
    "TranscriptEntry": "remem.models",
    "TranscriptSession": "remem.models",
}
"""Public name → the module that defines it."""


if not TYPE_CHECKING:  # type checkers see the imports above, so a misspelt name stays an error

    def __getattr__(name: str) -> Any:
        if name == "kernels":
            return importlib.import_module("remem.kernels")
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'remem' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups skip __getattr__
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
