"""Memory writes: remember (all-or-nothing), forget, supersede.

The record store is the source of truth; the staged collection (vector) and the episodic note
(full text) are indexes of it. Storing a fresh memory in all three is the write port's
(:mod:`remem.writebehind.port`: record and vector, then the note, undone on failure, run to its
end if the caller is cancelled); here:

* ``remember`` validates everything and embeds once *before* writing. Concurrent ``remember``
  calls are group-committed by a :class:`WriteBatcher`: everything queued while a batch is
  being written goes out as the next batch (one transaction per store), each call keeping its
  own all-or-nothing outcome. Entities named by ``entities=`` are resolved and upserted first:
  the graph has no delete, so a later failure can leave an unlinked entity (harmless,
  documented). With a journaled port (write-behind, the Runtime's embedded default) a
  ``remember`` without its own ``memory_id`` is journaled instead and returns; the journal
  applies it later, in a batch, idempotently (a store failure keeps it journaled and surfaces
  as PendingWritesError on the next call that waits for it, never as a lost memory).
* ``remember_many`` is the same for a batch: every item is validated first (a bad one raises
  naming its index; nothing is written), embedded in one call, then one write through the port
  (confirmed by the stores, journal or not). It takes no ``entities`` (the graph has no delete
  to compensate with).
* ``forget`` sets the stage ``deleted`` in the record store first (recall checks it), then
  removes the vector; a failed removal leaves an orphan vector that recall already ignores, and
  is recorded. The episodic note stays (episodes are immutable) and is filtered the same way.
* ``supersede`` marks the old record ``superseded_by`` (record store; it stays there for history)
  and removes its vector; ``supersede_many`` does the same for many pairs in one record-store
  batch and one vector removal per stage (the consolidator's path).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from numpy.typing import NDArray

from remem.controller.scope_checks import memory_scope
from remem.controller.write_batcher import WriteBatcher
from remem.embeddings import EmbeddingService
from remem.errors import InputError, InvalidArgumentError, NonFiniteError, ShapeError, shown
from remem.failures import BackgroundFailure
from remem.graph import EntityResolver
from remem.models import (
    MemoryKind,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    ProvenanceMetadata,
    check_metadata,
    check_text,
    require_aware,
)
from remem.staging import STAGED, CollectionManager
from remem.stores.records import RecordStore
from remem.stores.shared.vector_input import check_id, check_norms
from remem.writebehind import WritePort

MAX_TEXT_CHARS = 1_000_000


class MemoryWriter:
    """remember / forget / supersede: validation and embedding here, the writes through the port
    (fresh memories) or the record store and collections (forget, supersede)."""

    def __init__(
        self,
        *,
        record_store: RecordStore,
        collection_manager: CollectionManager,
        resolver: EntityResolver,
        writes: WritePort,
        now: Callable[[], datetime],
    ) -> None:
        self.records = record_store
        self.writes = writes
        self.collections = collection_manager
        self.resolver = resolver
        self._failures = writes.failures
        self._now = now
        self._batcher: WriteBatcher[tuple[MemoryRecord, NDArray[np.float32]]] = WriteBatcher(
            self._store_batched
        )

    @property
    def embeddings(self) -> EmbeddingService:
        return self.collections.embeddings

    async def remember(
        self,
        record: MemoryRecord,
        *,
        entities: Sequence[str] | None,
        vector: NDArray[np.float32] | Sequence[float] | None,
        own_id: bool,
    ) -> MemoryRecord:
        """Store ``record`` (from :func:`build_record`): its vector (embedded now unless
        ``vector``), its ``entities`` resolved and linked; ``own_id`` when the caller chose the
        memory id (the stores confirm it, so a duplicate raises here)."""
        text, namespace = record.text, record.namespace
        names = _entity_names(entities)
        if vector is None:
            vectors = await self.embeddings.embed_documents([text])
        else:
            vectors = _check_vector(vector, self.embeddings.dimension)[None, :]
        if names:
            resolved = [await self.resolver.resolve(n, namespace=namespace) for n in names]
            written = await self.resolver.upsert_resolved(resolved, provenance=record.provenance)
            record = record.replace(entity_ids=tuple(e.id for e in written))
        if self.writes.journaled and not own_id:
            # Write-behind: durable in the journal now, in the stores with the next batch. A
            # caller's own id is confirmed by the stores (batched), so a duplicate raises here.
            await self.writes.store_memories([record], vectors)
        else:
            await self._batcher.submit((record, vectors))
        return record

    async def remember_many(
        self,
        items: Sequence[str | MemorySpec],
        defaults: MemoryDefaults,
        vectors: NDArray[np.float32] | Sequence[Sequence[float]] | None,
    ) -> list[MemoryRecord]:
        """``remember`` for many memories: validate all, embed once, one batch per store; an
        item's field left None takes ``defaults``."""
        if isinstance(items, str) or not isinstance(items, Sequence):
            raise InvalidArgumentError("remember_many takes a list of texts or MemorySpec")
        kind, provenance, namespace = defaults.kind, defaults.provenance, defaults.namespace
        session_id, metadata = defaults.session_id, defaults.metadata
        now = self._now()
        records: list[MemoryRecord] = []
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            spec = item if isinstance(item, MemorySpec) else MemorySpec(item)
            try:
                record = build_record(
                    spec.text,
                    kind=kind if spec.kind is None else spec.kind,
                    provenance=provenance,
                    namespace=namespace if spec.namespace is None else spec.namespace,
                    session_id=session_id if spec.session_id is None else spec.session_id,
                    metadata=metadata if spec.metadata is None else spec.metadata,
                    memory_id=spec.memory_id,
                    now=now,
                )
            except InputError as exc:
                raise type(exc)(f"item {i}: {exc}") from exc
            if record.id in seen:
                raise InvalidArgumentError(
                    f"item {i} repeats the memory_id {record.id!r} of item {seen[record.id]}; "
                    "give each memory its own id"
                )
            seen[record.id] = i
            records.append(record)
        if not records:
            return []
        dim = self.embeddings.dimension
        if vectors is None:
            batch = await self.embeddings.embed_documents([r.text for r in records])
        else:
            batch = _check_vectors(vectors, len(records), dim)
        # The port runs the write to its end even if we are cancelled: all stored, or none.
        await self.writes.store_memories(records, batch, confirm=True)
        return records

    async def _store_batched(self, items: list[tuple[MemoryRecord, NDArray[np.float32]]]) -> None:
        """The batcher's write: concurrent ``remember`` calls as one batch per store."""
        records = [r for r, _ in items]
        vectors = items[0][1] if len(items) == 1 else np.vstack([v for _, v in items])
        await self.writes.store_memories(records, vectors, confirm=True)

    async def forget(self, ids: Sequence[str]) -> int:
        """Move ``ids`` to the deleted stage and drop their vectors; return how many changed."""
        unique = _ids(ids, "forget")
        if not unique:
            return 0
        await self.writes.barrier()  # a memory remembered a moment ago may still be journaled
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

    async def supersede(self, old_id: str, new_id: str, *, at: datetime | None = None) -> None:
        """``old_id`` is replaced by ``new_id``: kept for history, never recalled again."""
        await self.supersede_many([(old_id, new_id, at)])

    async def supersede_many(
        self, items: Sequence[tuple[str, str, datetime | None]], *, across_scopes: bool = False
    ) -> None:
        """Each ``(old_id, new_id, at)``: ``old_id`` replaced by ``new_id`` with ``valid_to`` at
        ``at`` (None = now). All or nothing in the record store; a replacement must be live
        before the call (a chain 1 → 2 → 3 in one batch is fine) and in the old record's
        namespace unless ``across_scopes`` (an explicit handoff)."""
        if isinstance(items, str) or not isinstance(items, Sequence):
            raise InvalidArgumentError("supersede_many takes a list of (old_id, new_id, at)")
        now = self._now()
        batch: list[tuple[str, str, datetime]] = []
        for item in items:
            if not isinstance(item, tuple) or len(item) != 3:
                raise InvalidArgumentError(f"{item!r} is not an (old_id, new_id, at) triple")
            old_id, new_id, at = item
            for name, value in (("old_id", old_id), ("new_id", new_id)):
                check_id(value, field=name)
            if old_id == new_id:
                raise InvalidArgumentError(f"a memory cannot supersede itself ({old_id!r})")
            batch.append((old_id, new_id, now if at is None else at))
        if not batch:
            return
        ids = list(dict.fromkeys(i for old, new, _ in batch for i in (old, new)))
        await self.writes.barrier()  # both memories may still be journaled
        found = {r.id: r for r in await self.records.get(ids)}
        for old_id, new_id, _ in batch:
            if found[old_id].lifecycle.stage is MemoryStage.DELETED:
                raise InvalidArgumentError(
                    f"{old_id!r} is deleted (forgotten); only a live or superseded memory can "
                    "be superseded"
                )
            new = found[new_id]
            if new.namespace != found[old_id].namespace and not across_scopes:
                # A scope's memory is never replaced by another scope's (B cannot end A's facts).
                raise InvalidArgumentError(
                    f"{new_id!r} is in namespace {new.namespace!r} and {old_id!r} in "
                    f"{found[old_id].namespace!r}; a memory is superseded within its namespace"
                )
            if new.superseded_by is not None or new.lifecycle.stage is MemoryStage.DELETED:
                raise InvalidArgumentError(
                    f"{new_id!r} is itself superseded or deleted; supersede with a live memory"
                )
        await self.records.supersede_many(batch)
        for stage in STAGED:
            in_stage = [
                old
                for old, _, _ in batch
                if found[old].lifecycle.stage is stage and found[old].superseded_by is None
            ]
            if in_stage:
                await self._remove_vectors(in_stage, stage)

    async def _remove_vectors(self, ids: list[str], stage: MemoryStage) -> None:
        try:
            await self.collections.remove(ids, stage)
        except Exception as exc:  # an orphan vector is ignored by recall; make it visible
            self._failures.add(BackgroundFailure("vector_cleanup", self._now(), tuple(ids), exc))


