"""Recall reads records shared between reads (``get_shared``) and returns copies: a caller that
changes a result's metadata changes neither the store's answer nor the next recall's."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.models import ManualClock
from tests.recovery.memory_dirs import T0


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "embedded":
        return {}
    return {"backend": "postgres", "dsn": request.getfixturevalue("pg_dsn")}


def test_a_changed_result_leaves_the_next_recall_as_it_was(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    loop = asyncio.new_event_loop()
    opts: dict[str, Any] = {"embedding_provider": "hashing", **backend}
    rt = remem.Runtime.open(tmp_path / "m", clock=ManualClock(T0), **opts)
    try:
        loop.run_until_complete(rt.start())
        c = rt.controller
        meta = {"speaker": "Ana", "topic": "garden"}
        for i in range(5):
            loop.run_until_complete(c.remember(f"Ana waters the garden roses {i}", metadata=meta))
        loop.run_until_complete(c.writes.barrier())
        # No access note: it rewrites the returned records' rows, which would hide a shared one.
        c.access_tracker = None
        first = loop.run_until_complete(c.recall_many(["garden roses", "Ana roses"], k=3))
        assert first[0]
        assert first[1]
        ids = [h.record.id for hits in first for h in hits]
        for hits in first:
            for h in hits:
                h.record.metadata["topic"] = "changed"
                h.record.metadata["extra"] = 1
        again = loop.run_until_complete(c.recall("garden roses", k=3))
        assert [h.record.metadata for h in again] == [meta] * len(again)
        stored = loop.run_until_complete(rt.controller._recall.retrieval.records.get(ids))
        assert all(r.metadata == meta for r in stored)
    finally:
        loop.run_until_complete(rt.aclose())
        loop.close()
