"""``PROVIDER:MODEL`` specs for the CLI's ``--brain`` and ``--judge`` options: the registry of
:mod:`remem.brains.registry` (kept here under its old import path).

    brain = brain_from_spec("anthropic:claude-sonnet-4-5")
"""

from __future__ import annotations

from remem.brains.registry import OPENAI_COMPATIBLE as PROVIDERS
from remem.brains.registry import brain_from_spec

__all__ = ["PROVIDERS", "brain_from_spec"]
