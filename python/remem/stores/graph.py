"""The GraphStore protocol: entities, typed relationships with validity times, neighbourhoods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Literal, Protocol, Self, runtime_checkable

from remem.models import Entity, Relationship


@dataclass(frozen=True, slots=True)
class Neighbour:
    """An entity reached from a start entity in ``depth`` hops along ``path`` (relationship ids)."""

    entity: Entity
    depth: int
    path: tuple[str, ...]


@runtime_checkable
class GraphStore(Protocol):
    """The entity graph.

    Contract (every backend): relationships are never deleted by contradiction, only closed
    (``valid_to``) and superseded; ``relationships(at=t)`` returns those valid at ``t``
    (valid_from ≤ t < valid_to, open ends unbounded); ``end_relationship`` closes one without a
    successor; ``neighbours`` walks both directions up to
    ``depth`` hops, returns each entity once at its smallest depth (ties by id), excludes the
    start entities and superseded relationships; ``record_access`` adds counts in one batched
    statement; ``find_entities`` matches the normalised name or an alias (casefolded, whitespace
    collapsed).
    """

    async def upsert_entities(self, entities: Sequence[Entity]) -> None: ...
    async def get_entities(self, ids: Sequence[str]) -> list[Entity]: ...
    async def find_entities(self, name: str, *, namespace: str | None = None) -> list[Entity]: ...
    async def list_entities(self, *, namespace: str | None = None) -> list[Entity]: ...
    async def add_relationships(self, relationships: Sequence[Relationship]) -> None: ...
    async def relationships(
        self,
        entity_id: str,
        *,
        direction: Literal["out", "in", "both"] = "both",
        at: datetime | None = None,
        include_superseded: bool = False,
    ) -> list[Relationship]: ...
    async def supersede_relationship(self, old_id: str, new_id: str, *, at: datetime) -> None: ...
    async def end_relationship(self, rel_id: str, *, at: datetime) -> None:
        """Close ``rel_id`` at ``at`` with no successor ("Sam and I split up"): ``valid_to``
        becomes ``at`` (an earlier ``valid_to`` is kept), ``superseded_by`` stays empty, so
        ``relationships(at=t)`` for ``t >= at`` leaves it out and the history keeps it. Ending
        an ended edge again is a no-op; an unknown id is NotFoundError, a superseded one
        InvalidArgumentError."""
        ...

    async def neighbours(
        self, entity_ids: Sequence[str], *, depth: int = 1, at: datetime | None = None
    ) -> list[Neighbour]: ...
    async def record_access(self, counts: Mapping[str, int]) -> None: ...
    async def relationship_counts(self, entity_ids: Sequence[str]) -> dict[str, int]: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
