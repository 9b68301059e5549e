"""Recall starts its full-text side while the query is encoded (RecallPipeline.run takes the
encode as an awaitable): the order is provable with a gated encoder whose gate opens only once
the full-text search has run, and a failed or cancelled encode leaves no task behind."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import remem
from remem.controller.retrieval import Retrieval
from remem.errors import EmbeddingError
from remem.models import ManualClock
from tests.embeddings.doubles import HashingWrapper
from tests.recovery.memory_dirs import T0


class GatedEmbedder(HashingWrapper):
    """The hashing embedder; a query encode waits for ``gate`` (documents never wait)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()
        self.fail = False

    async def embed_query(self, text: str) -> NDArray[np.float32]:
        self.waiting.set()
        await self.gate.wait()
        if self.fail:
            raise EmbeddingError("the test's encoder failed")
        return await super().embed_query(text)


async def _runtime(root: Path, embedder: GatedEmbedder) -> remem.Runtime:
    rt = remem.Runtime.open(root, clock=ManualClock(T0), embedder=embedder)
    await rt.start()
    await rt.controller.remember_many(["Ana keeps bees on the roof", "Joao plays the cello"])
    await rt.controller.record_turn("s1", "we talked about the bees", "lovely")
    await rt.controller.writes.barrier()
    embedder.gate.set()  # the writes above are documents; the gate is for the test's query
    return rt


def _others() -> set[asyncio.Task[Any]]:
    return asyncio.all_tasks() - {asyncio.current_task()}


async def test_full_text_runs_while_the_query_is_encoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = GatedEmbedder()
    rt = await _runtime(tmp_path / "m", embedder)
    try:
        expected = await rt.controller.recall(
            "bees", k=5, vector=(await embedder.embed_documents(["bees"]))[0]
        )
        searched = asyncio.Event()
        texts = Retrieval.texts

        async def texts_then_open(self: Retrieval, *args: Any) -> Sequence[Any]:
            found = await texts(self, *args)
            searched.set()
            return found

        monkeypatch.setattr(Retrieval, "texts", texts_then_open)
        embedder.gate.clear()

        async def open_gate_after_search() -> None:
            await searched.wait()  # a pipeline that encoded first would never get here
            embedder.gate.set()

        opener = asyncio.create_task(open_gate_after_search())
        got = await asyncio.wait_for(rt.controller.recall("bees", k=5), timeout=30)
        await opener
        assert [(h.record.id, h.score) for h in got] == [(h.record.id, h.score) for h in expected]
        assert got
        assert "bees" in got[0].record.text
    finally:
        await rt.aclose()


async def test_a_failed_encode_raises_its_error_and_leaves_no_task(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    rt = await _runtime(tmp_path / "m", embedder)
    try:
        embedder.fail = True
        with pytest.raises(EmbeddingError, match="the test's encoder failed"):
            await rt.controller.recall("bees", k=5)
        await asyncio.sleep(0)
        assert not _others()
        embedder.fail = False
        assert await rt.controller.recall("bees", k=5)  # nothing wedged
    finally:
        await rt.aclose()


async def test_cancelling_recall_during_the_encode_cancels_every_search(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    rt = await _runtime(tmp_path / "m", embedder)
    try:
        embedder.gate.clear()
        embedder.waiting.clear()
        call = asyncio.create_task(rt.controller.recall("bees", k=5))
        await embedder.waiting.wait()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        for _ in range(3):
            await asyncio.sleep(0)
        assert not _others()
        embedder.gate.set()
        assert await rt.controller.recall("bees", k=5)
    finally:
        await rt.aclose()
