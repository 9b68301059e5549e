"""The JSON a model answers an extraction request with: pydantic models, the JSON schema sent as
``response_format``, and the conversion to an :class:`~remem.controller.ExtractionResult`.

The shape::

    {"entities":      [{"name": "Lisbon", "type": "place"}],
     "relationships": [{"source": "user", "relation": "lives_in", "target": "Lisbon",
                        "valid_from": "2026-04-01", "exclusive": true}],
     "facts":         [{"subject": "user", "attribute": "city", "value": "Lisbon",
                        "text": "The user lives in Lisbon.", "operation": "set",
                        "previous": null}],
     "insights":      ["The user is settling into a new city."],
     "summary":       "The user moved to Lisbon last month."}

The schema sent to the model asks for every key (OpenAI's strict mode requires it); the
validator is more forgiving and treats a missing list as empty and a missing summary as none,
because a repair call for an omitted empty list is wasted. Anything else that does not fit —
an unknown key, an empty name, a ``valid_from`` that is not an ISO date — is a validation error
the extractor quotes back to the model once.

A fact's ``operation`` says what the statement does: ``set`` (a value holds from now on — a
move, a new job, a new pet), ``end`` (it stopped holding and nothing replaces it — "I'm not
vegan any more", "Sam and I split up", "our dog Rex died"; ``value`` is what ended, or
``"none"``) or ``correct`` (``value`` replaces a misstatement, ``previous``, that was never
true — "sorry, Thursday, not Wednesday"). ``previous`` is also the old name of a renamed thing.
A missing operation is ``set`` and a missing previous is null.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

import pydantic

from remem.controller.extraction import (
    ExtractedEntity,
    ExtractedMemory,
    ExtractedRelationship,
    ExtractionResult,
)
from remem.extraction.vocabulary import EXCLUSIVE_RELATIONS
from remem.models import MemoryKind

__all__ = [
    "RESPONSE_FORMAT",
    "SCHEMA_NAME",
    "EntityOut",
    "ExtractionOutput",
    "FactOut",
    "RelationshipOut",
    "parse_valid_from",
    "to_result",
]

SCHEMA_NAME = "memory_extraction"

_ATTRIBUTE_ALIASES = {
    "favorite_food": "favourite_food",
    "location": "city",
    "residence": "city",
    "job": "job_title",
    "occupation": "job_title",
    "profession": "job_title",
    "company": "employer",
    "workplace": "employer",
    "spouse": "partner",
    "allergies": "allergy",
    "hobbies": "hobby",
    "pets": "pet",
}


def _snake(value: str) -> str:
    return re.sub(r"[\s\-]+", "_", value.strip().lower())


class _Out(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class EntityOut(_Out):
    name: str = pydantic.Field(min_length=1, max_length=200, description="as written in the turns")
    type: str = pydantic.Field(
        default="thing",
        min_length=1,
        max_length=40,
        description="person, place, org, animal, event or thing",
    )

    @pydantic.field_validator("type")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.lower()


class RelationshipOut(_Out):
    source: str = pydantic.Field(min_length=1, max_length=200)
    relation: str = pydantic.Field(min_length=1, max_length=60, description="snake_case verb")
    target: str = pydantic.Field(min_length=1, max_length=200)
    valid_from: str | None = pydantic.Field(
        default=None, description="ISO date (YYYY-MM-DD) the relation began, or null if unknown"
    )
    exclusive: bool = pydantic.Field(
        default=False, description="true when the source can hold only one such relation"
    )

    @pydantic.field_validator("relation")
    @classmethod
    def _relation(cls, value: str) -> str:
        return _snake(value)

    @pydantic.field_validator("valid_from")
    @classmethod
    def _iso(cls, value: str | None) -> str | None:
        if value is not None and not value:
            return None
        if value is not None:
            parse_valid_from(value)
        return value


class FactOut(_Out):
    subject: str = pydantic.Field(
        min_length=1, max_length=200, description='"user" for the person talking'
    )
    attribute: str = pydantic.Field(min_length=1, max_length=60)
    value: str = pydantic.Field(min_length=1, max_length=500)
    text: str = pydantic.Field(min_length=1, max_length=2000, description="one sentence")
    operation: Literal["set", "end", "correct"] = pydantic.Field(
        default="set",
        description="set: the value holds from now on; end: the fact stopped holding and "
        "nothing replaces it (value = what ended, or none); correct: value replaces a "
        "misstatement (previous)",
    )
    previous: str | None = pydantic.Field(
        default=None,
        max_length=500,
        description="the misstated value a correction replaces, or the old name of a renamed "
        "thing; null otherwise",
    )

    @pydantic.field_validator("previous")
    @classmethod
    def _previous(cls, value: str | None) -> str | None:
        return value or None

    @pydantic.field_validator("attribute")
    @classmethod
    def _attribute(cls, value: str) -> str:
        snake = _snake(value)
        return _ATTRIBUTE_ALIASES.get(snake, snake)


_Insight = Annotated[str, pydantic.StringConstraints(min_length=1, max_length=2000)]


class ExtractionOutput(_Out):
    entities: list[EntityOut] = pydantic.Field(default_factory=list)
    relationships: list[RelationshipOut] = pydantic.Field(default_factory=list)
    facts: list[FactOut] = pydantic.Field(default_factory=list)
    insights: list[_Insight] = pydantic.Field(default_factory=list)
    summary: str | None = pydantic.Field(default=None, max_length=4000)


def parse_valid_from(value: str) -> datetime:
    """``YYYY-MM-DD`` (midnight UTC) or an ISO datetime (naive means UTC).

    Raises ValueError (pydantic turns it into a validation error) for anything else.
    """
    try:
        if len(value) == 10:
            d = date.fromisoformat(value)
            return datetime(d.year, d.month, d.day, tzinfo=UTC)
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"valid_from must be an ISO date like 2026-04-01 or null, got {value!r}"
        ) from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _strict(node: Any) -> Any:
    """The pydantic schema in the form strict structured output accepts: no titles or
    defaults, every property required."""
    if isinstance(node, list):
        return [_strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items() if k not in ("title", "default")}
    if out.get("type") == "object" and "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": SCHEMA_NAME,
        "strict": True,
        "schema": _strict(ExtractionOutput.model_json_schema()),
    },
}
"""OpenAI's ``response_format`` shape (the Anthropic adapter emulates it)."""


