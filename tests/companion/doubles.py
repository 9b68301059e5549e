"""Tiny local stand-ins for the extractor and the consolidator (unit tests of the companion).

``PatternExtractor`` turns a few sentence shapes into keyed facts about the user (and an
exclusive relationship for city/employer); ``LatestWinsConsolidator`` supersedes the previous
record of a single-valued (subject, attribute) it has seen. Real ones: tests marked with the
real RuleExtractor and MemoryConsolidator.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from remem.controller import (
    ExtractedMemory,
    ExtractedRelationship,
    ExtractionContext,
    ExtractionResult,
    MemoryController,
)
from remem.models import MemoryRecord, Relationship, TranscriptEntry

SINGLE = frozenset({"city", "employer"})

_PATTERNS: tuple[tuple[str, str, str, str | None], ...] = (
    (r"(?:moved to|live in) ([A-Z][a-z]+)", "city", "The user lives in {0}.", "lives_in"),
    (r"(?:job at|work at) ([A-Z][a-z]+)", "employer", "The user works at {0}.", "works_at"),
    (
        r"sister(?:'s name)? is ([A-Z][a-z]+)",
        "sibling",
        "The user's sister is called {0}.",
        "sibling",
    ),
    (r"dog (?:called|named) ([A-Z][a-z]+)", "pet", "The user has a dog named {0}.", "has_pet"),
)


class PatternExtractor:
    """Keyed facts from a few fixed sentence shapes; counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        self.calls += 1
        memories: list[ExtractedMemory] = []
        rels: list[ExtractedRelationship] = []
        for entry in entries:
            for pattern, attribute, template, relation in _PATTERNS:
                for value in re.findall(pattern, entry.user_message):
                    text = template.format(value)
                    memories.append(
                        ExtractedMemory(
                            text,
                            subject="user",
                            attribute=attribute,
                            value=value,
                            entities=(value,) if relation else (),
                        )
                    )
                    if relation:
                        rels.append(
                            ExtractedRelationship(
                                "user", relation, value, exclusive=attribute in SINGLE
                            )
                        )
        return ExtractionResult(relationships=tuple(rels), memories=tuple(memories))


@dataclass(frozen=True)
class Superseded:
    kind: str
    old_id: str
    new_id: str
    old_text: str
    new_text: str


class LatestWinsConsolidator:
    """Supersedes the last seen record of the same single-valued user attribute, and the older
    exclusive relationships of the same type from the user entity."""

    def __init__(self, controller: MemoryController) -> None:
        self.controller = controller
        self.latest: dict[str, MemoryRecord] = {}

    async def supersede_contradictions(
        self, records: Sequence[MemoryRecord] | None = None
    ) -> list[Superseded]:
        out: list[Superseded] = []
        for record in records or ():
            attribute = str(record.metadata.get("attribute"))
            if attribute not in SINGLE:
                continue
            old = self.latest.get(attribute)
            self.latest[attribute] = record
            if old is not None and old.metadata.get("value") != record.metadata.get("value"):
                await self.controller.supersede(old.id, record.id)
                out.append(Superseded("record", old.id, record.id, old.text, record.text))
        await self._relationships()
        return out

    async def _relationships(self) -> None:
        graph = (await self.controller.settled()).graph
        for user in await graph.find_entities("user"):
            newest: dict[str, Relationship] = {}
            rels = await graph.relationships(user.id, direction="out")
            for rel in sorted(rels, key=lambda r: r.created_at):
                if not rel.attributes.get("exclusive"):
                    continue
                old = newest.get(rel.relation_type)
                newest[rel.relation_type] = rel
                if old is not None and old.target_id != rel.target_id:
                    await graph.supersede_relationship(old.id, rel.id, at=rel.created_at)