@dataclass(frozen=True, slots=True)
class MemoryDefaults:
    """The keyword defaults of one ``remember_many`` call (see :class:`MemorySpec`)."""

    kind: MemoryKind | str
    provenance: ProvenanceMetadata | None
    namespace: str
    session_id: str | None
    metadata: Mapping[str, object] | None


@dataclass(frozen=True, slots=True)
class MemorySpec:
    """One memory for ``remember_many``; a field left ``None`` takes the call's default.

    Example: ``MemorySpec("Ana lives in Lisbon", kind="preference", memory_id="m1")``.
    """

    text: str
    kind: MemoryKind | str | None = None
    namespace: str | None = None
    session_id: str | None = None
    metadata: Mapping[str, object] | None = None
    memory_id: str | None = None


def build_record(
    text: object,
    *,
    kind: MemoryKind | str,
    provenance: ProvenanceMetadata | None,
    namespace: str,
    session_id: str | None,
    metadata: Mapping[str, object] | None,
    memory_id: str | None,
    now: datetime,
    valid_from: datetime | None = None,
) -> MemoryRecord:
    """A validated short-term record (base score 1.0), or the typed error naming what is bad."""
    _check_memory_text(text)
    assert isinstance(text, str)
    try:
        if not isinstance(kind, str):  # Enum's own message would repr any object
            raise ValueError(kind)
        memory_kind = MemoryKind(kind)
    except ValueError:
        raise InvalidArgumentError(
            f"kind {shown(kind)} is unknown; use one of {', '.join(k.value for k in MemoryKind)}"
        ) from None
    if provenance is None:
        provenance = ProvenanceMetadata(source_type="user", created_at=now)
    elif not isinstance(provenance, ProvenanceMetadata):
        raise InvalidArgumentError(
            f"provenance must be a ProvenanceMetadata, got {type(provenance).__name__}"
        )
    return MemoryRecord(
        id=memory_id if memory_id is not None else f"mem-{uuid.uuid4().hex}",
        text=text,
        kind=memory_kind,
        namespace=memory_scope(namespace),
        session_id=session_id,
        lifecycle=MemoryLifecycleMetadata(
            stage=MemoryStage.SHORT_TERM,
            base_score=1.0,
            score_reference_time=now,
            created_at=now,
        ),
        provenance=provenance,
        metadata=dict(check_metadata(metadata)),
        valid_from=_check_valid_from(valid_from),
    )


