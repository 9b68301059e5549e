"""What the harness needs from a companion, and how a variant builds one.

The harness only calls ``turn``, ``build_prompt`` (``.text``/``.tokens``), ``answer``, ``name``
and ``aclose`` — the subset of :class:`remem.companion.Companion` an eval can drive — so any
object with these methods (a Companion subclass, a baseline, a test double) can be evaluated.

A :class:`Variant` is a name and a factory: given the persona's freshly opened
:class:`~remem.Runtime` and a brain, it returns the companion to evaluate. ``runtime`` (None:
the defaults) is the :class:`~remem.runtime_config.RuntimeConfig` the harness opens that runtime
with — how an ablation switches a recall stage off for one variant.

    Variant("raw-recall", lambda runtime, brain: RawRecallBaseline(runtime))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from remem.brains import Brain
from remem.runtime import Runtime
from remem.runtime_config import RuntimeConfig

__all__ = ["EvalCompanion", "PromptLike", "Variant"]


class PromptLike(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def tokens(self) -> int: ...


@runtime_checkable
class EvalCompanion(Protocol):
    @property
    def name(self) -> str: ...

    async def turn(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> Any: ...

    async def build_prompt(
        self, user_message: str, *, session_id: str = "default", now: datetime | None = None
    ) -> PromptLike: ...

    async def answer(
        self, question: str, *, session_id: str = "default", now: datetime | None = None
    ) -> str: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Variant:
    """A named way to build the companion under test (see module docstring)."""

    name: str
    build: Callable[[Runtime, Brain], EvalCompanion]
    description: str = ""
    runtime: RuntimeConfig | None = None
