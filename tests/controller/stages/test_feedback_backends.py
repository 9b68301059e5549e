"""The feedback and diversity stages on real runtimes, embedded and PostgreSQL: switched on,
each finds or reorders what it should, and recall_many agrees with recall."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import remem
from remem.controller import ControllerConfig
from remem.controller.stages import (
    DenseFeedbackConfig,
    DiversityConfig,
    FeedbackConfig,
    RecallStagesConfig,
)
from remem.models import ManualClock
from remem.runtime_config import RuntimeConfig

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
QUESTION = "how was the holiday trip"
ON = RecallStagesConfig(
    feedback=FeedbackConfig(enabled=True, docs=1, terms=4, weight=0.5),
    dense_feedback=DenseFeedbackConfig(enabled=True, docs=1, beta=0.5),
    diversity=DiversityConfig(enabled=True, decay=0.9),
).without("neighbours")
FILLER = [
    "the weather was grey all week",
    "we watched a film about space travel",
    "my cousin bought a new bicycle",
    "dinner was pasta with mushrooms",
]


async def _run(rt: Any, clock: ManualClock) -> tuple[str, list[str], list[str]]:
    c = rt.controller
    for i, text in enumerate(FILLER):
        clock.set(T0 + timedelta(hours=i))
        await c.record_turn(f"chat-{i}", text, "")
    clock.set(T0 + timedelta(days=1))
    await c.record_turn("s1", "our holiday trip: a gondola ride along the canals", "")
    clock.set(T0 + timedelta(days=2))
    # Shares no word with the question: only the feedback search can find it.
    answer = await c.record_turn("s2", "that gondola ride through the canals was magical", "")
    clock.set(T0 + timedelta(days=3))
    hits = await c.recall(QUESTION, k=10, stages=["episodic"])
    many = await c.recall_many([QUESTION], k=10, stages=["episodic"])
    return answer.id, [h.record.id for h in hits], [h.record.id for h in many[0]]


def _config(path: Path, stages: RecallStagesConfig = ON, **kw: Any) -> RuntimeConfig:
    return RuntimeConfig(path=path, controller=ControllerConfig(stages=stages), **kw)


@pytest.mark.parametrize("on", [True, False])
async def test_the_stages_find_the_reply_embedded(tmp_path: Path, on: bool) -> None:
    clock = ManualClock(T0)
    stages = ON if on else ON.without("feedback", "dense_feedback", "diversity")
    config = _config(tmp_path / "memory", stages, embedding_provider="hashing")
    async with remem.Runtime.open(tmp_path / "memory", clock=clock, config=config) as rt:
        answer, ids, many = await _run(rt, clock)
    assert (answer in ids) is on
    assert many == ids


@pytest.mark.postgres
async def test_the_stages_find_the_reply_postgres(pg_dsn: str, tmp_path: Path) -> None:
    clock = ManualClock(T0)
    config = _config(tmp_path, backend="postgres", dsn=pg_dsn, embedding_provider="hashing")
    async with remem.Runtime.open(tmp_path, clock=clock, config=config) as rt:
        answer, ids, many = await _run(rt, clock)
    assert answer in ids
    assert many == ids
