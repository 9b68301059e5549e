"""Real stacks for LifecycleManager tests: a record store and HNSW/pgvector staged collections."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from remem.embeddings import HashingEmbedder
from remem.lifecycle import DecayConfig, FilePlanJournal, LifecycleManager, PlanJournal
from remem.models import (
    ManualClock,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    ProvenanceMetadata,
)
from remem.staging import STAGED, CollectionManager, FileMoveJournal
from remem.stores.duckdb import DuckDBRecordStore
from remem.stores.hnsw import HnswVectorStore
from remem.stores.postgres.records import PostgresRecordStore
from remem.stores.postgres.vector import PgVectorStore
from remem.stores.records import RecordStore
from remem.stores.vector import VectorStore

T0 = datetime(2026, 5, 1, tzinfo=UTC)


def rec(
    id: str,
    *,
    stage: MemoryStage = MemoryStage.SHORT_TERM,
    age_h: float = 0.0,
    accessed_h: float | None = None,
    base: float = 1.0,
    access_count: int = 0,
    protected: bool = False,
    decayed_h: float | None = None,
    confidence: float = 1.0,
    text: str | None = None,
) -> MemoryRecord:
    """A record created ``age_h`` hours after T0, last reinforced at ``accessed_h``."""
    created = T0 + timedelta(hours=age_h)
    ref = created if accessed_h is None else T0 + timedelta(hours=accessed_h)
    lifecycle: dict[str, Any] = {
        "stage": stage,
        "base_score": base,
        "created_at": created,
        "score_reference_time": ref,
        "access_count": access_count,
        "protected": protected,
    }
    if decayed_h is not None:
        lifecycle["decayed_at"] = T0 + timedelta(hours=decayed_h)
    return MemoryRecord(
        id=id,
        text=text or f"memory {id} about the lifecycle of things",
        lifecycle=MemoryLifecycleMetadata(**lifecycle),
        provenance=ProvenanceMetadata(confidence=confidence),
    )


@dataclass
class Stack:
    records: RecordStore
    collections: CollectionManager
    vectors: VectorStore
    clock: ManualClock
    root: Path

    def manager(
        self, *, journal: PlanJournal | None = None, decay: DecayConfig | None = None, **kw: Any
    ) -> LifecycleManager:
        return LifecycleManager(
            self.records,
            self.collections,
            decay=decay,
            clock=self.clock,
            journal=journal if journal is not None else FilePlanJournal(self.root / "plans.jsonl"),
            **kw,
        )

    async def add(self, records: Sequence[MemoryRecord]) -> None:
        await self.records.put(records)
        await self.collections.add([r for r in records if r.lifecycle.stage in STAGED])

    async def stages(self) -> dict[str, str]:
        return {
            r.id: r.lifecycle.stage.value for r in await self.records.scan(include_superseded=True)
        }

    async def collection_of(self) -> dict[str, str]:
        """Which staged collection holds each vector (an id in two collections would fail)."""
        where: dict[str, str] = {}
        for stage in STAGED:
            name = self.collections.collection_for(stage)
            ids = [m.id for m in await self.vectors.get(name, list((await self.stages()).keys()))]
            for i in ids:
                assert i not in where, f"{i} is in two collections"
                where[i] = stage.value
        return where


@asynccontextmanager
async def open_stack(
    kind: str, root: Path, request: pytest.FixtureRequest | None = None
) -> AsyncIterator[Stack]:
    """A stack under ``root``; reopening the same root sees the same data."""
    records: RecordStore
    vectors: VectorStore
    if kind == "duckdb":
        records = DuckDBRecordStore(root / "memory.duckdb")
        vectors = HnswVectorStore(root / "vectors")
    else:
        assert request is not None
        dsn = request.getfixturevalue("pg_dsn")
        records = PostgresRecordStore(dsn)
        vectors = PgVectorStore(dsn)
    embedder = HashingEmbedder(dimension=64)
    collections = CollectionManager(
        vectors, embedder, journal=FileMoveJournal(root / "moves.jsonl")
    )
    async with records, vectors, collections:
        yield Stack(records, collections, vectors, ManualClock(T0), root)


@pytest.fixture
async def stack(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Stack]:
    """DuckDB record store + HnswVectorStore collections under tmp_path."""
    async with open_stack("duckdb", tmp_path, request) as s:
        yield s


@pytest.fixture(params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
async def any_stack(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Stack]:
    """The same stack on each backend: DuckDB + HNSW, PostgreSQL + pgvector."""
    async with open_stack(request.param, tmp_path, request) as s:
        yield s
