"""Lifecycle hot path: preview a maintenance plan over 100k records in a DuckDB file.

Run: ``pytest benches/bench_lifecycle.py --benchmark-only`` (``--benchmark-disable`` for a quick
correctness pass) or ``python -m benches.report benches/bench_lifecycle.py``.

``native`` is :meth:`LifecycleManager.preview`: one columnar read (``lifecycle_columns``) and one
native fused-scorer pass over every record. ``naive`` is the obvious baseline: ``scan()`` every
record and apply the same rules in a per-row Python loop with ``math.exp``. Both read the store
inside the timed call. ``correct`` checks both give the same ids for every action. Records carry no
entity ids, so the relationship count is 0 for both.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem.embeddings import HashingEmbedder
from remem.lifecycle import DecayConfig, LifecycleManager, PlanAction, PromotionConfig
from remem.models import (
    ManualClock,
    MemoryLifecycleMetadata,
    MemoryRecord,
    MemoryStage,
    ProvenanceMetadata,
)
from remem.staging import CollectionManager
from remem.stores.duckdb import DuckDBRecordStore
from remem.stores.hnsw import HnswVectorStore

N = 100_000
T0 = datetime(2026, 5, 1, tzinfo=UTC)
NOW = T0 + timedelta(days=60)
STAGES = (MemoryStage.SHORT_TERM, MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM)


def _records(n: int) -> list[MemoryRecord]:
    rng = np.random.default_rng(5)
    created = rng.uniform(0, 60 * 24, n)
    idle = rng.uniform(0, 1, n)
    out = []
    for i in range(n):
        c = T0 + timedelta(hours=float(created[i]))
        ref = c + (NOW - c) * float(idle[i])
        decayed = i % 4 == 3
        out.append(
            MemoryRecord(
                id=f"r{i:06d}",
                text=f"memory {i}",
                lifecycle=MemoryLifecycleMetadata(
                    stage=MemoryStage.DECAYED if decayed else STAGES[i % 3],
                    base_score=float(rng.uniform(0.05, 1.0)),
                    created_at=c,
                    score_reference_time=ref,
                    decayed_at=ref if decayed else None,
                    access_count=int(rng.integers(0, 8)),
                    protected=bool(i % 17 == 0),
                ),
                provenance=ProvenanceMetadata(confidence=float(rng.uniform(0, 1))),
            )
        )
    return out


def naive_plan(
    records: list[MemoryRecord], now: datetime, d: DecayConfig, p: PromotionConfig
) -> dict[PlanAction, set[str]]:
    """The rules of remem.lifecycle.rules, one record at a time."""
    out: dict[PlanAction, set[str]] = {a: set() for a in PlanAction}
    t = now.timestamp()
    for r in records:
        lc = r.lifecycle
        if r.superseded_by is not None:
            continue
        idle_h = max(0.0, (t - lc.score_reference_time.timestamp()) / 3600.0)
        score = min(1.0, max(0.0, lc.base_score * math.exp(-d.decay_rate * idle_h)))
        age_h = (t - lc.created_at.timestamp()) / 3600.0
        promo = (
            p.w_age * min(1.0, max(0.0, age_h) / p.age_norm_hours)
            + p.w_access * min(1.0, lc.access_count / p.access_norm)
            + p.w_confidence * min(1.0, max(0.0, r.provenance.confidence))
        )
        faded = score < d.decay_threshold
        if lc.stage in (MemoryStage.SHORT_TERM, MemoryStage.LONG_TERM):
            if faded and not lc.protected:
                out[PlanAction.DECAY].add(r.id)
            elif (
                lc.stage is MemoryStage.SHORT_TERM
                and age_h >= d.short_term_min_age_hours
                and promo >= d.promotion_threshold
            ):
                out[PlanAction.PROMOTE].add(r.id)
        elif lc.stage is MemoryStage.DECAYED:
            if not faded:
                out[PlanAction.REACTIVATE].add(r.id)
            elif (
                not lc.protected
                and lc.decayed_at is not None
                and t - lc.decayed_at.timestamp() >= d.decayed_retention_days * 86400.0
            ):
                out[PlanAction.DELETE].add(r.id)
    return out


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


@pytest.fixture(scope="module")
def manager(
    loop: asyncio.AbstractEventLoop, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LifecycleManager]:
    root: Path = tmp_path_factory.mktemp("bench_lifecycle")
    records = DuckDBRecordStore(root / "memory.duckdb")
    collections = CollectionManager(
        HnswVectorStore(root / "vectors"), HashingEmbedder(dimension=64)
    )
    batch = _records(N)
    for start in range(0, N, 20_000):
        loop.run_until_complete(records.put(batch[start : start + 20_000]))
    mgr = LifecycleManager(records, collections, clock=ManualClock(NOW))
    loop.run_until_complete(mgr.open())
    yield mgr
    loop.run_until_complete(mgr.aclose())
    loop.run_until_complete(collections.aclose())
    loop.run_until_complete(records.aclose())


@pytest.mark.parametrize("impl", ["native", "naive"])
def test_preview_100k(
    benchmark: Any, loop: asyncio.AbstractEventLoop, manager: LifecycleManager, impl: str
) -> None:
    def native() -> dict[PlanAction, set[str]]:
        plan = loop.run_until_complete(manager.preview())
        return {a: {c.id for c in getattr(plan, a.value)} for a in PlanAction}

    def naive() -> dict[PlanAction, set[str]]:
        rows = loop.run_until_complete(manager.record_store.scan(include_superseded=True))
        return naive_plan(rows, NOW, manager.decay_config, manager.promotion_config)

    benchmark.group = "lifecycle preview 100k"
    benchmark.extra_info["records"] = N
    got = benchmark.pedantic(
        native if impl == "native" else naive, rounds=3 if impl == "native" else 1
    )
    want = native() if impl == "naive" else naive()
    benchmark.extra_info["changes"] = sum(len(v) for v in got.values())
    benchmark.extra_info["correct"] = bool(got == want and all(got.values()))
    assert benchmark.extra_info["correct"]
