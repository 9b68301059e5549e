"""Entity/Relationship <-> flat table row, shared by the DuckDB and PostgreSQL graph stores.

Provenance and attributes are stored as JSON text (they are round-tripped, not filtered on); the
entity's name is also stored normalised (:func:`normalise_name`) in an indexed column, and so is
each alias, in a side table, so ``find_entities`` is an index lookup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from remem.errors import InvalidArgumentError
from remem.models import Entity, ProvenanceMetadata, Relationship
from remem.stores.shared.record_rows import decode_required, decode_time, dump_json, load_json

ENTITY_COLUMNS: tuple[str, ...] = (
    "id",
    "name",
    "name_norm",
    "entity_type",
    "aliases",
    "attributes",
    "namespace",
    "access_count",
    "provenance",
    "created_at",
    "updated_at",
)
RELATIONSHIP_COLUMNS: tuple[str, ...] = (
    "id",
    "source_id",
    "target_id",
    "relation_type",
    "attributes",
    "namespace",
    "valid_from",
    "valid_to",
    "superseded_by",
    "access_count",
    "provenance",
    "created_at",
)
ENTITY_TIME_COLUMNS = frozenset({"created_at", "updated_at"})
RELATIONSHIP_TIME_COLUMNS = frozenset({"valid_from", "valid_to", "created_at"})


def normalise_name(name: str) -> str:
    """The lookup key of a name or alias: casefolded, runs of whitespace collapsed to one space."""
    return " ".join(name.casefold().split())


def _dump_provenance(p: ProvenanceMetadata) -> str:
    return json.dumps(p.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))


def _load_provenance(value: object) -> ProvenanceMetadata:
    return ProvenanceMetadata.model_validate(load_json(value))


def check_items(items: Sequence[Any], kind: type, *, action: str) -> list[Any]:
    if isinstance(items, str | bytes) or not isinstance(items, Sequence):
        raise InvalidArgumentError(f"{action} takes a sequence of {kind.__name__}")
    out = list(items)
    for i, item in enumerate(out):
        if not isinstance(item, kind):
            raise InvalidArgumentError(
                f"{action}: item {i} is a {type(item).__name__}, not a {kind.__name__}"
            )
    return out


def entity_to_row(e: Entity) -> tuple[object, ...]:
    return (
        e.id,
        e.name,
        normalise_name(e.name),
        e.entity_type,
        list(e.aliases),
        dump_json(e.attributes),
        e.namespace,
        e.access_count,
        _dump_provenance(e.provenance),
        e.created_at,
        e.updated_at,
    )


def alias_rows(e: Entity) -> list[tuple[str, str]]:
    """(entity_id, alias_norm) pairs, one per distinct normalised alias."""
    return [(e.id, norm) for norm in dict.fromkeys(normalise_name(a) for a in e.aliases) if norm]


def row_to_entity(row: Sequence[Any]) -> Entity:
    return Entity(
        id=row[0],
        name=row[1],
        entity_type=row[3],
        aliases=tuple(row[4] or ()),
        attributes=load_json(row[5]),
        namespace=row[6],
        access_count=int(row[7]),
        provenance=_load_provenance(row[8]),
        created_at=decode_required(row[9]),
        updated_at=decode_required(row[10]),
    )


def relationship_to_row(r: Relationship) -> tuple[object, ...]:
    return (
        r.id,
        r.source_id,
        r.target_id,
        r.relation_type,
        dump_json(r.attributes),
        r.namespace,
        r.valid_from,
        r.valid_to,
        r.superseded_by,
        r.access_count,
        _dump_provenance(r.provenance),
        r.created_at,
    )


def row_to_relationship(row: Sequence[Any]) -> Relationship:
    return Relationship(
        id=row[0],
        source_id=row[1],
        target_id=row[2],
        relation_type=row[3],
        attributes=load_json(row[4]),
        namespace=row[5],
        valid_from=decode_time(row[6]),
        valid_to=decode_time(row[7]),
        superseded_by=row[8],
        access_count=int(row[9]),
        provenance=_load_provenance(row[10]),
        created_at=decode_required(row[11]),
    )
