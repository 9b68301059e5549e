"""Fixtures: a MemoryController on REAL embedded stores in tmp_path, with a ManualClock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from remem.controller import ControllerConfig, ExtractionResult, Extractor, MemoryController
from remem.controller.extraction import ExtractionContext
from remem.controller.graph_services import GraphServices
from remem.embeddings import HashingEmbedder
from remem.failures import FailureLog
from remem.graph import GraphScorer
from remem.models import ManualClock, TranscriptEntry
from remem.staging import CollectionManager, FileMoveJournal
from remem.stores.bundle import Stores
from remem.stores.duckdb import DuckDBDatabase, DuckDBGraphStore, DuckDBRecordStore
from remem.stores.hnsw import HnswVectorStore
from remem.stores.sqlite.episodic import SQLiteEpisodicStore
from remem.stores.sqlite.transcript import SQLiteTranscriptStore
from remem.stores.vector import VectorStore
from remem.writebehind import DirectWrites, JournaledWrites, JournalFile, WritePort

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


@dataclass
class Stack:
    controller: MemoryController
    transcript: SQLiteTranscriptStore
    episodic: SQLiteEpisodicStore
    records: DuckDBRecordStore
    graph: DuckDBGraphStore
    vectors: VectorStore
    collections: CollectionManager
    clock: ManualClock

    async def settled(self) -> Stack:
        """This stack once its (bare) stores hold every acknowledged write: the write port's
        barrier, through ``controller.settled()``."""
        await self.controller.settled()
        return self


Factory = Callable[..., Any]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture(params=["direct", "write_behind"])
async def make_stack(
    tmp_path: Path, clock: ManualClock, request: pytest.FixtureRequest
) -> AsyncIterator[Factory]:
    """Every controller test runs twice: writes applied at once, and through write-behind (the
    Runtime's embedded default). The Stack's stores are the bare ones: a test reading them after
    a write awaits ``controller.settled()`` first (the write port's barrier). A test of the
    direct path's own semantics passes ``write_behind=False``."""
    default_behind = request.param == "write_behind"
    async with AsyncExitStack() as exits:

        async def make(
            *,
            vectors: VectorStore | None = None,
            extractor: Extractor | None = None,
            config: ControllerConfig | None = None,
            name: str = "m",
            write_behind: bool | None = None,
        ) -> Stack:
            root = tmp_path / name
            root.mkdir(exist_ok=True)
            db = DuckDBDatabase(root / "memory.duckdb")
            transcript = await exits.enter_async_context(SQLiteTranscriptStore(root / "t.db"))
            episodic = await exits.enter_async_context(SQLiteEpisodicStore(root / "e.db"))
            records = await exits.enter_async_context(DuckDBRecordStore(db))
            graph = await exits.enter_async_context(DuckDBGraphStore(db))
            vstore = vectors if vectors is not None else HnswVectorStore(root / "vectors")
            vstore = await exits.enter_async_context(vstore)
            collections = await exits.enter_async_context(
                CollectionManager(
                    vstore, HashingEmbedder(), journal=FileMoveJournal(root / "moves.journal")
                )
            )
            stores = Stores(
                transcript=transcript,
                episodic=episodic,
                records=records,
                graph=graph,
                vectors=vstore,
            )
            writes: WritePort | None = None
            if default_behind if write_behind is None else write_behind:
                direct = DirectWrites(
                    transcript_store=transcript,
                    episodic_store=episodic,
                    record_store=records,
                    collection_manager=collections,
                    failures=FailureLog(),
                    now=clock.now,
                )
                writes = JournaledWrites(
                    JournalFile(root / "writebehind.db"), direct, dimension=384
                )
                await writes.open()
                exits.push_async_callback(writes.aclose)  # after the controller's close
            controller = MemoryController(
                stores,
                collections,
                writes=writes,
                graph=GraphServices(scorer=GraphScorer(graph, clock=clock)),
                extractor=extractor,
                config=config,
                clock=clock,
            )
            exits.push_async_callback(controller.aclose)
            return Stack(
                controller, transcript, episodic, records, graph, vstore, collections, clock
            )

        yield make


class ListExtractor:
    """A trivial test extractor: returns a fixed result and remembers what it saw."""

    def __init__(self, result: ExtractionResult | None = None, *, fail: bool = False) -> None:
        self.result = result or ExtractionResult()
        self.fail = fail
        self.seen: list[list[str]] = []

    async def extract(
        self, entries: Sequence[TranscriptEntry], *, context: ExtractionContext
    ) -> ExtractionResult:
        self.seen.append([e.id for e in entries])
        if self.fail:
            raise RuntimeError("extractor exploded")
        return self.result
