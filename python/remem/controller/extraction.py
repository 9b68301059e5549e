"""The extraction hook: what an extractor receives and returns.

An :class:`Extractor` turns a window of turns into entities, relationships and memories. The
real extractors (LLM-based, rule-based) are another issue; the controller defines the protocol,
schedules it every ``ExtractionConfig.interval`` turns of a session, and applies its result:
entity names through the :class:`~remem.graph.EntityResolver` (so "Ana" extracted twice is one
entity), relationships into the graph store, memories through ``remember()`` with provenance
``source_type="extraction"`` and ``parent_ids`` = the turn ids.

    class MyExtractor:
        async def extract(self, entries, *, context):
            return ExtractionResult(memories=(ExtractedMemory("Ana likes tea"),))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from remem.models import MemoryKind, TranscriptEntry


@dataclass(frozen=True, slots=True)
class ExtractedEntity:
    """An entity named in the turns (a surface name; the resolver maps it to an id)."""

    name: str
    entity_type: str | None = None


@dataclass(frozen=True, slots=True)
class ExtractedRelationship:
    """``source -[relation_type]-> target`` between entity names."""

    source: str
    relation_type: str
    target: str
    valid_from: datetime | None = None
    confidence: float = 1.0
    exclusive: bool = False
    """Single-valued relation (``lives_in``, ``works_at``, ``partner``): a newer edge of the same
    type from the same source supersedes the older one (the consolidator sets ``valid_to`` and
    ``superseded_by``). Stored as ``Relationship.attributes["exclusive"]``."""


@dataclass(frozen=True, slots=True)
class ExtractedMemory:
    """A statement worth remembering, with the entity names it mentions.

    ``subject``/``attribute``/``value`` make a fact *keyed*: "user" / "city" / "Lisbon". Two keyed
    facts with the same subject and attribute and different values contradict each other; the
    consolidator supersedes the older. They are stored in the record's metadata under the keys
    ``"subject"``, ``"attribute"`` and ``"value"`` (subject and attribute lower-cased).

    ``operation`` says what the statement does to the fact: ``"set"`` (the default: the value
    holds from now on), ``"end"`` (the fact stopped holding and nothing replaces it — "Sam and
    I split up", "I'm not vegan any more", "our cat Rex died"; ``value`` is the value that
    ended, or ``"none"`` when it was not named) or ``"correct"`` (``value`` replaces a
    misstatement, ``previous``, that was never true). Both are stored in the metadata under
    ``"operation"`` and ``"previous"`` when they are not the defaults, so supersession can act
    on them; ``previous`` is also the old name of a renamed thing.
    """

    text: str
    kind: MemoryKind | str = MemoryKind.FACT
    entities: tuple[str, ...] = ()
    confidence: float = 1.0
    subject: str | None = None
    attribute: str | None = None
    value: str | None = None
    operation: str = "set"
    previous: str | None = None


FACT_OPERATIONS: frozenset[str] = frozenset({"set", "end", "correct"})
"""The values of :attr:`ExtractedMemory.operation`."""


@dataclass(frozen=True, slots=True)
class ExtractionResult:
    entities: tuple[ExtractedEntity, ...] = ()
    relationships: tuple[ExtractedRelationship, ...] = ()
    memories: tuple[ExtractedMemory, ...] = ()


@dataclass(frozen=True, slots=True)
class ExtractionContext:
    """What an extractor may want besides the turns: the session, the time, the namespace."""

    session_id: str
    now: datetime
    namespace: str = "default"


@runtime_checkable
class Extractor(Protocol):
    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult: ...
