"""CollectionManager on real vector stores: staging, floors, moves, crash recovery."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from remem.embeddings import HashingEmbedder
from remem.errors import ConfigError, EmbeddingModelMismatchError, InvalidArgumentError
from remem.models import MemoryLifecycleMetadata, MemoryRecord, MemoryStage
from remem.staging import CollectionManager, FileMoveJournal, PendingMove, StagingConfig
from remem.stores.hnsw import HnswVectorStore
from remem.stores.memory.vector import MemoryVectorStore
from remem.stores.postgres.vector import PgVectorStore
from remem.stores.vector import VectorStore

T0 = datetime(2026, 5, 1, tzinfo=UTC)


def record(i: int, text: str, stage: MemoryStage = MemoryStage.SHORT_TERM) -> MemoryRecord:
    return MemoryRecord(
        id=f"m{i}",
        text=text,
        lifecycle=MemoryLifecycleMetadata(stage=stage, score_reference_time=T0, created_at=T0),
    )


class CountingEmbedder:
    """The hashing embedder, counting how many documents it embedded."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.model_name = self.inner.model_name
        self.dimension = self.inner.dimension
        self.documents_embedded = 0

    async def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.documents_embedded += len(texts)
        return await self.inner.embed_documents(texts)

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        return await self.inner.embed_query(text)


@pytest.fixture(params=["hnsw", "memory", "postgres"])
async def vector_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[VectorStore]:
    store: VectorStore
    if request.param == "hnsw":
        store = HnswVectorStore(tmp_path / "vectors")
    elif request.param == "memory":
        store = MemoryVectorStore()
    else:
        store = PgVectorStore(request.getfixturevalue("pg_dsn"))
    async with store:
        yield store


TEXTS = [
    "I moved to Lisbon in May",
    "My sister is called Ana",
    "I started a new job at a design studio",
    "Our dog Miso is a beagle",
]


async def test_add_query_and_floors(vector_store: VectorStore) -> None:
    embedder = HashingEmbedder()
    async with CollectionManager(vector_store, embedder) as manager:
        records = [record(i, t) for i, t in enumerate(TEXTS)]
        records.append(record(9, "Grandma lives in Porto", MemoryStage.LONG_TERM))
        await manager.add(records)
        assert await manager.count(MemoryStage.SHORT_TERM) == 4
        assert await manager.count(MemoryStage.LONG_TERM) == 1
        query = await embedder.embed_query("where did I move? Lisbon")
        [matches] = await manager.query(query, k=3)
        assert matches[0].id == "m0"
        assert matches[0].stage is MemoryStage.SHORT_TERM
        assert all(m.score >= manager.floors[MemoryStage.SHORT_TERM] for m in matches)
        assert manager.floors[MemoryStage.SHORT_TERM] < 0.5  # the lexical model's own floors
        # A floor above every similarity empties a stage; the other stage still answers.
        [only_long] = await manager.query(
            await embedder.embed_query("Grandma lives in Porto"),
            k=5,
            floors={MemoryStage.SHORT_TERM: 1.0},
        )
        assert [m.id for m in only_long] == ["m9"]


async def test_query_scores_is_query_without_the_payload(vector_store: VectorStore) -> None:
    embedder = HashingEmbedder()
    async with CollectionManager(vector_store, embedder) as manager:
        records = [record(i, t) for i, t in enumerate(TEXTS)]
        records += [record(10 + i, t, MemoryStage.LONG_TERM) for i, t in enumerate(TEXTS)]
        await manager.add(records)  # the same texts in two stages: cross-stage score ties
        queries = np.stack(
            [await embedder.embed_query(q) for q in ("Lisbon job", "my dog", "nothing at all")]
        )
        stages = (MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM)
        for k, floors in ((3, None), (20, None), (4, {MemoryStage.LONG_TERM: 1.0}), (0, None)):
            full = await manager.query(queries, k=k, stages=stages, floors=floors)
            bare = await manager.query_scores(queries, k=k, stages=stages, floors=floors)
            assert [[(m.id, m.score, m.stage) for m in r] for r in full] == [
                [(h.id, h.score, h.stage) for h in r] for r in bare
            ], (k, floors)
        [top] = await manager.query_scores(queries[0], k=2, where={"stage": "long_term"})
        assert [h.stage for h in top] == [MemoryStage.LONG_TERM, MemoryStage.LONG_TERM]
        with pytest.raises(InvalidArgumentError):
            await manager.query_scores(queries, k=-1)


async def test_move_never_reembeds_and_keeps_the_vector(vector_store: VectorStore) -> None:
    embedder = CountingEmbedder()
    async with CollectionManager(vector_store, embedder) as manager:
        vectors = await manager.add([record(i, t) for i, t in enumerate(TEXTS)])
        embedded = embedder.documents_embedded
        moved = await manager.move(
            ["m1", "m2", "missing"], MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM
        )
        assert moved == 2
        assert embedder.documents_embedded == embedded
        assert await manager.count(MemoryStage.SHORT_TERM) == 2
        [item] = await manager.vectors(["m1"], MemoryStage.LONG_TERM)
        np.testing.assert_allclose(np.asarray(item.vector), vectors[1], rtol=1e-6, atol=1e-6)
        assert item.metadata["stage"] == "long_term"
        assert await manager.vectors(["m1"], MemoryStage.SHORT_TERM) == []