def _check_valid_from(value: object) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidArgumentError(f"valid_from must be a datetime, got {type(value).__name__}")
    return require_aware(value, field="valid_from")


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
    if isinstance(entities, str | bytes) or not isinstance(entities, Sequence):
        raise InvalidArgumentError(f"entities takes a list of names, got {shown(entities)}")
    names = list(entities)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise InvalidArgumentError(f"entity names must be non-empty strings, got {shown(name)}")
        check_text(name, field="entity name")
    return names


def _check_vector(vector: object, dimension: int) -> NDArray[np.float32]:
    try:
        v = np.asarray(vector, dtype=np.float32)
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise InvalidArgumentError(f"vector must be a sequence of numbers: {exc}") from exc
    if v.shape != (dimension,):
        raise ShapeError(f"vector has shape {v.shape}; the embedder's is ({dimension},)")
    if not np.isfinite(v).all():
        raise NonFiniteError("vector contains NaN or infinity; pass finite numbers")
    check_norms(v[None, :], field="vector")
    return np.ascontiguousarray(v)


def _check_vectors(vectors: object, count: int, dimension: int) -> NDArray[np.float32]:
    try:
        v = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise InvalidArgumentError(f"vectors must be a 2-d array of numbers: {exc}") from exc
    if v.shape != (count, dimension):
        raise ShapeError(f"vectors has shape {v.shape}; expected ({count}, {dimension})")
    if not np.isfinite(v).all():
        raise NonFiniteError("vectors contain NaN or infinity; pass finite numbers")
    check_norms(v, field="vectors")
    return np.ascontiguousarray(v)


def _ids(ids: Sequence[str], action: str) -> list[str]:
    if isinstance(ids, str | bytes) or not isinstance(ids, Sequence):
        raise InvalidArgumentError(
            f"{action} takes a list of ids, got {type(ids).__name__} {shown(ids)}"
        )
    bad = [i for i in ids if not isinstance(i, str) or not i]
    if bad:
        raise InvalidArgumentError(f"{action}: ids must be non-empty strings, got {bad[:5]!r}")
    out = list(dict.fromkeys(ids))
    for value in out:
        check_id(value, field=f"{action} id")
    return out


def check_query_vector(vector: object) -> NDArray[np.float32]:
    """One query vector as a (1, d) float32 batch (shape and values checked with the batch)."""
    try:
        return np.asarray([vector], dtype=np.float32)
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise InvalidArgumentError(f"vector must be a sequence of numbers: {exc}") from exc


def check_query_vectors(vectors: object, count: int, dimension: int) -> NDArray[np.float32]:
    """Validated (count, dimension) float32 query vectors."""
    return _check_vectors(vectors, count, dimension)