def _mentions(text: str, names: list[str]) -> tuple[str, ...]:
    lowered = text.casefold()
    return tuple(
        n for n in names if re.search(r"(?<!\w)" + re.escape(n.casefold()) + r"(?!\w)", lowered)
    )


def to_result(output: ExtractionOutput) -> ExtractionResult:
    """Entities and relationships as given (a relation in :data:`EXCLUSIVE_RELATIONS` is
    exclusive whatever the model said); facts become keyed memories (kind ``fact``) linked to the
    entities named by their subject or value, with their operation and previous value;
    insights become ``insight`` memories and the summary a ``summary`` memory, each linked to
    the entities its text mentions."""
    names = list(dict.fromkeys(e.name for e in output.entities))
    known = {n.casefold(): n for n in names}
    relationships = tuple(
        ExtractedRelationship(
            source=r.source,
            relation_type=r.relation,
            target=r.target,
            valid_from=None if r.valid_from is None else parse_valid_from(r.valid_from),
            exclusive=r.exclusive or r.relation in EXCLUSIVE_RELATIONS,
        )
        for r in output.relationships
    )
    memories: list[ExtractedMemory] = []
    for f in output.facts:
        linked = tuple(
            dict.fromkeys(
                known[x.casefold()] for x in (f.subject, f.value) if x.casefold() in known
            )
        )
        memories.append(
            ExtractedMemory(
                f.text,
                kind=MemoryKind.FACT,
                entities=linked,
                subject=f.subject,
                attribute=f.attribute,
                value=f.value,
                operation=f.operation,
                previous=f.previous,
            )
        )
    for text in output.insights:
        memories.append(
            ExtractedMemory(text, kind=MemoryKind.INSIGHT, entities=_mentions(text, names))
        )
    if output.summary:
        memories.append(
            ExtractedMemory(
                output.summary,
                kind=MemoryKind.SUMMARY,
                entities=_mentions(output.summary, names),
            )
        )
    return ExtractionResult(
        entities=tuple(ExtractedEntity(e.name, e.type) for e in output.entities),
        relationships=relationships,
        memories=tuple(memories),
    )
