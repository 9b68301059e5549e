"""The RecordStore protocol: memory records with lifecycle and provenance, worked on in sets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from remem.errors import NotFoundError
from remem.models import MemoryKind, MemoryLifecycleMetadata, MemoryRecord, MemoryStage


@dataclass(frozen=True, slots=True)
class LifecycleColumns:
    """Columnar lifecycle state of many records, ready for the native fused scorer.

    Times are float64 UNIX seconds; ``stage`` holds MemoryStage values as strings;
    ``decayed_at`` is NaN where the record has none; ``superseded`` is True where
    ``superseded_by`` is set.
    """

    ids: list[str]
    stage: list[str]
    base_score: NDArray[np.float64]
    score_reference_time: NDArray[np.float64]
    created_at: NDArray[np.float64]
    access_count: NDArray[np.int64]
    confidence: NDArray[np.float64]
    relationship_count: NDArray[np.int64]
    protected: NDArray[np.bool_]
    decayed_at: NDArray[np.float64]
    superseded: NDArray[np.bool_]


@runtime_checkable
class RecordStore(Protocol):
    """Memory records.

    Contract (every backend): ``put`` of an existing id raises DuplicateIdError and writes nothing
    of the batch; ``get`` returns records in the order asked and raises NotFoundError naming the
    missing ids; ``scan`` and ``lifecycle_columns`` cover every matching record (no caps);
    lifecycle updates of many records are one atomic, set-based statement, never a per-row loop.

    Keyed facts (records whose ``metadata`` has ``subject`` and ``attribute``, see
    :func:`remem.controller.extraction_apply.fact_key`): ``keyed_facts`` returns the live ones
    (not superseded, not deleted; with ``include_superseded=True`` the superseded ones too — a
    fact's history of values), optionally only those whose subject/attribute is in the given
    lists, in one query ordered by (namespace, subject, attribute, validity time, created_at,
    id), where validity time is ``valid_from`` or, when unset, ``lifecycle.created_at``.
    ``supersede_many`` applies many ``supersede`` calls in one transaction, all or nothing.
    """

    async def put(self, records: Sequence[MemoryRecord]) -> None: ...
    async def upsert(self, records: Sequence[MemoryRecord]) -> None: ...
    async def get(self, ids: Sequence[str]) -> list[MemoryRecord]: ...
    async def scan(
        self,
        *,
        stages: Sequence[MemoryStage] | None = None,
        kinds: Sequence[MemoryKind] | None = None,
        namespace: str | None = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]: ...
    async def count(self, *, stages: Sequence[MemoryStage] | None = None) -> int: ...
    async def lifecycle_columns(
        self, *, stages: Sequence[MemoryStage] | None = None
    ) -> LifecycleColumns: ...
    async def update_lifecycle(
        self, updates: Sequence[tuple[str, MemoryLifecycleMetadata]]
    ) -> None: ...
    async def record_accesses(
        self, ids: Sequence[str], new_base_scores: Sequence[float], at: datetime
    ) -> None: ...
    async def supersede(self, old_id: str, new_id: str, *, at: datetime) -> None: ...
    async def supersede_many(self, items: Sequence[tuple[str, str, datetime]]) -> None: ...
    async def keyed_facts(
        self,
        *,
        subjects: Sequence[str] | None = None,
        attributes: Sequence[str] | None = None,
        namespace: str | None = None,
        include_superseded: bool = False,
    ) -> list[MemoryRecord]: ...
    async def delete(self, ids: Sequence[str]) -> int: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


@runtime_checkable
class SharedRecordReader(Protocol):
    """A record store that also answers ``get_shared``: the records of the ids that exist, by
    id, in the order first asked (a missing id left out), possibly the very objects an earlier
    call returned — never to be changed; hand out
    :func:`~remem.stores.shared.record_memo.detached` copies. Recall's eligibility read."""

    async def get_shared(self, ids: Sequence[str]) -> dict[str, MemoryRecord]: ...


async def get_existing(store: RecordStore, ids: Sequence[str]) -> dict[str, MemoryRecord]:
    """``get_shared`` of ``store`` when it has one, else ``get`` of the ids that exist (one
    ``get``; on NotFoundError one per id), by id in the order first asked."""
    if isinstance(store, SharedRecordReader):
        return await store.get_shared(ids)
    try:
        found = await store.get(ids)
    except NotFoundError:
        # A vector or note whose record is gone (e.g. a compensated write): skip it.
        found = []
        for i in ids:
            try:
                found += await store.get([i])
            except NotFoundError:
                continue
    return {r.id: r for r in found}
