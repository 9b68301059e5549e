"""remem: long-term memory for LLM agents and companions."""

from __future__ import annotations

from remem import errors, kernels
from remem._native import __version__
from remem.controller import MemoryController
from remem.lifecycle import DecayCalculator, DecayConfig
from remem.models import TranscriptEntry, TranscriptSession
from remem.runtime import Runtime
from remem.stores.simple import SimpleVectorStore
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
