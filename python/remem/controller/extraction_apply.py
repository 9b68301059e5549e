"""Applying an ExtractionResult: entities through the resolver, relationships into the graph,
memories through ``remember`` (provenance: ``source_type="extraction"``, ``source_id`` = the
last turn's id, ``parent_ids`` = every turn id of the batch), all in the batch's namespace (the
session's scope: one ``user`` entity per namespace, never one shared by every scope).

Relationship ids are deterministic (sha256 of source, type, target and the batch's turn ids),
so applying the same batch twice is detected by the graph store instead of duplicating edges.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from remem.controller.extraction import ExtractedMemory, ExtractionResult
from remem.controller.extraction_queue import ExtractionBatch
from remem.errors import InvalidArgumentError
from remem.graph import EntityResolver, ResolvedEntity
from remem.models import MemoryRecord, ProvenanceMetadata, Relationship
from remem.models.keyed_facts import normalize_key_part
from remem.stores.graph import GraphStore

Remember = Callable[..., Awaitable[MemoryRecord]]


def fact_key(memory: ExtractedMemory) -> dict[str, object]:
    """The metadata that makes a memory a keyed fact (see :class:`ExtractedMemory`); empty when
    the extractor gave no subject and attribute."""
    if not memory.subject or not memory.attribute:
        return {}
    key: dict[str, object] = {
        "subject": normalize_key_part(memory.subject),
        "attribute": normalize_key_part(memory.attribute),
    }
    if memory.value is not None:
        key["value"] = memory.value
    if memory.operation != "set":
        key["operation"] = memory.operation
    if memory.previous is not None:
        key["previous"] = memory.previous
    return key


async def apply_extraction(
    result: ExtractionResult,
    batch: ExtractionBatch,
    *,
    resolver: EntityResolver,
    graph_store: GraphStore,
    remember: Remember,
    now: datetime,
    namespace: str = "default",
) -> list[MemoryRecord]:
    """Apply ``result`` to the stores in ``namespace``; return the memory records it created,
    in order."""
    if not isinstance(result, ExtractionResult):
        raise InvalidArgumentError(
            f"the extractor returned {type(result).__name__}; return an ExtractionResult"
        )
    turn_ids = batch.turn_ids
    provenance = ProvenanceMetadata(
        source_id=turn_ids[-1],
        source_type="extraction",
        created_at=now,
        parent_ids=turn_ids,
    )
    types: dict[str, str | None] = {}
    for e in result.entities:
        types.setdefault(e.name, e.entity_type)
    for r in result.relationships:
        types.setdefault(r.source, None)
        types.setdefault(r.target, None)
    resolved: dict[str, ResolvedEntity] = {}
    for name, etype in types.items():
        resolved[name] = await resolver.resolve(name, etype, namespace)
    if resolved:
        await resolver.upsert_resolved(list(resolved.values()), provenance=provenance)
    rels = []
    for r in result.relationships:
        src, dst = resolved[r.source].entity_id, resolved[r.target].entity_id
        key = "\x1f".join((src, r.relation_type, dst, *turn_ids)).encode("utf-8")
        # The entity ids already differ per namespace (entity_id_for hashes it), so the key does.
        rels.append(
            Relationship(
                id="rel-" + hashlib.sha256(key).hexdigest()[:24],
                source_id=src,
                target_id=dst,
                relation_type=r.relation_type,
                namespace=namespace,
                attributes={"exclusive": True} if r.exclusive else {},
                valid_from=r.valid_from,
                provenance=provenance.replace(confidence=r.confidence),
                created_at=now,
            )
        )
    if rels:
        await graph_store.add_relationships(rels)
    created: list[MemoryRecord] = []
    for m in result.memories:
        kwargs: dict[str, Any] = {
            "kind": m.kind,
            "provenance": provenance.replace(confidence=m.confidence),
            "session_id": batch.session_id,
            "namespace": namespace,
        }
        if m.entities:
            kwargs["entities"] = list(m.entities)
        keyed = fact_key(m)
        if keyed:
            kwargs["metadata"] = keyed
        created.append(await remember(m.text, **kwargs))
    return created
