"""remem: long-term memory for LLM agents and companions."""

from __future__ import annotations

from remem import errors, kernels
from remem._native import __version__
from remem.stores.simple import SimpleVectorStore

__all__ = ["SimpleVectorStore", "__version__", "errors", "kernels"]
