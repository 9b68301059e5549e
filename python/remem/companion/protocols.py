"""The small protocols the companion needs from the packages it composes.

The extractor is :class:`remem.controller.Extractor` (``remem.extraction.RuleExtractor`` and
``MemoryExtractor`` implement it). The consolidator is anything with
``supersede_contradictions`` — ``remem.consolidation.MemoryConsolidator`` implements it; the
companion reads only the fields of each supersession it returns that are named here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from remem.models import MemoryRecord

__all__ = ["Consolidator", "SupersessionLike"]


class SupersessionLike(Protocol):
    """One superseded fact: ``kind`` "record" or "relationship", and the texts involved."""

    @property
    def kind(self) -> str: ...
    @property
    def old_id(self) -> str: ...
    @property
    def new_id(self) -> str: ...
    @property
    def old_text(self) -> str | None: ...
    @property
    def new_text(self) -> str | None: ...


@runtime_checkable
class Consolidator(Protocol):
    """Supersedes stored facts contradicted by newer ones (among ``records`` when given)."""

    async def supersede_contradictions(
        self, records: Sequence[MemoryRecord] | None = None
    ) -> Sequence[SupersessionLike]: ...
