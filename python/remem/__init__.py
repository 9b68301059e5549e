"""remem: long-term memory for LLM agents and companions."""

from __future__ import annotations

from remem import errors, kernels
from remem._native import __version__

__all__ = ["__version__", "errors", "kernels"]
