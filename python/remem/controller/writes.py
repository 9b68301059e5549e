"""Memory writes: remember (all-or-nothing), forget, supersede.

The record store is the source of truth; the staged collection (vector) and the episodic note
(full text) are indexes of it. So:

* ``remember`` validates everything and embeds once *before* writing, then writes record →
  vector → note. If the vector write fails the record is deleted; if the note fails the vector
  and the record are deleted; the original error is re-raised (a failed compensation is recorded
  in ``failures()``). Entities named by ``entities=`` are resolved and upserted first: the graph
  has no delete, so a later failure can leave an unlinked entity (harmless, documented).
* ``forget`` sets the stage ``deleted`` in the record store first (recall checks it), then
  removes the vector; a failed removal leaves an orphan vector that recall already ignores, and
  is recorded. The episodic note stays (episodes are immutable) and is filtered the same way.
* ``supersede`` marks the old record ``superseded_by`` (record store; it stays there for history)
  and removes its vector.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

import numpy as np
from numpy.typing import NDArray

from remem.controller.failures import BackgroundFailure, FailureLog
from remem.embeddings import EmbeddingService
from remem.errors import InvalidArgumentError, NonFiniteError, ShapeError
from remem.graph import EntityResolver
from remem.models import (
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    ProvenanceMetadata,
    check_metadata,
    check_text,
)
from remem.staging import STAGED, CollectionManager
from remem.stores.episodic import EpisodicStore
from remem.stores.records import RecordStore

MAX_TEXT_CHARS = 1_000_000


class MemoryWriter:
    """remember / forget / supersede over the record store, collections and episodic notes."""

    def __init__(
        self,
        *,
        record_store: RecordStore,
        episodic_store: EpisodicStore,
        collection_manager: CollectionManager,
        resolver: EntityResolver,
        failures: FailureLog,
        now: Callable[[], datetime],
    ) -> None:
        self.records = record_store
        self.episodic = episodic_store
        self.collections = collection_manager
        self.resolver = resolver
        self._failures = failures
        self._now = now

    @property
    def embeddings(self) -> EmbeddingService:
        return self.collections.embeddings

    async def remember(
        self,
        text: str,
        *,
        kind: MemoryKind | str = MemoryKind.FACT,
        provenance: ProvenanceMetadata | None = None,
        namespace: str = "default",
        session_id: str | None = None,
        metadata: Mapping[str, object] | None = None,
        entities: Sequence[str] | None = None,
        vector: NDArray[np.float32] | Sequence[float] | None = None,
        memory_id: str | None = None,
    ) -> MemoryRecord:
        now = self._now()
        _check_memory_text(text)
        try:
            memory_kind = MemoryKind(kind)
        except ValueError:
            raise InvalidArgumentError(
                f"kind {kind!r} is unknown; use one of {', '.join(k.value for k in MemoryKind)}"
            ) from None
        if provenance is None:
            provenance = ProvenanceMetadata(source_type="user", created_at=now)
        elif not isinstance(provenance, ProvenanceMetadata):
            raise InvalidArgumentError(
                f"provenance must be a ProvenanceMetadata, got {type(provenance).__name__}"
            )
        names = _entity_names(entities)
        record = MemoryRecord(
            id=memory_id if memory_id is not None else f"mem-{uuid.uuid4().hex}",
            text=text,
            kind=memory_kind,
            namespace=namespace,
            session_id=session_id,
            lifecycle=MemoryLifecycleMetadata(
                stage=MemoryStage.SHORT_TERM,
                base_score=1.0,
                score_reference_time=now,
                created_at=now,
            ),
            provenance=provenance,
            metadata=dict(check_metadata(metadata)),
        )
        if vector is None:
            vectors = await self.embeddings.embed_documents([text])
        else:
            vectors = _check_vector(vector, self.embeddings.dimension)[None, :]
        if names:
            resolved = [await self.resolver.resolve(n, namespace=namespace) for n in names]
            written = await self.resolver.upsert_resolved(resolved, provenance=provenance)
            record = record.replace(entity_ids=tuple(e.id for e in written))
        await self.records.put([record])
        try:
            await self.collections.add([record], vectors=vectors)
        except BaseException:
            await self._compensate(record, vector_written=False)
            raise
        try:
            await self.episodic.add_note(
                record.id,
                text,
                created_at=now,
                session_id=session_id,
                metadata={"kind": memory_kind.value, "namespace": namespace},
            )
        except BaseException:
            await self._compensate(record, vector_written=True)
            raise
        return record

    async def _compensate(self, record: MemoryRecord, *, vector_written: bool) -> None:
        try:
            if vector_written:
                await self.collections.remove([record.id], record.lifecycle.stage)
            await self.records.delete([record.id])
        except Exception as exc:
            self._failures.add(BackgroundFailure("compensation", self._now(), (record.id,), exc))

    async def forget(self, ids: Sequence[str]) -> int:
        """Move ``ids`` to the deleted stage and drop their vectors; return how many changed."""
        unique = _ids(ids, "forget")
        if not unique:
            return 0
        records = await self.records.get(unique)  # NotFoundError names unknown ids; no change
        live = [r for r in records if r.lifecycle.stage is not MemoryStage.DELETED]
        if not live:
            return 0
        await self.records.update_lifecycle(
            [(r.id, r.lifecycle.replace(stage=MemoryStage.DELETED)) for r in live]
        )
        for stage in STAGED:
            in_stage = [r.id for r in live if r.lifecycle.stage is stage]
            if in_stage:
                await self._remove_vectors(in_stage, stage)
        return len(live)

    async def supersede(self, old_id: str, new_id: str) -> None:
        """``old_id`` is replaced by ``new_id``: kept for history, never recalled again."""
        for name, value in (("old_id", old_id), ("new_id", new_id)):
            if not isinstance(value, str) or not value:
                raise InvalidArgumentError(f"{name} must be a non-empty memory id, got {value!r}")
        if old_id == new_id:
            raise InvalidArgumentError(f"a memory cannot supersede itself ({old_id!r})")
        old, new = await self.records.get([old_id, new_id])
        if new.superseded_by is not None or new.lifecycle.stage is MemoryStage.DELETED:
            raise InvalidArgumentError(
                f"{new_id!r} is itself superseded or deleted; supersede with a live memory"
            )
        await self.records.supersede(old_id, new_id, at=self._now())
        if old.lifecycle.stage in STAGED:
            await self._remove_vectors([old_id], old.lifecycle.stage)

    async def _remove_vectors(self, ids: list[str], stage: MemoryStage) -> None:
        try:
            await self.collections.remove(ids, stage)
        except Exception as exc:  # an orphan vector is ignored by recall; make it visible
            self._failures.add(BackgroundFailure("vector_cleanup", self._now(), tuple(ids), exc))


def _check_memory_text(text: object) -> None:
    if not isinstance(text, str):
        raise InvalidArgumentError(f"remember takes a str, got {type(text).__name__}")
    if not text.strip():
        raise InvalidArgumentError("the text to remember is empty; pass what to remember")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidArgumentError(
            f"the text has {len(text)} characters; split it below {MAX_TEXT_CHARS}"
        )
    check_text(text)


def _entity_names(entities: Sequence[str] | None) -> list[str]:
    if entities is None:
        return []
    if isinstance(entities, str):
        raise InvalidArgumentError(f"entities takes a list of names, got the string {entities!r}")
    names = list(entities)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise InvalidArgumentError(f"entity names must be non-empty strings, got {name!r}")
        check_text(name, field="entity name")
    return names


def _check_vector(vector: object, dimension: int) -> NDArray[np.float32]:
    try:
        v = np.asarray(vector, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"vector must be a sequence of numbers: {exc}") from exc
    if v.shape != (dimension,):
        raise ShapeError(f"vector has shape {v.shape}; the embedder's is ({dimension},)")
    if not np.isfinite(v).all():
        raise NonFiniteError("vector contains NaN or infinity; pass finite numbers")
    return np.ascontiguousarray(v)


def _check_vectors(vectors: object, count: int, dimension: int) -> NDArray[np.float32]:
    try:
        v = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"vectors must be a 2-d array of numbers: {exc}") from exc
    if v.shape != (count, dimension):
        raise ShapeError(f"vectors has shape {v.shape}; expected ({count}, {dimension})")
    if not np.isfinite(v).all():
        raise NonFiniteError("vectors contain NaN or infinity; pass finite numbers")
    return np.ascontiguousarray(v)


def _ids(ids: Sequence[str], action: str) -> list[str]:
    if isinstance(ids, str):
        raise InvalidArgumentError(f"{action} takes a list of ids, got the string {ids!r}")
    out = list(dict.fromkeys(ids))
    bad = [i for i in out if not isinstance(i, str) or not i]
    if bad:
        raise InvalidArgumentError(f"{action}: ids must be non-empty strings, got {bad[:5]!r}")
    return out


def check_query_vectors(vectors: object, count: int, dimension: int) -> NDArray[np.float32]:
    """Validated (count, dimension) float32 query vectors."""
    return _check_vectors(vectors, count, dimension)
