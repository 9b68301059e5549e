"""Pure-Python twins of every native kernel.

Each function has the signature of its counterpart in :mod:`remem.kernels` and its docstring is
the specification: formula, edge cases, tie-breaks. Property tests hold native == reference.
This package imports nothing from remem except :mod:`remem.errors`.
"""

from __future__ import annotations

__all__: list[str] = []