async def test_rejects_unstaged_stages(vector_store: VectorStore) -> None:
    async with CollectionManager(vector_store, HashingEmbedder()) as manager:
        with pytest.raises(InvalidArgumentError, match="no collection"):
            await manager.add([record(1, "x", MemoryStage.EPISODIC)])
        with pytest.raises(InvalidArgumentError, match="no collection"):
            await manager.move(["m1"], MemoryStage.SHORT_TERM, MemoryStage.DELETED)


async def test_another_embedding_model_is_refused(tmp_path: Path) -> None:
    store = HnswVectorStore(tmp_path / "v")
    async with store, CollectionManager(store, HashingEmbedder(dimension=64)) as manager:
        await manager.add([record(1, "hello")])
    async with HnswVectorStore(tmp_path / "v") as store:
        with pytest.raises(EmbeddingModelMismatchError):
            async with CollectionManager(store, HashingEmbedder(dimension=64, seed=3)):
                pass


def test_config_is_validated() -> None:
    with pytest.raises(ConfigError, match=r"within -1\.\.1"):
        StagingConfig(floors={MemoryStage.SHORT_TERM: 1.5})


async def test_recover_completes_a_half_done_move(tmp_path: Path) -> None:
    """The worst moment: copied into the target, not yet deleted from the source."""
    embedder = HashingEmbedder()
    journal = FileMoveJournal(tmp_path / "moves.jsonl")
    async with HnswVectorStore(tmp_path / "v") as store:
        manager = CollectionManager(store, embedder, journal=journal)
        await manager.add([record(i, t) for i, t in enumerate(TEXTS)])
        move = PendingMove("half", ("m0", "m3"), MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM)
        journal.begin(move)
        items = await manager.vectors(["m0", "m3"], MemoryStage.SHORT_TERM)
        await store.upsert(
            manager.collection_for(MemoryStage.LONG_TERM),
            [i.id for i in items],
            np.asarray([i.vector for i in items], dtype=np.float32),
        )
    async with HnswVectorStore(tmp_path / "v") as store:
        reopened = CollectionManager(
            store, embedder, journal=FileMoveJournal(tmp_path / "moves.jsonl")
        )
        async with reopened:
            assert reopened.journal.pending() == []
            assert await reopened.count(MemoryStage.SHORT_TERM) == 2
            assert await reopened.count(MemoryStage.LONG_TERM) == 2


MOVER = textwrap.dedent(
    """
    import asyncio, sys
    from datetime import UTC, datetime
    from remem.embeddings import HashingEmbedder
    from remem.models import MemoryLifecycleMetadata, MemoryRecord, MemoryStage
    from remem.staging import CollectionManager, FileMoveJournal
    from remem.stores.hnsw import HnswVectorStore

    root = sys.argv[1]
    t0 = datetime(2026, 5, 1, tzinfo=UTC)
    async def main():
        store = HnswVectorStore(root + "/v")
        manager = CollectionManager(store, HashingEmbedder(dimension=32),
                                    journal=FileMoveJournal(root + "/moves.jsonl"))
        records = [MemoryRecord(id=f"m{i}", text=f"memory number {i}",
                   lifecycle=MemoryLifecycleMetadata(score_reference_time=t0, created_at=t0))
                   for i in range(3000)]
        await manager.add(records)
        print("ready", flush=True)
        for start in range(0, 3000, 100):
            ids = [f"m{i}" for i in range(start, start + 100)]
            await manager.move(ids, MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM)
        print("done", flush=True)
    asyncio.run(main())
    """
)


def run_mover_and_kill(root: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", MOVER, str(root)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.0)  # let some moves happen, then kill without warning
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


async def test_sigkill_mid_moves_leaves_each_record_in_exactly_one_stage(tmp_path: Path) -> None:
    await asyncio.to_thread(run_mover_and_kill, tmp_path)
    async with HnswVectorStore(tmp_path / "v") as store:
        manager = CollectionManager(
            store, HashingEmbedder(dimension=32), journal=FileMoveJournal(tmp_path / "moves.jsonl")
        )
        async with manager:
            short = await manager.count(MemoryStage.SHORT_TERM)
            long = await manager.count(MemoryStage.LONG_TERM)
            assert short + long == 3000
            ids = [f"m{i}" for i in range(3000)]
            in_short = {i.id for i in await manager.vectors(ids, MemoryStage.SHORT_TERM)}
            in_long = {i.id for i in await manager.vectors(ids, MemoryStage.LONG_TERM)}
            assert not in_short & in_long
            assert in_short | in_long == set(ids)
            assert manager.journal.pending() == []
